"""The semantic response cache inside the agent: a hit needs the same user, the same slot signature
and a close embedding; a hit skips the pipeline but still shows its passages and citations."""

from __future__ import annotations

from typing import Any

QUESTION = "How is high blood pressure treated?"


def test_the_same_question_again_is_a_hit(make_agent: Any) -> None:
    agent = make_agent()
    first = agent.session(None, user_id="c1").send(QUESTION)
    assert first.state["cache_hit"] is False and first.state["cache_similarity_score"] is None
    second = agent.session(None, user_id="c1").send(QUESTION)
    assert second.state["cache_hit"] is True and second.state["cache_similarity_score"] >= 0.85
    assert second.text == first.text
    assert second.state["retrieved_docs"] == first.state["retrieved_docs"]
    assert [a.to_dict() for a in second.artifacts] == [a.to_dict() for a in first.artifacts]
    steps = [e.node for e in second.events if e.type == "step"]
    assert "retrieve" not in steps and "generate_answer" not in steps
    assert any(e.type == "decision" and e.kind == "cache" and e.choice == "hit" for e in second.events)


def test_another_user_never_gets_my_cached_answer(make_agent: Any) -> None:
    agent = make_agent()
    agent.session(None, user_id="c2").send(QUESTION)
    other = agent.session(None, user_id="c3").send(QUESTION)
    assert other.state["cache_hit"] is False


def test_a_different_number_is_a_miss(make_agent: Any) -> None:
    agent = make_agent()
    agent.session(None, user_id="c4").send("Is a fasting blood glucose of 110 mg/dL prediabetes?")
    other = agent.session(None, user_id="c4").send("Is a fasting blood glucose of 130 mg/dL prediabetes?")
    assert other.state["cache_hit"] is False


def test_a_changed_profile_is_a_miss(make_agent: Any) -> None:
    from graphagents._connections import store_for
    from graphagents.agents.rag.profiles import ProfileStore
    from graphagents.settings import get_settings

    agent = make_agent()
    agent.session(None, user_id="c5").send(QUESTION)
    ProfileStore(store_for(get_settings().resolved_store_url)).put(
        "c5", {"demographics": {"age": 70}, "conditions": ["chronic kidney disease"]})
    again = agent.session(None, user_id="c5").send(QUESTION)
    assert again.state["cache_hit"] is False  # the answer was written for another profile


def test_cache_and_llm_mode(make_agent: Any) -> None:
    agent = make_agent(cache_enabled=False)
    agent.session(None, user_id="c6").send(QUESTION)
    assert agent.session(None, user_id="c6").send(QUESTION).state["cache_hit"] is False


def test_a_not_found_answer_is_not_cached(make_agent: Any) -> None:
    agent = make_agent()
    question = "How do I repair a carburetor on a motorcycle?"
    agent.session(None, user_id="c7").send(question)
    assert agent.session(None, user_id="c7").send(question).state["cache_hit"] is False


def test_a_stricter_threshold_per_session(make_agent: Any) -> None:
    agent = make_agent()
    agent.session(None, user_id="c8").send(QUESTION)
    paraphrase = "How do doctors treat high blood pressure?"
    strict = agent.session(None, user_id="c8", agent_config={"cache_threshold": 0.999}).send(paraphrase)
    assert strict.state["cache_hit"] is False


def test_the_cache_lives_in_redis_when_configured(redis_url: str, rag_options: dict[str, Any],
                                                  mini_store: Any) -> None:
    import uuid

    from graphagents.agents.rag.spec import SPEC
    from graphagents.runtime import Agent
    from graphagents.settings import get_settings

    settings = get_settings().model_copy(update={"cache_url": redis_url})
    user = f"redis-{uuid.uuid4().hex[:8]}"

    def agent() -> Any:
        return Agent(SPEC, settings=settings, checkpoint_url="memory", embedder="offline", **rag_options)

    agent().session(None, user_id=user).send(QUESTION)
    from graphagents import _connections

    with _connections._lock:  # another process: nothing of the first agent's cache in memory
        _connections._semantic_caches.clear()
    hit = agent().session(None, user_id=user).send(QUESTION)
    assert hit.state["cache_hit"] is True
    from graphagents.agents.rag.routes_data import clear_profile

    assert clear_profile(user, settings) >= 1  # the user's Redis entries go with the profile
    assert agent().session(None, user_id=user).send(QUESTION).state["cache_hit"] is False
