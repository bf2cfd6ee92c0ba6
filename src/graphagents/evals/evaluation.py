"""An agent's evaluation: its datasets, how to run a case, its scorer, its figures and its oracle.

An agent supplies only these; the harness (:mod:`.runner`) does everything else the same way for
every agent: dataset names and files, ``--limit``, ``--jobs``, the per-case timeout, usage, the
report and ``eval compare``. The agent's spec names it (``AgentSpec.evaluation``, a zero-argument
callable so the CLI imports an agent's evaluation module only when it needs it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from .cases import Case, Dataset, Source
from .scoring import CaseResult, Output, Scorer

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..settings import Settings

__all__ = ["CaseRunner", "EvalContext", "Evaluation", "Models", "missing_dataset", "resolve_dataset"]

CaseRunner = Callable[[Case], Output]
"""Runs one case through the agent's public ``Session`` API and records what came back. With
``--jobs N`` it is called from N threads at once: every case gets a session of its own."""


@dataclass(frozen=True)
class Models:
    """What ``--llm oracle`` runs with: the agent's model and models per role."""

    llm: Any
    roles: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EvalContext:
    """What an evaluation's ``start`` gets. ``llm`` is the agent's model (a spec such as
    ``"offline"``, or a model instance: the oracle's), ``llm_name`` how the report names it,
    ``models`` per-role models, ``options`` the agent's options (``-o key=value``),
    ``eval_options`` the evaluation's own options (``options_model``: text2sql's ``--db`` ...)."""

    agent: str
    dataset: Dataset
    llm: Any = "offline"
    llm_name: str = "offline"
    models: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    eval_options: BaseModel | None = None
    settings: Settings | None = None

    def option(self, name: str, default: Any = None) -> Any:
        """The evaluation option ``name`` (its default when the evaluation has no such option)."""
        return getattr(self.eval_options, name, default) if self.eval_options is not None else default

    def agent_kwargs(self, **extra: Any) -> dict[str, Any]:
        """Keyword arguments for :class:`graphagents.Agent`: model, role models, settings, options."""
        kwargs: dict[str, Any] = {"llm": self.llm, "models": dict(self.models) or None, **dict(self.options)}
        if self.settings is not None:
            kwargs["settings"] = self.settings
        kwargs.update(extra)
        return kwargs


@dataclass(frozen=True)
class Evaluation:
    """How one agent is evaluated.

    ``datasets`` maps a name (``dev``, ``heldout`` ...) to a function giving its files (so paths
    live in one place per agent); ``load`` reads one file (or folder) in the agent's case schema;
    ``start(ctx)`` is a context manager that opens what the run needs (the agent, databases) and
    gives a :data:`CaseRunner`; ``scorer`` gives each output a status and metrics;
    ``summarize`` turns the scored cases into the headline figures, ``headline`` names the ones a
    comparison shows first; ``groups`` are metadata keys the report breaks statuses down by;
    ``oracle(cases, ctx)`` is the gold-answer model of ``--llm oracle`` (None: the agent has none);
    ``options_model`` a pydantic model of the evaluation's own CLI options (``--db`` ...).
    The harness scores through :func:`~graphagents.evals.scoring.score_case`: a case marked
    ``answerable: false`` is right only when declined, a run that did not finish is wrong.
    """

    agent: str
    load: Callable[[Source], list[Case]]
    start: Callable[[EvalContext], AbstractContextManager[CaseRunner]]
    scorer: Scorer
    summarize: Callable[[Sequence[CaseResult]], Mapping[str, Any]]
    datasets: Mapping[str, Callable[[], Sequence[Source]]] = field(default_factory=dict)
    headline: Sequence[str] = ()
    groups: Sequence[str] = ()
    oracle: Callable[[Sequence[Case], EvalContext], Models] | None = None
    options_model: type[BaseModel] | None = None
    select: Callable[[Sequence[Case], Any], Sequence[Case]] | None = None
    """Keeps the cases the evaluation's own options ask for (text2sql's ``--category``, rag's
    ``--lang``), before ``--limit``; it gets the validated ``options_model`` instance."""
    description: str = ""


def resolve_dataset(evaluation: Evaluation, names: str | Sequence[str]) -> Dataset:
    """The cases of one or more dataset names or files (``dev``, ``heldout``, ``path.jsonl``),
    in order; several are combined into one dataset named ``a+b``."""
    chosen = [names] if isinstance(names, str) else list(names)
    if not chosen:
        chosen = ["dev"]
    parts = []
    for name in chosen:
        if name in evaluation.datasets:
            sources = list(evaluation.datasets[name]())
        else:
            path = Path(name).expanduser()
            if not path.exists():
                known = ", ".join(evaluation.datasets) or "none"
                raise InputError(f"{evaluation.agent}: no dataset {name!r}: give one of {known} "
                                 "or an existing file in the agent's case schema (docs/evaluation.md)")
            sources = [path]
        cases = [case for source in sources for case in evaluation.load(source)]
        parts.append(Dataset(name, tuple(cases), tuple(str(s) for s in sources)))
    return parts[0] if len(parts) == 1 else Dataset.combine("+".join(chosen), parts)


def missing_dataset(agent: str, name: str, where: Source) -> InputError:
    """The error for a named dataset whose file is not there yet (a held-out set not written)."""
    return InputError(f"{agent}: the {name!r} dataset is not there yet: expected {str(where)!r} "
                      "(same schema as the dev file, see docs/evaluation.md)")
