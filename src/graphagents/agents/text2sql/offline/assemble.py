"""Put the plan together in one order: measures, entity and grouping, filters, projection, order.

The order matters: the measure decides the fact table (FROM), the fact table decides which of
several foreign keys a value such as "서울" is filtered on, and only then is the projection known.
Each step is one function below; :class:`Draft` carries what the earlier steps decided.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from .build import QueryPlan, bucket_expr, col, compare, compare_expr
from .existence import absent_tables, join_existence_tables
from .filters import comparison_column, date_column, date_filter, ratio_select, value_filters
from .having import HavingCondition, find_having
from .link import ColumnRef, MetricRef, TableRef, ValueRef
from .plan import CannotAnswer, Measure, Planner
from .projection import group_by_named_column, measure_alias, projection, sort
from .roles import pick_column

__all__ = ["assemble"]


@dataclass
class Draft:
    """What the steps so far decided; the plan itself exists once the fact table is known."""

    measures: list[Measure]
    having: list[HavingCondition]
    group_tables: list[str] = field(default_factory=list)
    group_cols: list[ColumnRef] = field(default_factory=list)
    buckets: list[str] = field(default_factory=list)
    head_table: str | None = None
    ranked: bool = False


def assemble(p: Planner) -> QueryPlan:
    if p.frame.unparsed_superlative and not p.frame.superlative:
        raise CannotAnswer("'가장/most' 가 무엇에 대한 최상급인지 해석하지 못했습니다.",
                           "a superlative ('most', 'least') the composer does not understand.")
    measures = p.measures()
    having = find_having(p, measures)
    draft = Draft([h.measure for h in having] if having else measures, having)
    _read_groups(p, draft)
    draft.head_table = _head_table(p)
    draft.ranked = bool(p.frame.top_n or p.frame.superlative)
    if having:
        _having_groups(p, draft)
    if not draft.measures:
        return _rows_plan(p, draft)
    plan = _measure_plan(p, draft)
    scope = _scope(p, draft, plan.fact)
    _row_filters(p, plan, draft, scope)
    versus = _versus_column(p) if p.frame.versus else None
    value_filters(p, plan, [v for v in p.roles.values if versus is None or v not in versus[1]], scope)
    date_filter(p, plan)
    _grouping(p, plan, draft, scope, versus)
    if p.frame.ratio:
        ratio_select(p, plan)
        return plan
    _aggregates(p, plan, draft, scope)
    _rank_groups(p, plan, draft, scope)
    if not plan.order and not p.value_superlative and (p.frame.order_word or p.frame.desc is not None):
        sort(p, plan, draft.measures, plan.fact)
    return plan


# ------------------------------------------------------------------------------ what is asked


def _read_groups(p: Planner, d: Draft) -> None:
    """'지역별', 'by category': a time bucket, a table, a column, or a value said with "by"."""
    for piece, word, bucket in p.group_pieces:
        if bucket:
            d.buckets.append(bucket)
        elif isinstance(piece, TableRef):
            d.group_tables.append(piece.table)
        elif isinstance(piece, MetricRef):
            d.measures = d.measures or [Measure("sum", formula=piece.formula)]
        elif isinstance(piece, ColumnRef) and _ranks_by(p, d, piece):
            c = pick_column(piece, [], p.catalog, numeric=True)
            if c is None:
                raise CannotAnswer(f"'{word}' 기준으로 순위를 매길 숫자 컬럼이 없습니다.",
                                   f"no numeric column to rank by {word!r}.")
            d.measures = d.measures or [Measure("sum", column=c)]
        elif isinstance(piece, ColumnRef):
            d.group_cols.append(piece)
        elif isinstance(piece, ValueRef):
            p.roles.values.append(piece)  # "by credit card": a value, so a filter rather than a grouping
            p.roles.pieces.append(piece)
        else:
            raise CannotAnswer(f"'{word}'(으)로 묶을 기준을 스키마에서 찾지 못했습니다.",
                               f"no column or table to group by {word!r}.")


def _ranks_by(p: Planner, d: Draft, piece: ColumnRef) -> bool:
    """'수량 기준으로 가장 많이 팔린': with a ranking, a numeric "기준" column is what ranks, not a group.

    When the ranking already has its measure, the named column must be that same column (else the
    question names two different orders and we would group by the measure itself).
    """
    if not (p.frame.top_n or p.frame.superlative):
        return False
    if not d.measures:
        return True
    numeric = pick_column(piece, [], p.catalog, numeric=True)
    return any(m.column is not None and m.column == numeric for m in d.measures)


def _head_table(p: Planner) -> str | None:
    """The table the question is about when no measure says so."""
    head = p._head_piece()
    if head is not None:
        return head.table
    if p.roles.id_filters:
        return p.roles.id_filters[0][0]
    table = _table_of_free_column(p)
    if table is None and p.roles.values:
        table = p.roles.values[0].hits[0].table
    return table


def _table_of_free_column(p: Planner) -> str | None:
    """'점장 이름': no table named; '이름' is a column of many. Take the candidate table a value of the
    question lives in (점장 -> employees); with several candidates and no such evidence, refuse."""
    free_cols = [c for c in p.roles.columns if p.roles.free(c)]
    if not free_cols:
        return None
    cands = list(dict.fromkeys(t for t, _, _ in free_cols[0].candidates))
    if len(cands) == 1:
        return cands[0]
    homes = [h.table for v in p.roles.values for h in v.hits if not h.key_table]
    homes += [t for v in p.roles.values for h in v.hits if h.key_table for t, _ in p.catalog.referencing(h.key_table)]
    hits = [t for t in cands if t in homes]
    if hits:
        return hits[0]
    word = free_cols[0].text
    raise CannotAnswer(f"'{word}' 가 여러 테이블({', '.join(cands[:4])})의 컬럼이라 어느 것인지 모르겠습니다.",
                       f"{word!r} is a column of several tables ({', '.join(cands[:4])}); name the table.")


def _having_groups(p: Planner, d: Draft) -> None:
    """The rows a HAVING condition is about: the entity other than the one measured (상품, 직급)."""
    if d.group_tables or d.group_cols:
        return
    m0 = d.measures[0]
    measured = m0.column.table if m0.column else m0.formula.table if m0.formula else m0.count_table
    head = p._head_piece(exclude=measured)
    if head is not None:
        d.group_tables.append(head.table)
        p.roles.use(head)
        return
    for ref in [r for r in p.roles.columns if p.roles.free(r)]:
        c = pick_column(ref, [measured or ""], p.catalog)
        if c is not None and c.is_text and not c.primary_key:
            d.group_cols.append(ref)
            p.roles.use(ref)
            return
    raise CannotAnswer("그룹 조건(이상/이하)이 어떤 묶음(상품별, 고객별 등)에 대한 것인지 찾지 못했습니다.",
                       "could not tell which groups the condition is about (per product, per customer, ...).")


# ------------------------------------------------------------------------------ rows, no measure


def _rows_plan(p: Planner, d: Draft) -> QueryPlan:
    """A question without a measure: rows of the head table (or of the tables one row points at)."""
    if d.head_table is None:
        raise CannotAnswer("질문이 어느 테이블에 대한 것인지 찾지 못했습니다.", "no table matches the question.")
    targets = _row_targets(p, d.head_table)
    fact = p.roles.id_filters[0][0] if targets else d.head_table
    plan = QueryPlan(fact)
    scope = _scope(p, d, fact)
    _row_filters(p, plan, d, scope)
    if targets:
        for ref_t in targets:
            plan.need(ref_t.table)
            p.roles.use(ref_t)
            fk = next(c for c, (to, _) in p.catalog.tables[fact].fks.items() if to == ref_t.table)
            plan.fk_joins.append((fact, fk, ref_t.table, p.catalog.tables[fact].fks[fk][1]))
            for key in p.entity_keys(ref_t.table):
                plan.add_select(key)
        p.features.add("join")
        date_filter(p, plan)
        return plan
    versus = _versus_column(p) if p.frame.versus else None
    value_filters(p, plan, [v for v in p.roles.values if versus is None or v not in versus[1]], scope)
    date_filter(p, plan)
    _grouping(p, plan, d, scope, versus)
    if p.frame.ratio:
        ratio_select(p, plan)
        return plan
    if p.frame.distinct:
        _apply_distinct(p, plan, [], scope)
    absent_tables(p, plan, fact)
    projection(p, plan, fact, d.ranked)
    if not plan.order and not p.value_superlative and (p.frame.order_word or p.frame.desc is not None):
        sort(p, plan, [], fact)
    return plan


def _row_targets(p: Planner, head: str) -> list[TableRef]:
    """'order 5001's store and employee': one row (by id) and the rows its foreign keys point at.

    Only when every table named is a direct foreign-key target of the row's table and no column
    word is left: then the answer is those targets' names, joined on the row's own keys.
    """
    ids = {t for t, _, _ in p.roles.id_filters}
    if len(ids) != 1 or head in ids or p.frame.aggs or p.frame.superlative:
        return []
    row = next(iter(ids))
    targets = [t for t in p.roles.tables if p.roles.free(t)]
    fk_targets = {to for to, _ in p.catalog.tables[row].fks.values()}
    if not targets or any(t.table not in fk_targets for t in targets):
        return []
    if any(p.roles.free(c) for c in p.roles.columns):
        return []
    return targets


# ------------------------------------------------------------------------------ with a measure


def _measure_plan(p: Planner, d: Draft) -> QueryPlan:
    """The fact table is where the first measure's rows are; a ranked entity elsewhere is a group."""
    m0 = d.measures[0]
    fact = (m0.formula.table if m0.formula else m0.column.table if m0.column else
            m0.count_table or d.head_table or (d.group_tables[0] if d.group_tables else None))
    if fact is None:
        raise CannotAnswer("무엇을 세거나 집계할지 찾지 못했습니다.", "could not tell what to count or aggregate.")
    if m0.func == "count" and m0.count_table is None:
        m0.count_table = fact
    head = p._head_piece(exclude=fact) if d.ranked else p._head_piece()
    if head is not None and d.ranked and head.table != fact and head.table not in d.group_tables:
        d.group_tables.append(head.table)
        p.roles.use(head)
    return QueryPlan(fact)


