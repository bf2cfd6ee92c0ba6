"""Filters of a plan: stored values, comparisons, date ranges, and the share of rows meeting them.

Each function reads the planner's roles and the question's frame and adds ``WHERE`` conditions
(or, for a ratio, turns them into the numerator); when the schema gives no place for a condition
it raises :class:`.plan.CannotAnswer` rather than drop it.
"""

from __future__ import annotations

import re
from datetime import date

from sqlglot import exp

from .build import QueryPlan, col, compare, date_range, literal
from .catalog import ColumnWords
from .link import NEGATION_WINDOW, ColumnRef, ValueRef
from .plan import CannotAnswer, Note, Planner
from .roles import pick_column
from .values import ValueHit

__all__ = ["comparison_column", "date_column", "date_filter", "ratio_select", "value_filter", "value_filters"]


def value_filter(p: Planner, plan: QueryPlan, ref: ValueRef, scope: list[str]) -> None:
    top = ref.hits[0].score
    hits = [h for h in ref.hits if h.score >= top - 0.05]
    distinct = {(h.key_table or h.table, h.value) for h in hits}
    if top < 0.9 and len(distinct) > 1:
        shown = ", ".join(sorted({str(h.value) for h in hits}))
        raise CannotAnswer(f"'{ref.text}' 가 여러 값({shown})에 해당해 하나를 고를 수 없습니다.",
                           f"{ref.text!r} matches several stored values ({shown}); say which one.")
    choice = _place_value(p, hits, plan, scope)
    table, column, hit = choice
    plan.need(table)
    op = "<>" if ref.negated else "="
    if ref.negated:
        p.claim("negation", ref.start - NEGATION_WINDOW, ref.start + len(ref.text) + NEGATION_WINDOW)
    plan.where.append(compare(table, column, op, hit.value))
    p.where_pos[id(plan.where[-1])] = ref.start
    p.links.append((ref.text, table, column, hit.value))
    p.features.add("code_value")


def value_filters(p: Planner, plan: QueryPlan, refs: list[ValueRef], scope: list[str]) -> None:
    """One filter per value, except values joined by "or"/"또는"/"이나" on one column: ``IN (...)``."""
    for group in _alternatives(p, refs):
        value_filter(p, plan, group[0], scope)
        if len(group) == 1:
            continue
        first = plan.where[-1]
        _, table, column, _ = p.links[-1]
        values = [first.expression.copy()]
        for ref in group[1:]:
            value = _value_on(p, ref, table, column)
            if value is None:
                raise CannotAnswer(f"'{group[0].text}' 와 '{ref.text}' 는 같은 컬럼의 값이 아니라 '또는'으로 묶을 수 "
                                   "없습니다.", f"{group[0].text!r} and {ref.text!r} are not values of one column, "
                                   "so I cannot read 'or' between them.")
            values.append(literal(value))
            p.links.append((ref.text, table, column, value))
        plan.where[-1] = exp.In(this=first.this.copy(), expressions=values)
        p.where_pos[id(plan.where[-1])] = group[0].start
        p.claim("or", group[0].start, group[-1].start)


def _alternatives(p: Planner, refs: list[ValueRef]) -> list[list[ValueRef]]:
    """Consecutive values with an "or" cue between them (and nothing else but particles) form a group."""
    ors = [c for c in p.cues if c.kind == "or"]
    groups: list[list[ValueRef]] = []
    for ref in sorted(refs, key=lambda r: r.start):
        if groups and not ref.negated and not groups[-1][-1].negated:
            prev = groups[-1][-1]
            end = prev.start + len(prev.text)
            cue = next((c for c in ors if end <= c.start and c.end <= ref.start), None)
            if cue is not None and len(p.frame.text[end:ref.start].replace(cue.word, "").strip(" ,")) <= 2:
                groups[-1].append(ref)
                continue
        groups.append([ref])
    return groups


def _value_on(p: Planner, ref: ValueRef, table: str, column: str) -> object | None:
    """The stored value of ``ref`` that fits ``table.column`` (directly, or as the key it references)."""
    target = p.catalog.tables[table].fks.get(column, (table if column in p.catalog.tables[table].primary_key
                                                      else "", ""))[0]
    for hit in ref.hits:
        if (hit.table, hit.column) == (table, column) or (hit.key_table is not None and hit.key_table == target):
            return hit.value
    return None


