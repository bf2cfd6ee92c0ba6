"""supervisor's evaluation: plans, team runs, statute citations and the reply, per labelled query.

A query (the dev file's schema: ``id``, ``query``, ``teams``, ``search_scopes``,
``required_citations``, ``external_facts`` ...; docs/evaluation.md) runs in a fresh session. The
figures: plan accuracy (the planned team set is the labelled one), run accuracy (the teams that
ran, after orchestration added or skipped some), scope accuracy, citation recall and precision,
team runs and model calls per query, the decisions, stalls and caps.

The status reads the reply, because a right plan can still give a wrong answer. A label may add
``expect`` (``answer`` or ``not_covered``: the honest reply says first that the statutes and data
do not cover it), ``answer_must`` (regexes a right reply contains) and ``answer_must_not`` (regexes
that make it wrong). Then, in order: an error, or an ``answer_must_not`` match, is ``wrong``;
``not_covered`` is ``right`` when said first (and every ``answer_must`` found), ``partial`` when
said late, else ``wrong``. Otherwise the evidence is the required citations and the
``answer_must`` checks: all found and every labelled team run is ``right``, some found is
``partial``, none found is ``declined`` when the reply declines and cites nothing, and ``wrong``
otherwise (other articles cited). An empty reply is ``declined``.
A query with neither (a market question) is ``right`` when every labelled team ran and the reply
does not decline (lenient, and said so in the note).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from graphagents.evals import Case, CaseResult, EvalContext, Evaluation, Models, Output, Score, Source
from graphagents.evals.evaluation import missing_dataset
from graphagents.evals.scoring import errors_of, mean, share

from . import data

__all__ = ["DECLINE", "EVALUATION", "load_cases", "score"]

ACK = ("데이터에 없", "시행령", "합성", "가상", "미포함", "확인이 필요", "질문에 없")
"""Words by which a reply names facts it does not have (for queries labelled with ``external_facts``)."""

DECLINE = re.compile(
    r"찾지 못했|조회하지 못했|계산하지 못했|계산할 수 없|답할 수 없|답하지 못|알 수 없|확인하지 못했|"
    r"데이터에 없|자료에 없|다루지 않|포함되어 있지 않|포함하지 않|범위 밖|범위를 벗어|도와드릴 수 없|"
    r"만 도와드릴 수 있|not covered|cannot answer|not in the data", re.IGNORECASE)
HEAD_CHARS = 400
"""How far into the reply a "not covered" statement still counts as said first."""

HELDOUT = Path(__file__).parent / "evaldata" / "heldout_queries.jsonl"
LATE = Path(__file__).parent / "evaldata" / "heldout_statutes_late.jsonl"
"""24 statute questions written after the statute search was tuned (evaldata/README.md)."""
STATUTES = Path(__file__).parent / "evaldata" / "heldout_statutes.jsonl"
"""51 statute questions written for issue 23 before the statute search was reworked, frozen."""
FRESH = Path(__file__).parent / "evaldata" / "heldout_statutes_fresh.jsonl"
"""30 statute questions written after the search rework, before its vocabulary pass, frozen."""
POST = Path(__file__).parent / "evaldata" / "heldout_statutes_post.jsonl"
"""24 statute questions written after every statute-search change, frozen, run once."""


def _file(name: str, path: Path) -> Callable[[], list[Source]]:
    def sources() -> list[Source]:
        if not path.is_file():
            raise missing_dataset("supervisor", name, path)
        return [path]

    return sources


DATASETS: dict[str, Callable[[], Sequence[Source]]] = {
    "dev": lambda: [data.dev_queries_path()],
    "heldout": _file("heldout", HELDOUT),
    "heldout_late": _file("heldout_late", LATE),
    "heldout_statutes": _file("heldout_statutes", STATUTES),
    "heldout_statutes_fresh": _file("heldout_statutes_fresh", FRESH),
    "heldout_statutes_post": _file("heldout_statutes_post", POST),
}


def load_cases(source: Source) -> list[Case]:
    """Labelled queries; the whole label is the expected value."""
    return [Case(str(label["id"]), str(label["query"]), dict(label),
                 {"complexity": label.get("complexity") or "", "expect": label.get("expect") or "answer"})
            for label in data.load_queries(Path(str(source)))]


@contextmanager
def _start(ctx: EvalContext) -> Iterator[Any]:
    from graphagents.runtime import Agent

    from .spec import SPEC

    agent = Agent(SPEC, **ctx.agent_kwargs(checkpoint_url="memory"))

    def run(case: Case) -> Output:
        reply = agent.session().send(str(case.input))
        state = reply.state
        # what the user reads: the reply and the draft shown with it (the page and the CLI render it)
        drafts = [str(getattr(a, "text", "")) for a in reply.artifacts if getattr(a, "kind", "") == "document"]
        plan = state.get("plan") or {}
        search: dict[str, Any] = next((t for t in plan.get("teams") or [] if t.get("team") == "search"), {})
        found = {
            "reply": "\n\n".join([reply.text, *drafts]), "planned": [t["team"] for t in plan.get("teams") or []],
            "ran": list(dict.fromkeys(state.get("completed_teams") or [])), "scopes": list(search.get("scopes") or []),
            "cited": list(state.get("citations") or []), "team_runs": len(state.get("team_runs") or []),
            "model_calls": reply.usage.model_calls, "finish_reason": str(state.get("finish_reason") or ""),
            "decisions": [f"{d['action']}/{d['source']}" for d in state.get("decisions") or []],
            "caps_hit": list(state.get("caps_hit") or [])}
        details = {k: found[k] for k in ("planned", "ran", "cited", "finish_reason", "decisions")}
        return Output(reply.text, found, details, (reply.usage,), errors_of(reply.events))

    yield run


def score(case: Case, output: Output) -> Score:
    label, found = case.expected, output.data
    reply = str(found.get("reply") or "")
    teams = set(label.get("teams") or [])
    required = list(label.get("required_citations") or [])
    cited = set(found.get("cited") or [])
    must = list(label.get("answer_must") or [])
    hits = [p for p in must if re.search(p, reply)]
    recall = len(set(required) & cited) / len(required) if required else None
    ext = list(label.get("external_facts") or [])
    metrics: dict[str, Any] = {
        "plan_ok": set(found.get("planned") or []) == teams, "run_ok": set(found.get("ran") or []) == teams,
        "scopes_ok": set(found.get("scopes") or []) == set(label.get("search_scopes") or []),
        "citation_recall": None if recall is None else round(recall, 4), "checks_found": len(hits),
        "checks_total": len(must), "external_acknowledged": any(w in reply for w in ACK) if ext else None}
    if output.error:
        return Score("wrong", metrics, f"error: {output.error}")
    if not reply.strip():
        return Score("declined", metrics, "an empty reply")
    bad = [p for p in label.get("answer_must_not") or [] if re.search(p, reply)]
    if bad:
        return Score("wrong", metrics, f"the reply contains {bad[0]!r}")
    head = _head(reply)
    missing = [f"missing {p!r}" for p in must if p not in hits]
    if label.get("expect") == "not_covered":
        if DECLINE.search(head) and not missing:
            return Score("right", metrics, "says first that this is not covered")
        if DECLINE.search(reply):
            return Score("partial", metrics, "; ".join([*missing, "not covered: said late"][:2]))
        return Score("wrong", metrics, "answered as if the statutes and data covered it")
    not_run = sorted(teams - set(found.get("ran") or []))
    parts = [x for x in (recall, len(hits) / len(must) if must else None) if x is not None]
    reasons = [*missing, *(f"not cited {a}" for a in sorted(set(required) - cited)),
               *(f"team not run: {t}" for t in not_run)]
    declines = bool(DECLINE.search(head))
    if not parts:
        if declines:
            return Score("declined", metrics, "the reply declines")
        if not_run:
            return Score("partial", metrics, "; ".join(reasons))
        return Score("right", metrics, "every labelled team ran (no citation or answer check in the label)")
    if all(p == 1.0 for p in parts) and not not_run:
        return Score("right", metrics, "every required citation and answer check found")
    if any(p > 0 for p in parts):
        return Score("partial", metrics, "; ".join(reasons[:3]))
    if declines and not cited:
        return Score("declined", metrics, "; ".join(reasons[:3]))
    return Score("wrong", metrics, "; ".join(reasons[:3]))


def _head(reply: str) -> str:
    """The reply's first characters without parenthesised notes (a follow-up or English preface)."""
    lines = [ln for ln in reply.strip().splitlines() if not (ln.startswith("(") and ln.endswith(")"))]
    return "\n".join(lines).strip()[:HEAD_CHARS]


