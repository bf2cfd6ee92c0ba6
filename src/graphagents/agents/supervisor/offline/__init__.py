"""The offline brain of the supervisor: planning classifier, entity extractor, orchestration
rules and the template composer. Each is what the model does when there is no model, and each
declines or hedges rather than guessing when its evidence is thin."""