def _place_value(p: Planner, hits: list[ValueHit], plan: QueryPlan, scope: list[str]) -> tuple[str, str, ValueHit]:
    options: list[tuple[str, str, ValueHit]] = []
    for h in hits:
        if h.key_table:
            key = p.catalog.tables[h.key_table].primary_key[0]
            options += [(t, c, h) for t, c in p.catalog.referencing(h.key_table)]
            options.append((h.key_table, key, h))
        else:
            options.append((h.table, h.column, h))
    for table in scope:
        for o in options:
            if o[0] == table:
                return o
    return min(options, key=lambda o: (p.catalog.distance(plan.fact, o[0]), o[2].key_table == o[0]))


def comparison_column(p: Planner, start: int, end: int, unit: str) -> ColumnWords:
    pieces = [q for q in p.roles.pieces if isinstance(q, ColumnRef) and p.roles.free(q)]
    after = [q for q in pieces if 0 <= q.start - end <= 2]
    before = [q for q in pieces if q.start < start]
    ordered = (before[::-1] if p.korean else after + before[::-1]) or after
    for q in ordered:
        c = pick_column(q, p._scope(), p.catalog, numeric=True) or pick_column(
            q, p._scope(), p.catalog, date=True)
        if c is not None:
            p.roles.use(q)
            return c
    if c := _column_by_unit(p, unit):
        return c
    raise CannotAnswer("비교 조건(이상/이하 등)이 어느 컬럼에 대한 것인지 찾지 못했습니다.",
                       "could not tell which column the comparison is about.")


def _column_by_unit(p: Planner, unit: str) -> ColumnWords | None:
    """'100만원 넘는 상품': no column named, but the unit is; the one column documented in that
    unit ("정가 (원)") of the table asked about is meant. Two such columns: no guess."""
    if not unit:
        return None
    pattern = re.compile(rf"\([^)]*{re.escape(unit)}[^)]*\)")
    for table in p._scope()[:1]:
        found = [c for c in p.catalog.tables[table].columns
                 if c.is_numeric and not c.primary_key and pattern.search(c.comment)]
        if len(found) == 1:
            p.notes.append(Note(f"'{unit}' 단위 → {table}.{found[0].name} (컬럼 주석의 단위)",
                                f"unit {unit!r} → {table}.{found[0].name} (the unit in its comment)"))
            return found[0]
    return None


def date_column(p: Planner, plan: QueryPlan) -> ColumnWords:
    for q in p.roles.columns:
        c = pick_column(q, [plan.fact, *plan.tables], p.catalog, date=True)
        if c is not None:
            p.roles.use(q)
            plan.need(c.table)
            return c
    tables = [plan.fact, *plan.tables]
    tables += sorted((t for t in p.catalog.tables if t not in tables),
                     key=lambda t: p.catalog.distance(plan.fact, t))
    for t in tables:
        dates = [c for c in p.catalog.tables[t].columns if c.is_date]
        usual = [c for c in dates if "birth" not in c.name.lower()] or dates
        if usual:
            plan.need(t)
            return usual[0]
    raise CannotAnswer("날짜 조건을 걸 날짜 컬럼이 없습니다.", "no date column for the date condition.")


def date_filter(p: Planner, plan: QueryPlan) -> None:
    d = p.frame.date
    if d is None:
        return
    c = _birth_column(p, plan) if d.column_hint == "birth" else date_column(p, plan)
    if d.hour is not None:
        _hour_filter(p, plan, c, *d.hour)
    if not d.has_period:
        return
    anchor = p.anchor(c) if d.relative else None
    if d.relative and anchor is None:
        raise CannotAnswer(f"{c.table}.{c.name} 에 데이터가 없어 상대 날짜의 기준일을 정할 수 없습니다.",
                           f"{c.table}.{c.name} holds no dates, so a relative date has no anchor.")
    start, end, label = d.resolve(anchor or date.today())
    bounds = date_range(c, start, end)
    plan.where.extend(bounds)
    p.period_filters.extend(bounds)
    ko, en = f"기간 {label} → {c.table}.{c.name}", f"period {label} → {c.table}.{c.name}"
    if anchor is not None:
        ko += f" (상대 날짜는 데이터의 마지막 날짜 {anchor} 기준)"
        en += f" (relative to the data's latest date, {anchor})"
    p.notes.append(Note(ko, en))
    p.features.add("date_range")