def summarize(results: Sequence[CaseResult]) -> dict[str, Any]:
    required = sum(len(r.case.expected.get("required_citations") or []) for r in results)
    found = sum(len(set(r.case.expected.get("required_citations") or []) & set(r.output.data.get("cited") or []))
                for r in results)
    cited = sum(len(r.output.data.get("cited") or []) for r in results if r.case.expected.get("required_citations"))
    acknowledged = [r.score.metrics.get("external_acknowledged") for r in results]
    decisions = Counter(d for r in results for d in r.output.data.get("decisions") or [])
    return {
        "plan_accuracy": share([bool(r.score.metrics.get("plan_ok")) for r in results]),
        "run_accuracy": share([bool(r.score.metrics.get("run_ok")) for r in results]),
        "scope_accuracy": share([bool(r.score.metrics.get("scopes_ok")) for r in results]),
        "citation_recall": round(found / required, 4) if required else None,
        "citation_precision": round(found / cited, 4) if cited else None,
        "citations": {"required": required, "found": found},
        "team_runs_mean": mean([r.output.data.get("team_runs") for r in results]),
        "model_calls_mean": mean([r.output.data.get("model_calls") for r in results]),
        "decision_distribution": dict(sorted(decisions.items())),
        "stalls": sum(r.output.data.get("finish_reason") == "stall" for r in results),
        "caps_hit": sum(bool(r.output.data.get("caps_hit")) for r in results),
        "external_facts": {"queries": sum(a is not None for a in acknowledged),
                           "acknowledged": sum(a is True for a in acknowledged)},
        "errors": sum(bool(r.output.error) for r in results),
    }


def _oracle(cases: Sequence[Case], ctx: EvalContext) -> Models:
    """Plans and orchestrates from the labels; the SQL sub-agent keeps its offline brain (the
    oracle speaks the supervisor's prompts only)."""
    from .oracle import oracle_model

    root = data.find_dataset(ctx.options.get("data"))
    articles = {a.id: a for a in data.load_articles(root)}
    return Models(oracle_model([c.expected for c in cases], articles), {"sql": "offline"})


EVALUATION = Evaluation(
    agent="supervisor",
    load=load_cases,
    start=_start,
    scorer=score,
    summarize=summarize,
    datasets=DATASETS,
    headline=("plan_accuracy", "run_accuracy", "citation_recall", "team_runs_mean", "model_calls_mean"),
    groups=("complexity", "expect"),
    oracle=_oracle,
    description="Plan accuracy, citations, team runs, model calls, decisions and the reply of the supervisor agent.",
)
