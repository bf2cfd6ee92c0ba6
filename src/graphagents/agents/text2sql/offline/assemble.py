"""Put the plan together in one order: measures, entity and grouping, filters, projection, order.

The order matters: the measure decides the fact table (FROM), the fact table decides which of
several foreign keys a value such as "서울" is filtered on, and only then is the projection known.
"""

from __future__ import annotations

from sqlglot import exp

from .build import QueryPlan, bucket_expr, col, compare, compare_expr
from .catalog import ColumnWords
from .having import find_having
from .lexicon import TIME_ADJECTIVES
from .link import ColumnRef, MetricRef, Piece, TableRef, ValueRef
from .plan import CannotAnswer, Measure, Planner
from .roles import nearest, pick_column

__all__ = ["assemble"]

_ALIAS = {"count": "count", "sum": "total", "avg": "average", "max": "maximum", "min": "minimum"}


def assemble(p: Planner) -> QueryPlan:
    frame, roles, cat = p.frame, p.roles, p.catalog
    if frame.unparsed_superlative and not frame.superlative:
        raise CannotAnswer("'가장/most' 가 무엇에 대한 최상급인지 해석하지 못했습니다 "
                           "(a superlative the composer does not understand).")
    measures = p.measures()
    having = find_having(p, measures)
    if having:
        measures = [h.measure for h in having]
    group_tables: list[str] = []
    group_cols: list[ColumnRef] = []
    buckets: list[str] = []
    for piece, word, bucket in p.group_pieces:
        if bucket:
            buckets.append(bucket)
        elif isinstance(piece, TableRef):
            group_tables.append(piece.table)
        elif isinstance(piece, MetricRef):
            measures = measures or [Measure("sum", formula=piece.formula)]
        elif isinstance(piece, ColumnRef) and (frame.top_n or frame.superlative) and not measures:
            c = pick_column(piece, [], cat, numeric=True)
            if c is None:
                raise CannotAnswer(f"'{word}' 기준으로 순위를 매길 숫자 컬럼이 없습니다.")
            measures = [Measure("sum", column=c)]
        elif isinstance(piece, ColumnRef):
            group_cols.append(piece)
        elif isinstance(piece, ValueRef):
            roles.values.append(piece)  # "by credit card": a value, so a filter rather than a grouping
            roles.pieces.append(piece)
        else:
            raise CannotAnswer(f"'{word}'(으)로 묶을 기준을 스키마에서 찾지 못했습니다 (no column or table for "
                               f"grouping by {word!r}).")
    head = p._head_piece()
    head_table = head.table if head else None
    if head_table is None:
        head_table = next((t for t, _, _ in roles.id_filters), None)
    if head_table is None:
        head_table = _table_of_free_column(p)
    if head_table is None and roles.values:
        h = roles.values[0].hits[0]
        head_table = h.table
    ranked = bool(frame.top_n or frame.superlative)
    row_targets: list[TableRef] = []
    if having:
        _having_groups(p, measures, group_tables, group_cols)

    if measures:
        m0 = measures[0]
        fact = (m0.formula.table if m0.formula else m0.column.table if m0.column else
                m0.count_table or head_table or (group_tables[0] if group_tables else None))
        if fact is None:
            raise CannotAnswer("무엇을 세거나 집계할지 찾지 못했습니다 (could not tell what to count).")
        if m0.func == "count" and m0.count_table is None:
            m0.count_table = fact
        plan = QueryPlan(fact)
        head = p._head_piece(exclude=fact) if ranked else head
        if head is not None and ranked and head.table != fact and head.table not in group_tables:
            group_tables.append(head.table)
            roles.use(head)
    else:
        if head_table is None:
            raise CannotAnswer("질문이 어느 테이블에 대한 것인지 찾지 못했습니다 (no table matches the question).")
        row_targets = _row_targets(p, head_table)
        fact = roles.id_filters[0][0] if row_targets else head_table
        plan = QueryPlan(fact)
    scope = [fact, head_table or fact, *group_tables, *[t.table for t in roles.tables]]

    # filters
    for table, column, number in roles.id_filters:
        plan.need(table)
        plan.where.append(compare(table, column, "=", number))
        p.features.add("lookup")
    for ref, number in roles.column_equals:
        c = pick_column(ref, scope, cat)
        assert c is not None
        plan.need(c.table)
        plan.where.append(compare(c.table, c.name, "=", number))
        p.features.add("filter")
    for cmp in frame.comparisons:
        if any(cmp is cond.comparison for cond in having):
            continue
        c = p.comparison_column(cmp.start, cmp.end, cmp.unit)
        plan.need(c.table)
        plan.where.append(compare(c.table, c.name, cmp.op, cmp.value))
        p.where_pos[id(plan.where[-1])] = cmp.start
        p.features.add("filter")
    if not measures and row_targets:
        for ref_t in row_targets:
            plan.need(ref_t.table)
            p.roles.use(ref_t)
            fk = next(c for c, (to, _) in cat.tables[fact].fks.items() if to == ref_t.table)
            plan.fk_joins.append((fact, fk, ref_t.table, cat.tables[fact].fks[fk][1]))
            for key in p.entity_keys(ref_t.table):
                plan.add_select(key)
        p.features.add("join")
        p.date_filter(plan)
        return plan
    versus = _versus_column(p) if frame.versus else None
    for value in roles.values:
        if versus is None or value not in versus[1]:
            p.value_filter(plan, value, scope)
    p.date_filter(plan)

    # grouping and measures
    for t in group_tables:
        plan.need(t)
        for key in p.entity_keys(t):
            plan.group.append(key)
            plan.add_select(key)
        p.features.add("group_by")
    for ref in group_cols:
        c = pick_column(ref, scope, cat)
        assert c is not None
        plan.need(c.table)
        keys: list[exp.Expr] = [col(c.table, c.name)]
        if c.name in cat.tables[c.table].fks:
            target = cat.tables[c.table].fks[c.name][0]
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
    for bucket in buckets:
        c = p.date_column(plan)
        expr = bucket_expr(c, bucket)  # type: ignore[arg-type]
        plan.group.append(expr)
        plan.add_select(expr, f"{c.name}_{bucket}")
        plan.order.append((exp.column(f"{c.name}_{bucket}"), False))
        p.features.add("group_by")
    if frame.ratio:
        p.ratio_select(plan)
        return plan
    if measures and all(m.func == "count" for m in measures) and not having:
        _join_existence_tables(p, plan, fact, group_tables)
    if frame.distinct:
        _apply_distinct(p, plan, measures, scope)
    for i, m in enumerate(measures):
        alias = _ALIAS[m.func] if len(measures) == 1 else f"{_ALIAS[m.func]}_{i + 1}"
        plan.add_select(p.measure_sql(plan, m, fact), alias)
        p.features.add("aggregate")
    for cond in having:
        expr = p.measure_sql(plan, cond.measure, fact)
        plan.having.append(compare_expr(expr, cond.comparison.op, cond.comparison.value))
        p.features.add("having")
    ranked = ranked and not p.value_superlative
    if measures and ranked and not plan.group:
        _group_by_named_column(p, plan, scope)
    if measures and ranked and not plan.group:
        raise CannotAnswer("무엇의 순위를 매길지(상품, 고객 등) 찾지 못했습니다 (could not tell what to rank).")
    if measures and ranked:
        first = _ALIAS[measures[0].func] if len(measures) == 1 else f"{_ALIAS[measures[0].func]}_1"
        plan.order = [(exp.column(first), frame.desc is not False)]
        plan.limit = frame.top_n or 1
        p.features.add("top_n")
    if not measures:
        _projection(p, plan, fact, ranked)
    if not plan.order and not p.value_superlative and (frame.order_word or frame.desc is not None):
        _sort(p, plan, measures, fact)
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
    raise CannotAnswer(f"'{free_cols[0].text}' 가 여러 테이블({', '.join(cands[:4])})의 컬럼이라 어느 것인지 "
                       f"모르겠습니다 (ambiguous column {free_cols[0].text!r}).")