def _birth_column(p: Planner, plan: QueryPlan) -> ColumnWords:
    """'1990년대생' is about a birth date, never about the table's usual event date."""
    tables = [plan.fact, *plan.tables]
    tables += sorted((t for t in p.catalog.tables if t not in tables),
                     key=lambda t: p.catalog.distance(plan.fact, t))
    for t in tables:
        births = [c for c in p.catalog.tables[t].columns if c.is_date and "birth" in c.words]
        if births:
            plan.need(t)
            return births[0]
    raise CannotAnswer("출생 연도 조건을 걸 생년월일 컬럼이 없습니다.", "no birth-date column for the birth year.")


def _hour_filter(p: Planner, plan: QueryPlan, c: ColumnWords, side: str, hour: int) -> None:
    """'after 3pm' needs a time of day: refuse on a DATE column rather than drop the condition."""
    if "time" not in c.type.lower() and "timestamp" not in c.type.lower():
        raise CannotAnswer(f"시각 조건({hour}시)을 적용할 시간 컬럼이 없습니다; {c.table}.{c.name} 은 날짜만 "
                           "담습니다.",
                           f"no time-of-day column for the hour condition; {c.table}.{c.name} holds dates only.")
    text = exp.Cast(this=col(c.table, c.name), to=exp.DataType.build("TEXT"))
    hh = exp.Substring(this=text, start=exp.Literal.number(12), length=exp.Literal.number(2))
    op = {"since": exp.GTE, "before": exp.LT}.get(side, exp.EQ)
    plan.where.append(op(this=hh, expression=exp.Literal.string(f"{hour:02d}")))
    p.notes.append(Note(f"시각 {hour}시 ({side}) → {c.table}.{c.name}",
                        f"hour {hour} ({side}) → {c.table}.{c.name}"))



def ratio_select(p: Planner, plan: QueryPlan) -> None:
    """Share of rows meeting the filters: the filters move from WHERE into the numerator.

    The period ("2024년 주문 중") and filters said before "중" / after "among" stay in WHERE:
    they define the rows the share is taken over. With several conditions and no such word
    the base is ambiguous ("VIP 여성 고객 비율"), so we refuse rather than pick one reading.
    """
    span = p.frame.base_span
    base = [w for w in plan.where if any(w is p for p in p.period_filters) or (
        span is not None and span[0] <= p.where_pos.get(id(w), -1) < span[1])]
    share_of = [w for w in plan.where if not any(w is b for b in base)]
    if not share_of:
        raise CannotAnswer("비율을 구할 조건을 찾지 못했습니다.", "no condition to take the share of.")
    if len(share_of) > 1 and span is None:
        raise CannotAnswer("여러 조건 중 어느 것이 비율의 분모(전체)인지 알 수 없습니다; "
                           "'A 중 B 비율'처럼 물어봐 주세요.",
                           "the base of the share is ambiguous; ask 'among A, the share of B'.")
    cond = exp.and_(*share_of)
    plan.where = base
    hit = exp.Case(ifs=[exp.If(this=cond, true=literal(1))], default=literal(0))
    if p.frame.percent:
        share: exp.Expr = exp.Div(this=exp.Mul(this=exp.Literal.number("100.0"), expression=exp.Sum(this=hit)),
                                  expression=exp.Count(this=exp.Star()))
        plan.add_select(share, "percentage")
    else:
        share = exp.Div(this=exp.Cast(this=exp.Sum(this=hit), to=exp.DataType.build("FLOAT")),
                        expression=exp.Count(this=exp.Star()))
        plan.add_select(share, "share")
    p.features.add("ratio")
