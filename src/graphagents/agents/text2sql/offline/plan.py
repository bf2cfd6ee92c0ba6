"""Roles -> a query plan: measure, entity, grouping, filters, projection, order.

Every step either finds schema evidence for what it adds or records why it could not; the caller
refuses to answer when a step failed, rather than fill the gap with a plausible guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from sqlglot import exp

from .build import QueryPlan, col, compare, date_range, literal
from .catalog import Catalog, ColumnWords, Formula
from .lexicon import AggFunc
from .link import ColumnRef, MetricRef, Piece, TableRef, ValueRef
from .parse import Frame
from .roles import Roles, nearest, pick_column
from .values import ValueHit

__all__ = ["Measure", "Planner"]

_FUNCS: dict[str, type[exp.Func]] = {"sum": exp.Sum, "avg": exp.Avg, "max": exp.Max, "min": exp.Min}


class CannotAnswer(Exception):
    """A missing piece of evidence; the message (Korean, with English names) goes to the user."""


@dataclass
class Measure:
    func: AggFunc
    column: ColumnWords | None = None
    formula: Formula | None = None
    count_table: str | None = None
    alias: str = ""
    pos: int = -1  # where the aggregate word is: a comparison right after it is a HAVING condition
    source: Piece | None = None  # the word the measure was read from
    distinct_column: ColumnWords | None = None  # "서로 다른 직급 수": COUNT(DISTINCT position)


@dataclass
class Planner:
    frame: Frame
    roles: Roles
    catalog: Catalog
    group_pieces: list[tuple[Piece | None, str, str | None]]  # (piece, word, time bucket)
    anchor: Callable[[ColumnWords], date | None]
    notes: list[str] = field(default_factory=list)
    links: list[tuple[str, str, str, object]] = field(default_factory=list)
    features: set[str] = field(default_factory=set)
    value_superlative: bool = False  # "highest price" became MAX(price): no ranking left to do
    period_filters: list[exp.Expr] = field(default_factory=list)  # date bounds: they define a share's base
    where_pos: dict[int, int] = field(default_factory=dict)  # id(filter) -> where its words are

    @property
    def korean(self) -> bool:
        return self.frame.lang == "ko"

    # ------------------------------------------------------------------------------ measures
    def measures(self) -> list[Measure]:
        out: list[Measure] = []
        for func, pos in self.frame.aggs:
            if func == "count":
                t = nearest(self.roles, pos, (TableRef,), korean=self.korean)
                if t is not None:
                    self.roles.use(t)
                out.append(Measure("count", count_table=t.table if isinstance(t, TableRef) else None, pos=pos,
                                   source=t))
            elif out and out[-1].func != "count" and self._numeric_piece(pos) is None:
                # "연봉 최대값이랑 최소값": a second aggregate with no column word of its own reads the same column
                prev = out[-1]
                out.append(Measure(func, column=prev.column, formula=prev.formula, pos=pos))
            else:
                out.append(self._numeric_measure(func, pos))
        if not out and self.frame.more_superlatives and not self.frame.top_n:
            return self._several_superlatives()
        if not out and self.frame.superlative and not self.frame.top_n and self._asks_for_value():
            out.append(self._numeric_measure("max" if self.frame.desc else "min", self.frame.superlative_pos))
            self.value_superlative = True
        if not out and self.roles.metrics:
            m = self.roles.metrics[0]
            self.roles.use(m)
            out.append(Measure("sum", formula=m.formula))
        most = self._most_of()
        if most is not None and not out:
            out.append(most)
        if not out and self.frame.total and self._numeric_piece(-1) is not None:
            out.append(self._numeric_measure("sum", -1))
        if not out and self.group_pieces and not self._order_metric_from_groups():
            out.append(Measure("count"))
        return out

    def _several_superlatives(self) -> list[Measure]:
        """'제일 비싼 거랑 제일 싼 거 가격': MAX and MIN of one column; rows would need two queries."""
        if not self._asks_for_value():
            raise CannotAnswer("최상급이 여러 개인 행 조회(가장 비싼 상품과 가장 싼 상품)는 한 쿼리로 답하지 "
                               "못합니다 (several superlatives over rows need separate queries).")
        first = self._numeric_measure("max" if self.frame.desc else "min", self.frame.superlative_pos)
        out = [first]
        for desc, pos in self.frame.more_superlatives:
            out.append(Measure("max" if desc else "min", column=first.column, formula=first.formula, pos=pos))
        self.value_superlative = True
        return sorted(out, key=lambda m: m.pos)

    def _asks_for_value(self) -> bool:
        """'highest product price' asks for a value (MAX); 'most expensive product' for a row.

        The word after the superlative decides: a numeric column (possibly preceded by its own
        table in the same chunk, "product price") means a value, anything else means a ranking.
        """
        after = [p for p in self.roles.pieces if p.start > self.frame.superlative_pos and self.roles.free(p)]
        if not after:
            return self._head_piece() is None
        first = after[0]
        if isinstance(first, TableRef) and len(after) > 1 and after[1].chunk == first.chunk:
            first = after[1]
        return isinstance(first, ColumnRef) and any(
            self.catalog.column(t, c).is_numeric for t, c, _ in first.candidates)

    def _numeric_piece(self, pos: int) -> Piece | None:
        cands = [p for p in self.roles.pieces if self.roles.free(p) and (
            isinstance(p, MetricRef) or (isinstance(p, ColumnRef) and any(
                self.catalog.column(t, c).is_numeric for t, c, _ in p.candidates)))]
        if not cands:
            return None
        # distance to the chunk, then the last word of a chunk first: Korean heads are final.
        starts = {p.chunk: min(q.start for q in cands if q.chunk == p.chunk) for p in cands}
        return min(cands, key=lambda p: (abs(starts[p.chunk] - pos) + (0.5 if starts[p.chunk] < pos else 0),
                                         -p.start))

    def _numeric_measure(self, func: AggFunc, pos: int) -> Measure:
        piece = self._numeric_piece(pos)
        if piece is None:
            raise CannotAnswer(f"'{func}' 집계를 적용할 숫자 컬럼을 찾지 못했습니다 (no numeric column to {func}).")
        self.roles.use(piece)
        if isinstance(piece, MetricRef):
            return Measure(func, formula=piece.formula, pos=pos, source=piece)
        assert isinstance(piece, ColumnRef)
        column = pick_column(piece, self._scope(), self.catalog, numeric=True)
        if column is None:
            raise CannotAnswer(f"'{piece.text}' 는 숫자 컬럼이 아닙니다 (not a numeric column).")
        return Measure(func, column=column, pos=pos, source=piece)

    def _most_of(self) -> Measure | None:
        """'the most orders', '리뷰가 가장 많이': a superlative of amount counts the named rows."""
        if not self.frame.superlative or self.frame.superlative.split()[-1] not in (
                "많이", "많은", "최다", "most"):
            return None
        pos = self.frame.superlative_pos
        side = [p for p in self.roles.pieces if self.roles.free(p) and (p.start < pos) == self.korean]
        side = side[::-1] if self.korean else side
        t = next((p for p in side if isinstance(p, TableRef)), None)
        if isinstance(t, TableRef):
            self.roles.use(t)
            return Measure("count", count_table=t.table)
        if self._numeric_piece(pos) is not None:  # '가장 많이 팔린' -> the quantity sold
            return self._numeric_measure("sum", pos)
        return None

    def _order_metric_from_groups(self) -> bool:
        return any(isinstance(p, MetricRef | ColumnRef) and (self.frame.top_n or self.frame.superlative)
                   for p, _, _ in self.group_pieces)

    # ------------------------------------------------------------------------------ entity
    def _head_piece(self, exclude: str | None = None) -> TableRef | None:
        """The entity asked about; Korean: the owner of the columns that follow it, else the last."""
        free = [p for p in self.roles.tables if self.roles.free(p) and p.table != exclude]
        if not free:
            return None
        if not self.korean:
            return free[0]
        ordered = self.roles.pieces
        for p in free:
            i = ordered.index(p)
            if i + 1 < len(ordered) and isinstance(ordered[i + 1], ColumnRef) and self.roles.free(ordered[i + 1]):
                return p
        return free[-1]

    def _scope(self) -> list[str]:
        out = [p.table for p in self.roles.tables]
        out += [t for t, _, _ in self.roles.id_filters]
        return list(dict.fromkeys(out))

    # ------------------------------------------------------------------------------ filters
    def value_filter(self, plan: QueryPlan, ref: ValueRef, scope: list[str]) -> None:
        top = ref.hits[0].score
        hits = [h for h in ref.hits if h.score >= top - 0.05]
        distinct = {(h.key_table or h.table, h.value) for h in hits}
        if top < 0.9 and len(distinct) > 1:
            shown = ", ".join(sorted({str(h.value) for h in hits}))
            raise CannotAnswer(f"'{ref.text}' 가 여러 값({shown})에 해당해 하나를 고를 수 없습니다 "
                               f"(ambiguous value {ref.text!r}: {shown}).")
        choice = self._place_value(hits, plan, scope)
        table, column, hit = choice
        plan.need(table)
        op = "<>" if ref.negated else "="
        plan.where.append(compare(table, column, op, hit.value))
        self.where_pos[id(plan.where[-1])] = ref.start
        self.links.append((ref.text, table, column, hit.value))
        self.features.add("code_value")

    def _place_value(self, hits: list[ValueHit], plan: QueryPlan, scope: list[str]) -> tuple[str, str, ValueHit]:
        options: list[tuple[str, str, ValueHit]] = []
        for h in hits:
            if h.key_table:
                key = self.catalog.tables[h.key_table].primary_key[0]
                options += [(t, c, h) for t, c in self.catalog.referencing(h.key_table)]
                options.append((h.key_table, key, h))
            else:
                options.append((h.table, h.column, h))
        for table in scope:
            for o in options:
                if o[0] == table:
                    return o
        return min(options, key=lambda o: (self.catalog.distance(plan.fact, o[0]), o[2].key_table == o[0]))

    def comparison_column(self, start: int, end: int, unit: str) -> ColumnWords:
        pieces = [p for p in self.roles.pieces if isinstance(p, ColumnRef) and self.roles.free(p)]
        after = [p for p in pieces if 0 <= p.start - end <= 2]
        before = [p for p in pieces if p.start < start]
        ordered = (before[::-1] if self.korean else after + before[::-1]) or after
        for p in ordered:
            c = pick_column(p, self._scope(), self.catalog, numeric=True) or pick_column(
                p, self._scope(), self.catalog, date=True)
            if c is not None:
                self.roles.use(p)
                return c
        if c := self._column_by_unit(unit):
            return c
        raise CannotAnswer("비교 조건(이상/이하 등)이 어느 컬럼에 대한 것인지 찾지 못했습니다 "
                           "(could not tell which column the comparison is about).")

    def _column_by_unit(self, unit: str) -> ColumnWords | None:
        """'100만원 넘는 상품': no column named, but the unit is; the one column documented in that
        unit ("정가 (원)") of the table asked about is meant. Two such columns: no guess."""
        if not unit:
            return None
        pattern = re.compile(rf"\([^)]*{re.escape(unit)}[^)]*\)")
        for table in self._scope()[:1]:
            found = [c for c in self.catalog.tables[table].columns
                     if c.is_numeric and not c.primary_key and pattern.search(c.comment)]
            if len(found) == 1:
                self.notes.append(f"'{unit}' 단위 → {table}.{found[0].name} (컬럼 주석의 단위 / unit in the comment)")
                return found[0]
        return None

    def date_column(self, plan: QueryPlan) -> ColumnWords:
        for p in self.roles.columns:
            c = pick_column(p, [plan.fact, *plan.tables], self.catalog, date=True)
            if c is not None:
                self.roles.use(p)
                plan.need(c.table)
                return c
        tables = [plan.fact, *plan.tables]
        tables += sorted((t for t in self.catalog.tables if t not in tables),
                         key=lambda t: self.catalog.distance(plan.fact, t))
        for t in tables:
            dates = [c for c in self.catalog.tables[t].columns if c.is_date]
            usual = [c for c in dates if "birth" not in c.name.lower()] or dates
            if usual:
                plan.need(t)
                return usual[0]
        raise CannotAnswer("날짜 조건을 걸 날짜 컬럼이 없습니다 (no date column for the date condition).")

    def date_filter(self, plan: QueryPlan) -> None:
        d = self.frame.date
        if d is None:
            return
        c = self._birth_column(plan) if d.column_hint == "birth" else self.date_column(plan)
        if d.hour is not None:
            self._hour_filter(plan, c, *d.hour)
        if not d.has_period:
            return
        anchor = self.anchor(c) if d.relative else None
        if d.relative and anchor is None:
            raise CannotAnswer(f"{c.table}.{c.name} 에 데이터가 없어 상대 날짜의 기준일을 정할 수 없습니다.")
        start, end, label = d.resolve(anchor or date.today())
        bounds = date_range(c, start, end)
        plan.where.extend(bounds)
        self.period_filters.extend(bounds)
        note = f"기간 {label} → {c.table}.{c.name}"
        if anchor is not None:
            note += f" (상대 날짜는 데이터의 마지막 날짜 {anchor} 기준 / relative to the data's latest date)"
        self.notes.append(note)
        self.features.add("date_range")

    def _birth_column(self, plan: QueryPlan) -> ColumnWords:
        """'1990년대생' is about a birth date, never about the table's usual event date."""
        tables = [plan.fact, *plan.tables]
        tables += sorted((t for t in self.catalog.tables if t not in tables),
                         key=lambda t: self.catalog.distance(plan.fact, t))
        for t in tables:
            births = [c for c in self.catalog.tables[t].columns if c.is_date and "birth" in c.words]
            if births:
                plan.need(t)
                return births[0]
        raise CannotAnswer("출생 연도 조건을 걸 생년월일 컬럼이 없습니다 (no birth-date column for the birth year).")

    def _hour_filter(self, plan: QueryPlan, c: ColumnWords, side: str, hour: int) -> None:
        """'after 3pm' needs a time of day: refuse on a DATE column rather than drop the condition."""
        if "time" not in c.type.lower() and "timestamp" not in c.type.lower():
            raise CannotAnswer(f"시각 조건({hour}시)을 적용할 시간 컬럼이 없습니다; {c.table}.{c.name} 은 날짜만 "
                               f"담습니다 (no time-of-day column for the hour condition).")
        text = exp.Cast(this=col(c.table, c.name), to=exp.DataType.build("TEXT"))
        hh = exp.Substring(this=text, start=exp.Literal.number(12), length=exp.Literal.number(2))
        op = {"since": exp.GTE, "before": exp.LT}.get(side, exp.EQ)
        plan.where.append(op(this=hh, expression=exp.Literal.string(f"{hour:02d}")))
        self.notes.append(f"시각 {hour}시 ({side}) → {c.table}.{c.name}")

    def formula_sql(self, plan: QueryPlan, formula: Formula) -> exp.Expr:
        expression: exp.Expr = exp.maybe_parse(formula.expression, dialect="postgres")
        for column in expression.find_all(exp.Column):
            column.set("table", exp.to_identifier(formula.table))
        plan.need(formula.table)
        for name, value in formula.excludes:
            owner = min((t for t in self.catalog.tables.values() if t.column(name)),
                        key=lambda t: self.catalog.distance(formula.table, t.name), default=None)
            if owner is not None:
                plan.need(owner.name)
                plan.where.append(compare(owner.name, name, "<>", value))
        self.notes.append(f"'{formula.word}' = {formula.expression} ({formula.table} 주석의 정의 / from the comment)"
                          + (" 제외: " + ", ".join(f"{c}='{v}'" for c, v in formula.excludes)
                             if formula.excludes else ""))
        return expression

    def measure_sql(self, plan: QueryPlan, m: Measure, fact: str) -> exp.Expr:
        if m.func == "count" and m.distinct_column is not None:
            plan.need(m.distinct_column.table)
            return exp.Count(this=exp.Distinct(expressions=[col(m.distinct_column.table, m.distinct_column.name)]))
        if m.func == "count":
            table = m.count_table or fact
            pk = self.catalog.tables[table].primary_key
            if not pk or not plan.tables:
                plan.need(table)
                return exp.Count(this=exp.Star())
            plan.need(table)
            return exp.Count(this=exp.Distinct(expressions=[col(table, pk[0])]))
        if m.formula is not None:
            return _FUNCS[m.func](this=self.formula_sql(plan, m.formula))
        assert m.column is not None
        plan.need(m.column.table)
        return _FUNCS[m.func](this=col(m.column.table, m.column.name))

    def entity_keys(self, table: str) -> list[exp.Expr]:
        t = self.catalog.tables[table]
        keys: list[exp.Expr] = [col(table, k) for k in t.primary_key]
        if t.label is not None and t.label.name not in t.primary_key:
            keys.append(col(table, t.label.name))
        return keys or [col(table, c.name) for c in t.columns]

    def ratio_select(self, plan: QueryPlan) -> None:
        """Share of rows meeting the filters: the filters move from WHERE into the numerator.

        The period ("2024년 주문 중") and filters said before "중" / after "among" stay in WHERE:
        they define the rows the share is taken over. With several conditions and no such word
        the base is ambiguous ("VIP 여성 고객 비율"), so we refuse rather than pick one reading.
        """
        span = self.frame.base_span
        base = [w for w in plan.where if any(w is p for p in self.period_filters) or (
            span is not None and span[0] <= self.where_pos.get(id(w), -1) < span[1])]
        share_of = [w for w in plan.where if not any(w is b for b in base)]
        if not share_of:
            raise CannotAnswer("비율을 구할 조건을 찾지 못했습니다 (no condition to take the share of).")
        if len(share_of) > 1 and span is None:
            raise CannotAnswer("여러 조건 중 어느 것이 비율의 분모(전체)인지 알 수 없습니다; 'A 중 B 비율'처럼 "
                               "물어봐 주세요 (ambiguous base of the share: say 'among A, the share of B').")
        cond = exp.and_(*share_of)
        plan.where = base
        hit = exp.Case(ifs=[exp.If(this=cond, true=literal(1))], default=literal(0))
        if self.frame.percent:
            share: exp.Expr = exp.Div(this=exp.Mul(this=exp.Literal.number("100.0"), expression=exp.Sum(this=hit)),
                                      expression=exp.Count(this=exp.Star()))
            plan.add_select(share, "percentage")
        else:
            share = exp.Div(this=exp.Cast(this=exp.Sum(this=hit), to=exp.DataType.build("FLOAT")),
                            expression=exp.Count(this=exp.Star()))
            plan.add_select(share, "share")
        self.features.add("ratio")