def _join_existence_tables(p: Planner, plan: QueryPlan, fact: str, group_tables: list[str]) -> None:
    """'주문한 적 있는 고객 수': a table named but not counted restricts the count to rows that have it.

    The join keeps only matching rows and the count becomes COUNT(DISTINCT key), so joined rows
    are not counted twice. Leaving the word out would count every customer: a dropped condition.
    """
    for t in [t for t in p.roles.tables if p.roles.free(t) and t.table != fact and t.table not in group_tables]:
        plan.need(t.table)
        p.roles.use(t)
        p.notes.append(f"'{t.text}' → {t.table} 와 조인 (있는 행만 셉니다 / counts rows that have a {t.table} row)")


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
    raise CannotAnswer("'서로 다른/distinct' 가 무엇의 중복을 없애라는 것인지 찾지 못했습니다 "
                       "(could not tell what 'distinct' applies to).")


def _having_groups(p: Planner, measures: list[Measure], group_tables: list[str],
                   group_cols: list[ColumnRef]) -> None:
    """The rows a HAVING condition is about: the entity other than the one measured (상품, 직급)."""
    if group_tables or group_cols:
        return
    m0 = measures[0]
    measured = m0.column.table if m0.column else m0.formula.table if m0.formula else m0.count_table
    head = p._head_piece(exclude=measured)
    if head is not None:
        group_tables.append(head.table)
        p.roles.use(head)
        return
    for ref in [r for r in p.roles.columns if p.roles.free(r)]:
        c = pick_column(ref, [measured or ""], p.catalog)
        if c is not None and c.is_text and not c.primary_key:
            group_cols.append(ref)
            p.roles.use(ref)
            return
    raise CannotAnswer("그룹 조건(이상/이하)이 어떤 묶음(상품별, 고객별 등)에 대한 것인지 찾지 못했습니다 "
                       "(could not tell which groups the condition is about).")