def _scope(p: Planner, d: Draft, fact: str) -> list[str]:
    return [fact, d.head_table or fact, *d.group_tables, *[t.table for t in p.roles.tables]]


def _row_filters(p: Planner, plan: QueryPlan, d: Draft, scope: list[str]) -> None:
    """Ids ("상품 236"), numbers bound to a column ("rating of 1") and comparisons ("100만원 이상")."""
    for table, column, number in p.roles.id_filters:
        plan.need(table)
        plan.where.append(compare(table, column, "=", number))
        p.features.add("lookup")
    for ref, number in p.roles.column_equals:
        c = pick_column(ref, scope, p.catalog)
        assert c is not None
        plan.need(c.table)
        plan.where.append(compare(c.table, c.name, "=", number))
        p.features.add("filter")
    for cmp in p.frame.comparisons:
        if any(cmp is cond.comparison for cond in d.having):
            continue
        c = comparison_column(p, cmp.start, cmp.end, cmp.unit)
        plan.need(c.table)
        plan.where.append(compare(c.table, c.name, cmp.op, cmp.value))
        p.where_pos[id(plan.where[-1])] = cmp.start
        p.features.add("filter")


def _grouping(p: Planner, plan: QueryPlan, d: Draft, scope: list[str],
              versus: tuple[tuple[str, str], list[ValueRef], list[object]] | None) -> None:
    for t in d.group_tables:
        plan.need(t)
        for key in p.entity_keys(t):
            plan.group.append(key)
            plan.add_select(key)
        p.features.add("group_by")
    for ref in d.group_cols:
        c = pick_column(ref, scope, p.catalog)
        assert c is not None
        plan.need(c.table)
        keys: list[exp.Expr] = [col(c.table, c.name)]
        if c.name in p.catalog.tables[c.table].fks:
            target = p.catalog.tables[c.table].fks[c.name][0]
            plan.need(target)
            keys = p.entity_keys(target)
        for key in keys:
            plan.group.append(key)
            plan.add_select(key)
        p.features.add("group_by")
    if versus is not None:
        key = col(versus[0][0], versus[0][1])
        plan.need(versus[0][0])
        plan.group.append(key)
        plan.add_select(key)
        plan.where.append(exp.In(this=key.copy(), expressions=[exp.Literal.string(str(v)) for v in versus[2]]))
        p.features.add("group_by")
    for bucket in d.buckets:
        c = date_column(p, plan)
        expr = bucket_expr(c, bucket)  # type: ignore[arg-type]
        plan.group.append(expr)
        plan.add_select(expr, f"{c.name}_{bucket}")
        plan.order.append((exp.column(f"{c.name}_{bucket}"), False))
        p.features.add("group_by")


