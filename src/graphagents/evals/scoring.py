"""What a case run produced, and what a scorer makes of it.

Running and scoring are apart on purpose: an :class:`Output` records what the agent did (read
through its public ``Session`` API, plus any gold rows the run had to compute), and a scorer is a
pure function of the case and the output. So the same recorded outputs can be scored again by
another scorer: that is how the suite checks that a scorer which says "right" to everything fails
(:mod:`graphagents.evals.checks`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..usage import Usage
from .cases import STATUSES, Case, Status

__all__ = ["CaseResult", "Metric", "Output", "Score", "Scorer", "always", "errors_of", "mean", "plain_metrics",
           "rescore", "score_case", "share"]

Metric = float | int | bool | str | None


@dataclass(frozen=True)
class Output:
    """One case's run. ``answer`` is what the user was shown, in short (the reply, the SQL's rows,
    the cited passages); ``data`` what the scorer reads (not written to the report: it may hold
    whole result tables); ``details`` a few facts worth showing in the report (SQL, teams, steps);
    ``usage`` one entry per turn; ``error`` an error the run met (an error event, a timeout, an
    exception)."""

    answer: Any = ""
    data: Mapping[str, Any] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)
    usage: tuple[Usage, ...] = ()
    error: str = ""
    failed: bool = False
    """The run did not finish (a timeout, an exception): the case is wrong whatever a scorer says."""


@dataclass(frozen=True)
class Score:
    """A case's status, why (``note``), and named per-case metric values."""

    status: Status
    metrics: Mapping[str, Metric] = field(default_factory=dict)
    note: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}, not {self.status!r}")


Scorer = Callable[[Case, Output], Score]


@dataclass(frozen=True)
class CaseResult:
    """A scored case: what was asked, what came back, how it was scored, and its wall time."""

    case: Case
    output: Output
    score: Score
    seconds: float = 0.0

    @property
    def status(self) -> Status:
        return self.score.status


def score_case(scorer: Scorer, case: Case, output: Output) -> Score:
    """``scorer``'s verdict, with two rules of the harness: a run which did not finish is wrong,
    and a case marked ``answerable: false`` (nothing in the agent's data answers it) is right when
    declined and wrong otherwise, whatever the scorer would say of the answer."""
    if output.failed:
        return Score("wrong", note=output.error or "the run did not finish")
    score = scorer(case, output)
    if case.metadata.get("answerable", True) is not False:
        return score
    if score.status == "declined":
        return Score("right", score.metrics, "declined a question its data does not answer")
    return Score("wrong", score.metrics, "answered a question its data does not answer")


def rescore(results: Sequence[CaseResult], scorer: Scorer) -> list[CaseResult]:
    """The same recorded outputs scored by another scorer (no agent runs again)."""
    return [CaseResult(r.case, r.output, score_case(scorer, r.case, r.output), r.seconds) for r in results]


def always(status: Status) -> Scorer:
    """A scorer that gives ``status`` to everything: the mutant each agent's scorer checks must
    reject (:func:`graphagents.evals.checks.scorer_failures`)."""

    def scorer(case: Case, output: Output) -> Score:
        return Score(status, note=f"always {status}")

    return scorer


def mean(values: Sequence[Any]) -> float | None:
    """The mean of the values that are numbers (None and text left out), rounded for reports;
    None when there are none."""
    kept = [float(v) for v in values if isinstance(v, int | float)]
    return round(sum(kept) / len(kept), 4) if kept else None


def share(flags: Sequence[bool]) -> float | None:
    """The share of true flags (None for no flags: a figure over nothing is not 0%)."""
    return round(sum(flags) / len(flags), 4) if flags else None


def errors_of(events: Sequence[Any]) -> str:
    """The messages of a reply's error events, joined (empty when there were none)."""
    return "; ".join(str(e.to_dict().get("message", "")) for e in events if getattr(e, "type", "") == "error")


def plain_metrics(values: Mapping[str, Any]) -> dict[str, Metric]:
    return {k: v for k, v in values.items() if v is None or isinstance(v, float | int | bool | str)}
