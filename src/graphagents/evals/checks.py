"""Test the measuring stick: checks that an agent's scorer tells right from wrong.

An agent's test suite records outputs it knows the truth of (the oracle's, which must score right;
a wrong oracle's: another case's answer, an off-by-one number, an empty answer, a gold plan minus
a team, which must not) and calls :func:`assert_measuring_stick`. It fails when the scorer
misjudges any of them, and also when the checks themselves are too weak: a scorer that gives every
case the same status ("right" for all, say) must fail them too.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from .cases import STATUSES, Case, Status
from .scoring import CaseResult, Output, Scorer, always, score_case

__all__ = ["Expectation", "assert_measuring_stick", "expect", "not_right", "scorer_failures"]

Expectation = tuple[Case, Output, Collection[Status]]
"""A recorded output and the statuses a correct scorer may give it."""


def expect(results: Iterable[CaseResult], statuses: Status | Collection[Status]) -> list[Expectation]:
    """Expectations for recorded results: each may only get one of ``statuses``."""
    allowed = (statuses,) if isinstance(statuses, str) else tuple(statuses)
    return [(r.case, r.output, allowed) for r in results]


def not_right() -> tuple[Status, ...]:
    return tuple(s for s in STATUSES if s != "right")


def scorer_failures(scorer: Scorer, expectations: Sequence[Expectation]) -> list[str]:
    """Every expectation ``scorer`` breaks, as one line each (empty: it passes them all)."""
    failures = []
    for case, output, allowed in expectations:
        score = score_case(scorer, case, output)
        if score.status not in allowed:
            failures.append(f"{case.id}: scored {score.status} ({score.note}), expected {' or '.join(allowed)}")
    return failures


def assert_measuring_stick(scorer: Scorer, expectations: Sequence[Expectation]) -> None:
    """``scorer`` passes every expectation, and every constant scorer fails at least one."""
    failures = scorer_failures(scorer, expectations)
    if failures:
        raise AssertionError("the scorer misjudges recorded outputs:\n" + "\n".join(failures[:20]))
    for status in STATUSES:
        if not scorer_failures(always(status), expectations):
            raise AssertionError(f"the checks pass a scorer that says {status!r} to everything: "
                                 "add outputs whose status differs")

