"""Roles -> a query plan: measure, entity, grouping, filters, projection, order.

Every step either finds schema evidence for what it adds or records why it could not; the caller
refuses to answer when a step failed, rather than fill the gap with a plausible guess.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from sqlglot import exp

from .build import QueryPlan, col, compare
from .catalog import Catalog, ColumnWords, Formula
from .cues import Cue, CueKind
from .lexicon import AggFunc
from .link import ColumnRef, MetricRef, Piece, TableRef
from .parse import Frame
from .roles import Roles, nearest, pick_column

__all__ = ["CannotAnswer", "Measure", "Note", "Planner"]

_FUNCS: dict[str, type[exp.Func]] = {"sum": exp.Sum, "avg": exp.Avg, "max": exp.Max, "min": exp.Min}


class CannotAnswer(Exception):
    """A missing piece of evidence; the message goes to the user in the language of the question.

    ``ko`` is the Korean message and ``en`` the English one; ``str()`` gives both, for logs.
    """

    def __init__(self, ko: str, en: str) -> None:
        super().__init__(f"{ko} ({en})")
        self.ko = ko
        self.en = en

    def message(self, lang: str) -> str:
        return self.ko if lang == "ko" else self.en


@dataclass(frozen=True)
class Note:
    """One line of how the question was read, in both languages."""

    ko: str
    en: str

    def text(self, lang: str) -> str:
        return self.ko if lang == "ko" else self.en


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
    notes: list[Note] = field(default_factory=list)
    links: list[tuple[str, str, str, object]] = field(default_factory=list)
    features: set[str] = field(default_factory=set)
    value_superlative: bool = False  # "highest price" became MAX(price): no ranking left to do
    period_filters: list[exp.Expr] = field(default_factory=list)  # date bounds: they define a share's base
    where_pos: dict[int, int] = field(default_factory=dict)  # id(filter) -> where its words are
    cues: list[Cue] = field(default_factory=list)  # meaning-changing words of the question
    claimed: set[Cue] = field(default_factory=set)  # the cues some construct of the plan expresses

    def claim_cue(self, cue: Cue) -> None:
        self.claimed.add(cue)

    def is_claimed(self, cue: Cue) -> bool:
        return cue in self.claimed

    def claim(self, kind: CueKind, lo: int, hi: int) -> None:
        """Mark every cue of ``kind`` starting in ``[lo, hi)`` as expressed."""
        self.claimed.update(c for c in self.cues if c.kind == kind and lo <= c.start < hi)

    @property
    def korean(self) -> bool:
        return self.frame.lang == "ko"

    # ------------------------------------------------------------------------------ measures
    def measures(self) -> list[Measure]:
        out: list[Measure] = []
        for func, pos in self.frame.aggs:
            if func == "count" and self._counted_column(pos) is not None:
                continue  # "the number of references" where reference_num stores it: a value, not a count
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

    def _counted_column(self, pos: int) -> ColumnRef | None:
        """'number of pages', '페이지 수': the count names a numeric column that already holds the number."""
        text = self.frame.text
        for q in self.roles.pieces:
            if not isinstance(q, ColumnRef):
                continue
            gap = text[pos:q.start] if not self.korean else text[q.start + len(q.text):pos]
            if self.korean and (gap.strip() or q.start + len(q.text) > pos):
                continue
            if not self.korean and (q.start <= pos or gap.split()[-1:] != ["of"] or len(gap.split()) > 3):
                continue
            if any(self.catalog.column(t, c).is_numeric and not self.catalog.column(t, c).primary_key
                   and c not in self.catalog.tables[t].fks for t, c, _ in q.candidates):
                return q
        return None

    def _several_superlatives(self) -> list[Measure]:
        """'제일 비싼 거랑 제일 싼 거 가격': MAX and MIN of one column; rows would need two queries."""
        if not self._asks_for_value():
            raise CannotAnswer("최상급이 여러 개인 행 조회(가장 비싼 상품과 가장 싼 상품)는 한 쿼리로 답하지 못합니다.",
                               "several superlatives over rows need separate queries.")
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
        A question that asks "which"/"who" ("Which employee has the highest salary?") wants the row.
        """
        if any(c.kind == "entity" for c in self.cues):
            return False
        if not self.korean and any(
                isinstance(q, ColumnRef) and q.start < self.frame.superlative_pos and self.roles.free(q)
                and not any(self.catalog.column(t, c).is_numeric for t, c, _ in q.candidates)
                for q in self.roles.pieces):
            return False  # "the title of the publication with the highest ...": a row's column is asked
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
            raise CannotAnswer(f"'{func}' 집계를 적용할 숫자 컬럼을 찾지 못했습니다.",
                               f"no numeric column to take the {func} of.")
        self.roles.use(piece)
        if isinstance(piece, MetricRef):
            return Measure(func, formula=piece.formula, pos=pos, source=piece)
        assert isinstance(piece, ColumnRef)
        column = pick_column(piece, self._scope(), self.catalog, numeric=True)
        if column is None:
            raise CannotAnswer(f"'{piece.text}' 는 숫자 컬럼이 아닙니다.", f"{piece.text!r} is not a numeric column.")
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
        excluded = ", ".join(f"{c}='{v}'" for c, v in formula.excludes)
        self.notes.append(Note(
            f"'{formula.word}' = {formula.expression} ({formula.table} 주석의 정의)"
            + (f" 제외: {excluded}" if excluded else ""),
            f"{formula.word!r} = {formula.expression} (defined in the comment of {formula.table})"
            + (f", excluding {excluded}" if excluded else "")))
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