def _sort(p: Planner, plan: QueryPlan, measures: list[Measure], head: str) -> None:
    """'가격 순으로', '많은 순', 'sorted by price': order without a limit."""
    desc = p.frame.desc is True
    if measures:
        first = _ALIAS[measures[0].func] if len(measures) == 1 else f"{_ALIAS[measures[0].func]}_1"
        plan.order = [(exp.column(first), desc)]
        return
    word = p.frame.order_word or ""
    cands = _columns_for(p, word) if word else []
    c = pick_column(ColumnRef(tuple(cands), word, -1), [head], p.catalog) if cands else None
    if c is None or c.table != head:
        raise CannotAnswer(f"'{word}' 순으로 정렬할 컬럼을 찾지 못했습니다 (no column to sort by {word!r}).")
    plan.add_select(col(c.table, c.name))
    plan.order = [(col(c.table, c.name), desc)]


def _projection(p: Planner, plan: QueryPlan, head: str, ranked: bool) -> None:
    frame, roles, cat = p.frame, p.roles, p.catalog
    order_col = None
    if ranked:
        for word in [*frame.verbs, frame.order_word or ""]:
            refs = [r for r in roles.columns if r.text == word and roles.free(r)]
            cands = refs or ([ColumnRef(tuple(c for c in p_cols), word, -1)]
                             if (p_cols := _columns_for(p, word)) else [])
            for ref in cands:
                order_col = pick_column(ref, [head], cat, numeric=True)
                if order_col is not None:
                    roles.use(ref) if refs else None
                    break
            if order_col is not None:
                break
        if order_col is None:
            order_col = _rank_by_free_column(p, head)
        if order_col is None and any(v in TIME_ADJECTIVES for v in frame.verbs):
            dates = [c for c in cat.tables[head].columns if c.is_date]
            usual = [c for c in dates if "birth" not in c.name.lower()] or dates
            order_col = usual[0] if len(usual) == 1 else None
        if order_col is None:
            raise CannotAnswer("무엇을 기준으로 순위를 매길지 찾지 못했습니다 (could not tell what to rank by).")
    chosen = []
    for ref in [c for c in roles.columns if roles.free(c)]:
        homes = {cand[0] for cand in ref.candidates}

        def owns(piece: Piece, homes: set[str] = homes) -> bool:
            return isinstance(piece, TableRef) and piece.table in homes

        owner = nearest(roles, ref.start, (TableRef,), korean=p.korean, predicate=owns)
        scope = ([owner.table] if isinstance(owner, TableRef) else []) + [head, *plan.tables]
        c = pick_column(ref, scope, cat)
        if c is not None:
            chosen.append(c)
    if chosen:
        for key in p.entity_keys(head):
            plan.add_select(key)
        for c in chosen:
            plan.need(c.table)
            plan.add_select(col(c.table, c.name))
    else:
        for c in cat.tables[head].columns:
            plan.add_select(col(head, c.name))
    for t in [t.table for t in roles.tables if roles.free(t) and t.table != head]:
        plan.need(t)
    if order_col is not None:
        plan.add_select(col(order_col.table, order_col.name))
        plan.order = [(col(order_col.table, order_col.name), frame.desc is not False)]
        plan.limit = frame.top_n or 1
        p.features.add("top_n")
    if len(plan.tables) and not frame.ratio:
        p.features.add("join")


def _group_by_named_column(p: Planner, plan: QueryPlan, scope: list[str]) -> None:
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
    from .catalog import norm, word_forms

    forms = {norm(f) for f in word_forms(word)}
    return [(t.name, c.name, 2.0) for t in p.catalog.tables.values() for c in t.columns if forms & c.words]


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
