"""The package exports exactly what we mean to export (cf. httpx tests/test_exported_members.py)."""

from __future__ import annotations

import inspect
import types

import graphagents as ga
from graphagents import (
    artifacts,
    errors,
    events,
    nodes,
    privacy,
    registry,
    routes,
    runtime,
    settings,
    steps,
    usage,
    userdata,
)

EXPECTED = [
    "Agent", "AgentSpec", "Artifact", "BuildContext", "BusyError", "ChartArtifact", "CitationArtifact", "ConfigError",
    "DecisionEvent", "DegradedEvent", "DocumentArtifact", "ErrorEvent", "Event", "FinalEvent", "GraphAgentsError",
    "InputError",
    "IntermediateTableArtifact", "MissingExtraError", "MissingKeyError", "ModelOutputError", "ModelRequestsBlocked",
    "ModelSetupError", "Question", "Reply", "RunError", "ServiceUnavailableError", "Session", "SessionContext",
    "SessionExistsError", "Settings", "SqlArtifact", "StateUpdateEvent", "StepEvent", "StepState", "TableArtifact",
    "TokenEvent", "ToolCallEvent", "ToolResultEvent", "TurnDeadlineExceeded", "UnknownAgentError",
    "UnknownProviderError", "UnknownSessionError", "Usage",
    "UsageError", "UsageSummary", "add_step_cap_node", "all_specs", "emit", "finish_when_low", "get_settings",
    "get_spec", "load", "nonblocking", "register", "steps_low",
]


def test_all_is_the_expected_list_in_order() -> None:
    assert ga.__all__ == EXPECTED == sorted(EXPECTED)


def test_every_exported_name_exists() -> None:
    missing = [name for name in ga.__all__ if not hasattr(ga, name)]
    assert missing == []


def test_nothing_public_leaks_besides_all_and_submodules() -> None:
    public = {name for name, value in vars(ga).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType)}
    assert public == set(ga.__all__)


def test_public_modules_declare_all_and_it_is_accurate() -> None:
    for module in (artifacts, errors, events, nodes, privacy, registry, routes, runtime, settings, steps, usage,
                   userdata):
        names = module.__all__
        assert names and all(hasattr(module, n) for n in names), module.__name__
        defined_here = {n for n, v in vars(module).items() if not n.startswith("_")
                        and (inspect.isclass(v) or inspect.isfunction(v))
                        and getattr(v, "__module__", None) == module.__name__}
        assert defined_here <= set(names), (module.__name__, defined_here - set(names))


def test_every_exception_is_exported_at_the_top() -> None:
    tree = {n for n, v in vars(errors).items() if inspect.isclass(v) and issubclass(v, Exception)}
    assert tree <= set(ga.__all__)
    assert all(issubclass(getattr(errors, n), ga.GraphAgentsError) for n in tree)


def test_version_comes_from_the_package_metadata() -> None:
    from importlib.metadata import version

    assert ga.__version__ == version("graphagents")


PUBLIC_MODULES = {
    # the core (this branch)
    "agents", "artifacts", "cli", "errors", "evals", "events", "nodes", "registry", "runtime", "server", "settings",
    "steps",
    "store", "usage",
    # the data that ships inside the package (corpora, statutes, example tables, evaluation sets)
    "packagedata",
    # what an agent's own HTTP routes get (the caller, the app's settings, one-line errors): plugin interface v2
    "routes",
    # access control (auth branch): keys/JWT/limits, log redaction, a user's data export and erasure
    "auth", "privacy", "userdata",
    # shared packages other work streams own (docs/INTERFACES): listed so that adding one is a decision
    "cache", "korean", "llm", "prompts", "retrieval", "sandbox", "testing", "toolloop",
    # read-only SQL access and gold comparison, shared by text2sql, tableqa, supervisor and the evaluations
    "sql",
    # reliability: the graphs LangGraph's own tooling loads (named in langgraph.json)
    "langgraph_graphs",
    # running a parser under CPU, memory and wall limits in a child process (uploads; issue 26)
    "isolation",
}


def test_every_top_level_module_is_public_by_decision_or_private_by_name() -> None:
    from pathlib import Path

    root = Path(ga.__file__).parent
    names = {p.stem for p in root.glob("*.py")} | {p.name for p in root.iterdir() if (p / "__init__.py").exists()}
    public = {n for n in names if not n.startswith("_")}
    assert public <= PUBLIC_MODULES, public - PUBLIC_MODULES
    assert "resources" not in names  # it shadowed importlib.resources inside the package
