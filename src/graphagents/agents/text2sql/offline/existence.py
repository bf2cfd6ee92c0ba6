"""Rows that have, or lack, rows in another table: '주문한 적 있는 고객', '리뷰가 한 번도 없는 상품'.

A table named next to the entity asked about, but not counted, restricts that entity: with a
plain mention the rows must have a matching row (a join); with a negation next to it ("없는",
"안 한", "never", "without", "no") they must have none (``NOT EXISTS``). Dropping either reading
answers another question ("리뷰가 없는 상품 수" counted with a join gives the products *with*
reviews), so the negation is turned into SQL here or the composer declines in :mod:`.meaning`.
"""

from __future__ import annotations

from sqlglot import exp

from .build import QueryPlan, col, literal
from .cues import Cue
from .link import TableRef
from .plan import CannotAnswer, Note, Planner

__all__ = ["absent_tables", "join_existence_tables", "present_tables"]

# Negations that say a related row does not exist; "제외/except" exclude values, not rows.
_ABSENCE_WORDS = frozenset({"없", "안", "않", "못", "never", "no", "not", "without", "none"})
_MAX_GAP = 12  # characters between the table word and its negation ("주문을 한 번도 안 한")


def join_existence_tables(p: Planner, plan: QueryPlan, fact: str, group_tables: list[str]) -> None:
    """'주문한 적 있는 고객 수': a table named but not counted restricts the count to rows that have it.

    The join keeps only matching rows and the count becomes COUNT(DISTINCT key), so joined rows
    are not counted twice. Leaving the word out would count every customer: a dropped condition.
    """
    for t in [t for t in p.roles.tables if p.roles.free(t) and t.table != fact and t.table not in group_tables]:
        plan.need(t.table)
        p.roles.use(t)
        p.notes.append(Note(f"'{t.text}' → {t.table} 와 조인 (있는 행만 셉니다)",
                            f"{t.text!r} → joined with {t.table} (only rows that have a {t.table} row count)"))


def present_tables(p: Planner, plan: QueryPlan, head: str) -> None:
    """Rows of ``head`` that have a row in each other table named: 'products with reviews'.

    A table that ``head`` points at joins without repeating rows; one that points at ``head``
    (reviews of a product) would repeat each product once per review, so it becomes ``EXISTS``.
    """
    for t in [t for t in p.roles.tables if p.roles.free(t) and t.table != head]:
        if not p.roles.free(t):
            continue
        if _key_count(p, t.table, head) > 1:
            raise CannotAnswer(f"'{t.text}' ({t.table}) 가 {head} 를 여러 컬럼으로 참조해서 "
                               "어떤 관계인지 모르겠습니다.",
                               f"{t.table} refers to {head} through several columns; I cannot tell which "
                               f"relation {t.text!r} means.")
        key = _child_key(p, t.table, head)
        if key is None:
            plan.need(t.table)
            continue
        child_col, parent_col = key
        inner = exp.select(literal(1)).from_(t.table).where(
            exp.EQ(this=col(t.table, child_col), expression=col(head, parent_col)))
        plan.where.append(exp.Exists(this=inner))
        for same in [s for s in p.roles.tables if s.table == t.table]:
            p.roles.use(same)
        p.notes.append(Note(f"'{t.text}' → {t.table} 행이 있는 {head} 만 (EXISTS)",
                            f"{t.text!r} → only {head} rows that have a {t.table} row (EXISTS)"))


def absent_tables(p: Planner, plan: QueryPlan, fact: str) -> None:
    """'리뷰가 없는 상품', 'customers who never placed an order' -> NOT EXISTS over the child table."""
    for t in [t for t in p.roles.tables if p.roles.free(t) and t.table != fact]:
        if not p.roles.free(t):
            continue  # an earlier word of the same table already did it
        cue = _absence_next_to(p, t)
        fk = _child_key(p, t.table, fact)
        if cue is None or fk is None:
            continue
        child_col, parent_col = fk
        inner = exp.select(literal(1)).from_(t.table).where(
            exp.EQ(this=col(t.table, child_col), expression=col(fact, parent_col)))
        plan.where.append(exp.Not(this=exp.Exists(this=inner)))
        for same in [s for s in p.roles.tables if s.table == t.table]:
            p.roles.use(same)
        p.claim_cue(cue)
        p.features.add("filter")
        p.notes.append(Note(f"'{t.text}' + '{cue.word}' → {t.table} 행이 없는 {fact} 만 (NOT EXISTS)",
                            f"{t.text!r} + {cue.word!r} → only {fact} rows without a {t.table} row (NOT EXISTS)"))


def _absence_next_to(p: Planner, t: TableRef) -> Cue | None:
    """Korean: the negation follows the table word ("리뷰가 없는"); English: it precedes ("without reviews")."""
    tables = [q for q in p.roles.tables if q.table != t.table]
    for cue in p.cues:
        if cue.kind != "negation" or p.is_claimed(cue) or _stem(cue.word) not in _ABSENCE_WORDS:
            continue
        if p.korean:
            lo, hi = t.start + len(t.text), cue.start
        else:
            lo, hi = cue.end, t.start
        if 0 <= hi - lo <= _MAX_GAP * (1 if p.korean else 3) and not any(lo <= q.start < hi for q in tables):
            return cue
    return None


def _stem(word: str) -> str:
    w = word.lower()
    return "not" if w.endswith("n't") else w


def _key_count(p: Planner, child: str, parent: str) -> int:
    return sum(to == parent for to, _ in p.catalog.tables[child].fks.values())


def _child_key(p: Planner, child: str, parent: str) -> tuple[str, str] | None:
    """(child column, parent column) of the one foreign key from ``child`` to ``parent``."""
    keys = [(c, to_col) for c, (to, to_col) in p.catalog.tables[child].fks.items() if to == parent]
    return keys[0] if len(keys) == 1 else None
