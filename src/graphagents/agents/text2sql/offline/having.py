"""Conditions on a group (SQL HAVING): "평균 평점이 4점 이상인 상품", "30번 이상 주문한 고객".

A comparison is about a group, not about a row, in two shapes:

* it follows an aggregate word and the column that aggregate reads ("평균 연봉이 6천만원 이상",
  "an average salary below 40 million") -> ``HAVING AVG(salary) >= ...``;
* its number counts rows of a table next to it ("직원이 9명 이상", "리뷰가 100개 넘는",
  "30번 이상 주문한", "at least 18 reviews") -> ``HAVING COUNT(*) >= ...`` over that table.

Either way the rows grouped are the other entity of the question (상품, 고객, 매장, 직급). When
there is none, or the question also wants an aggregate over the groups ("리뷰가 100개 넘는 상품은
몇 개야?", a nested query), we refuse: reading it as a row filter would be a wrong answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from .link import ColumnRef, Piece, TableRef
from .parse import Comparison
from .plan import CannotAnswer, Measure, Planner

__all__ = ["HavingCondition", "find_having"]

# Units that count rows ("번 주문", "명의 직원"); money, score and time units measure a column.
_COUNT_UNITS = frozenset({"번", "회", "명", "개", "건", "곳", "권", ""})
_AFTER_UNITS = frozenset({"번", "회"})  # "30번 이상 주문한": the counted thing usually follows


@dataclass(frozen=True)
class HavingCondition:
    comparison: Comparison
    measure: Measure


def find_having(p: Planner, measures: list[Measure]) -> list[HavingCondition]:
    out: list[HavingCondition] = []
    for cmp in p.frame.comparisons:
        m = _measure_before(p, measures, cmp)
        if m is None:
            table = _counted_table(p, cmp)
            if table is None:
                continue
            p.roles.use(table)
            m = Measure("count", count_table=table.table, pos=cmp.start, source=table)
        out.append(HavingCondition(cmp, m))
    extra = [m for m in measures if all(m is not h.measure for h in out)]
    if out and extra:
        raise CannotAnswer("그룹 조건(HAVING)과 그 그룹들에 대한 집계가 함께 있는 중첩 질문은 아직 풀지 못합니다.",
                           "a condition on groups plus an aggregate over those groups needs a nested query, "
                           "which I do not compose yet.")
    return out


def _measure_before(p: Planner, measures: list[Measure], cmp: Comparison) -> Measure | None:
    """The aggregate said right before the comparison, with only its own words in between."""
    for m in measures:
        if m.pos < 0 or m.pos >= cmp.start:
            continue
        between = [q for q in p.roles.pieces if m.pos < q.start < cmp.start]
        own_table = m.column.table if m.column else m.formula.table if m.formula else m.count_table
        if all(q is m.source or (isinstance(q, TableRef) and q.table == own_table) for q in between) and (
                m.func != "count" or _is_count_cue_before(p, m, cmp)):
            return m
    return None


def _is_count_cue_before(p: Planner, m: Measure, cmp: Comparison) -> bool:
    """'주문 건수가 30건 이상': a count cue followed by its comparison, nothing in between."""
    gap = p.frame.text[m.pos:cmp.start]
    return len(gap.split()) <= 2


def _counted_table(p: Planner, cmp: Comparison) -> TableRef | None:
    if cmp.unit not in _COUNT_UNITS:
        return None
    free = [q for q in p.roles.pieces if p.roles.free(q)]
    after = [q for q in free if 0 <= q.start - cmp.end <= 2]
    before = [q for q in free if 0 <= cmp.start - _end(p, q) <= 3]
    if p.korean and cmp.unit in _AFTER_UNITS:  # "30번 이상 주문한" unless "대출이 35번": a subject particle
        before = [q for q in before if p.frame.text[_end(p, q):cmp.start].strip() in ("이", "가")]
    side: list[Piece] = (before[-1:] + after[:1]) if p.korean else (after[:1] + before[-1:])
    for q in side:
        if isinstance(q, TableRef):
            return q
        if isinstance(q, ColumnRef):
            return None  # "가격이 1000원": a column's value, a row filter
    return None


def _end(p: Planner, q: Piece) -> int:
    return q.start + len(q.text)
