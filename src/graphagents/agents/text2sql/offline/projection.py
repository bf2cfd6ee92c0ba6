"""What a plan returns and in which order: the projection of rows, rankings and sorts.

A question without a measure returns rows of its head table: the columns it names (with the
row's key and label so the answer says which row), or every column; a superlative ranks those
rows by the column the adjective or the words next to it point at.
"""

from __future__ import annotations

from sqlglot import exp

from .build import QueryPlan, col
from .catalog import ColumnWords, norm, word_forms
from .existence import present_tables
from .lexicon import TIME_ADJECTIVES
from .link import ColumnRef, Piece, TableRef
from .plan import CannotAnswer, Measure, Planner
from .roles import nearest, pick_column

__all__ = ["ALIAS", "group_by_named_column", "measure_alias", "projection", "sort"]

ALIAS = {"count": "count", "sum": "total", "avg": "average", "max": "maximum", "min": "minimum"}


def measure_alias(measures: list[Measure], i: int) -> str:
    """'average' for one measure; 'maximum_1', 'minimum_2' when there are several."""
    return ALIAS[measures[i].func] if len(measures) == 1 else f"{ALIAS[measures[i].func]}_{i + 1}"


def sort(p: Planner, plan: QueryPlan, measures: list[Measure], head: str) -> None:
    """'가격 순으로', '많은 순', 'sorted by price': order without a limit."""
    desc = p.frame.desc is True
    if measures:
        plan.order = [(exp.column(measure_alias(measures, 0)), desc)]
        return
    word = p.frame.order_word or ""
    cands = _columns_for(p, word) if word else []
    c = pick_column(ColumnRef(tuple(cands), word, -1), [head], p.catalog) if cands else None
    if not word and p.frame.alphabetical:
        c = p.catalog.tables[head].label  # "alphabetically": by the rows' name
    if c is None or c.table != head:
        raise CannotAnswer(f"'{word}' 순으로 정렬할 컬럼을 찾지 못했습니다.", f"no column to sort by {word!r}.")
    plan.add_select(col(c.table, c.name))
    plan.order = [(col(c.table, c.name), desc)]


def projection(p: Planner, plan: QueryPlan, head: str, ranked: bool) -> None:
    order_col = _rank_column(p, head) if ranked else None
    chosen = _named_columns(p, plan, head)
    if chosen:
        for key in p.entity_keys(head):
            plan.add_select(key)
        for c in chosen:
            plan.need(c.table)
            plan.add_select(col(c.table, c.name))
    else:
        for c in p.catalog.tables[head].columns:
            plan.add_select(col(head, c.name))
    present_tables(p, plan, head)
    if order_col is not None:
        plan.add_select(col(order_col.table, order_col.name))
        plan.order = [(col(order_col.table, order_col.name), p.frame.desc is not False)]
        plan.limit = p.frame.top_n or 1
        p.features.add("top_n")
    if len(plan.tables) and not p.frame.ratio:
        p.features.add("join")


def _rank_column(p: Planner, head: str) -> ColumnWords:
    """The column a superlative over rows ranks by: its adjective, the order word, a nearby column."""
    frame, roles, cat = p.frame, p.roles, p.catalog
    for word in [*frame.verbs, frame.order_word or ""]:
        refs = [r for r in roles.columns if r.text == word and roles.free(r)]
        cands = refs or ([ColumnRef(tuple(found), word, -1)] if (found := _columns_for(p, word)) else [])
        for ref in cands:
            found_col = pick_column(ref, [head], cat, numeric=True)
            if found_col is not None:
                if refs:
                    roles.use(ref)
                return found_col
    by_free = _rank_by_free_column(p, head)
    if by_free is not None:
        return by_free
    if any(v in TIME_ADJECTIVES for v in frame.verbs):
        dates = [c for c in cat.tables[head].columns if c.is_date]
        usual = [c for c in dates if "birth" not in c.name.lower()] or dates
        if len(usual) == 1:
            return usual[0]
    raise CannotAnswer("무엇을 기준으로 순위를 매길지 찾지 못했습니다.", "could not tell what to rank by.")


def _named_columns(p: Planner, plan: QueryPlan, head: str) -> list[ColumnWords]:
    """Columns the question names, each settled on the table named next to it, else on the head."""
    chosen = []
    for ref in [c for c in p.roles.columns if p.roles.free(c)]:
        homes = {cand[0] for cand in ref.candidates}

        def owns(piece: Piece, homes: set[str] = homes) -> bool:
            return isinstance(piece, TableRef) and piece.table in homes

        owner = nearest(p.roles, ref.start, (TableRef,), korean=p.korean, predicate=owns)
        scope = ([owner.table] if isinstance(owner, TableRef) else []) + [head, *plan.tables]
        c = pick_column(ref, scope, p.catalog)
        if c is not None:
            chosen.append(c)
    return chosen


def group_by_named_column(p: Planner, plan: QueryPlan, scope: list[str]) -> None:
    """'평균 연봉이 가장 높은 직급': the ranked thing is a text column's values, not a table's rows."""
    for ref in [r for r in p.roles.columns if p.roles.free(r)]:
        c = pick_column(ref, scope, p.catalog)
        if c is not None and c.is_text and not c.primary_key:
            p.roles.use(ref)
            plan.need(c.table)
            plan.group.append(col(c.table, c.name))
            plan.add_select(col(c.table, c.name))
            p.features.add("group_by")
            return


def _rank_by_free_column(p: Planner, head: str) -> ColumnWords | None:
    """'가장 최근에 가입한 고객': the column word next to the superlative ranks (가입 -> join_date)."""
    refs = sorted((r for r in p.roles.columns if p.roles.free(r)),
                  key=lambda r: abs(r.start - p.frame.superlative_pos))
    for ref in refs:
        c = pick_column(ref, [head], p.catalog, numeric=True) or pick_column(ref, [head], p.catalog, date=True)
        if c is not None and c.table == head:
            p.roles.use(ref)
            return c
    return None


def _columns_for(p: Planner, word: str) -> list[tuple[str, str, float]]:
    forms = {norm(f) for f in word_forms(word)}
    return [(t.name, c.name, 2.0) for t in p.catalog.tables.values() for c in t.columns if forms & c.words]