def _aggregates(p: Planner, plan: QueryPlan, d: Draft, scope: list[str]) -> None:
    """The measures in SELECT, after the joins that restrict what they count, then HAVING."""
    absent_tables(p, plan, plan.fact)
    if all(m.func == "count" for m in d.measures) and not d.having:
        join_existence_tables(p, plan, plan.fact, d.group_tables)
    if p.frame.distinct:
        _apply_distinct(p, plan, d.measures, scope)
    for i, m in enumerate(d.measures):
        plan.add_select(p.measure_sql(plan, m, plan.fact), measure_alias(d.measures, i))
        p.features.add("aggregate")
    for cond in d.having:
        expr = p.measure_sql(plan, cond.measure, plan.fact)
        plan.having.append(compare_expr(expr, cond.comparison.op, cond.comparison.value))
        p.features.add("having")


def _apply_distinct(p: Planner, plan: QueryPlan, measures: list[Measure], scope: list[str]) -> None:
    """'서로 다른', 'distinct': a count over a join is already distinct by key; a free column word
    counts its distinct values; otherwise the word was not understood and we say so."""
    counts = [m for m in measures if m.func == "count"]
    if counts and plan.tables:
        return
    refs = [r for r in p.roles.columns if p.roles.free(r)]
    if len(counts) == 1 and refs:
        c = pick_column(refs[0], scope, p.catalog)
        if c is not None:
            p.roles.use(refs[0])
            counts[0].distinct_column = c
            return
    raise CannotAnswer("'서로 다른/distinct' 가 무엇의 중복을 없애라는 것인지 찾지 못했습니다.",
                       "could not tell what 'distinct' applies to.")


def _rank_groups(p: Planner, plan: QueryPlan, d: Draft, scope: list[str]) -> None:
    """'매출 상위 5개 지역': order the groups by the first measure and keep the top N."""
    if not d.ranked or p.value_superlative:
        return
    if not plan.group:
        group_by_named_column(p, plan, scope)
    if not plan.group:
        raise CannotAnswer("무엇의 순위를 매길지(상품, 고객 등) 찾지 못했습니다.",
                           "could not tell what to rank (products, customers, ...).")
    plan.order = [(exp.column(measure_alias(d.measures, 0)), p.frame.desc is not False)]
    plan.limit = p.frame.top_n or 1
    p.features.add("top_n")


def _versus_column(p: Planner) -> tuple[tuple[str, str], list[ValueRef], list[object]] | None:
    """'online versus offline': two values of one column -> group by that column."""
    refs = p.roles.values
    for ref in refs:
        for h in ref.hits:
            same = [(r, next((x for x in r.hits if (x.table, x.column) == (h.table, h.column)), None)) for r in refs]
            found = [(r, x) for r, x in same if x is not None]
            if len(found) >= 2:
                return (h.table, h.column), [r for r, _ in found], [x.value for _, x in found]
    return None

