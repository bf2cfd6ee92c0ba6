"""Judging a supervisor answer: right, partial, declined or wrong.

A plan can be right while the answer is wrong (the loan parsed, then not used), so the judge
reads the reply. A labelled query (the dev file's schema) may add three fields:

* ``expect``: ``answer`` (default) or ``not_covered`` (the honest reply says that the statutes and
  data do not cover it, first);
* ``answer_must``: regexes a right reply contains (the figure, the names in a draft, ...);
* ``answer_must_not``: regexes that make a reply wrong whatever else it says (a ratio that ignored
  the loan, an article quoted for a topic no article covers, "(미기재: 임대인 성명)" when the user
  gave the name).

Without them (the dev queries) the evidence is the required citations: all cited is right, some
is partial, none is wrong unless the reply declines. A query with neither (a market question)
is right when every labelled team ran and the reply does not decline: lenient, and said so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Verdict = Literal["right", "partial", "declined", "wrong"]
VERDICTS: tuple[Verdict, ...] = ("right", "partial", "declined", "wrong")

DECLINE = re.compile(
    r"찾지 못했|조회하지 못했|계산하지 못했|계산할 수 없|답할 수 없|답하지 못|알 수 없|확인하지 못했|"
    r"데이터에 없|자료에 없|다루지 않|포함되어 있지 않|포함하지 않|범위 밖|범위를 벗어|없습니다\. 죄송|도와드릴 수 없|"
    r"not covered|cannot answer|not in the data")
HEAD_CHARS = 400
"""How far into the reply a "not covered" statement still counts as said first."""


@dataclass(frozen=True, slots=True)
class Judgement:
    verdict: Verdict
    reasons: tuple[str, ...]
    citation_recall: float | None  # None: the query requires no article
    checks_found: int
    checks_total: int


def _strip_notes(reply: str) -> str:
    """The reply without the follow-up/English preface, so "first" means the answer's first line."""
    lines = [ln for ln in reply.strip().splitlines() if not (ln.startswith("(") and ln.endswith(")"))]
    return "\n".join(lines).strip()


def judge(label: Mapping[str, Any], reply: str, cited: Sequence[str], *, ran: Sequence[str] = (),
          error: str = "") -> Judgement:
    """The verdict on one reply; ``cited`` are the article ids the answer cites, ``ran`` the teams."""
    if error:
        return Judgement("wrong", (f"error: {error}",), None, 0, 0)
    required = list(label.get("required_citations") or [])
    recall = len(set(required) & set(cited)) / len(required) if required else None
    must = list(label.get("answer_must") or [])
    found = [p for p in must if re.search(p, reply)]
    reasons: list[str] = [f"missing {p!r}" for p in must if p not in found]
    bad = [p for p in label.get("answer_must_not") or [] if re.search(p, reply)]
    if bad:
        return Judgement("wrong", tuple(f"contains {p!r}" for p in bad) + tuple(reasons), recall, len(found),
                         len(must))
    head = _strip_notes(reply)[:HEAD_CHARS]
    if label.get("expect") == "not_covered":
        said_first = bool(DECLINE.search(head))
        if said_first and len(found) == len(must):
            return Judgement("right", (), recall, len(found), len(must))
        if DECLINE.search(reply):  # said, but late or without naming what is not covered
            late = () if said_first else ("not covered: not said first",)
            return Judgement("partial", (*reasons, *late), recall, len(found), len(must))
        return Judgement("wrong", ("answered as if covered", *reasons), recall, len(found), len(must))
    if required:
        missing = sorted(set(required) - set(cited))
        reasons += [f"not cited {a}" for a in missing]
    parts = [x for x in (recall, len(found) / len(must) if must else None) if x is not None]
    declines = bool(DECLINE.search(head))
    if not parts:  # no citation and no answer check: the teams that ran are the evidence
        if declines:
            return Judgement("declined", ("the reply declines",), recall, 0, 0)
        teams = set(label.get("teams") or [])
        if teams <= set(ran):
            return Judgement("right", (), recall, 0, 0)
        return Judgement("partial", (f"teams not run: {sorted(teams - set(ran))}",), recall, 0, 0)
    if all(p == 1.0 for p in parts):
        return Judgement("right", (), recall, len(found), len(must))
    if any(p > 0 for p in parts):
        return Judgement("partial", tuple(reasons), recall, len(found), len(must))
    if declines:
        return Judgement("declined", tuple(reasons), recall, len(found), len(must))
    return Judgement("wrong", tuple(reasons), recall, len(found), len(must))
