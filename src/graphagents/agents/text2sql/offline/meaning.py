"""Check that the composed SQL expresses every meaning-changing word of the question.

The composer builds SQL from the words it understood; the words it did not understand are easy
to lose. Losing "없는" turned "리뷰가 한 번도 없는 상품은 몇 개야?" into a count of products *with*
reviews, and losing "which" turned "Which employee has the highest salary?" into ``MAX(salary)``.
Each cue found by :func:`.cues.find_cues` must be accounted for by the plan (a claim made when a
construct was built for it) or by the shape of the SQL; :func:`unexpressed` lists those that are
not, and the composer then declines, naming the word, instead of answering another question.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from .catalog import Catalog
from .cues import ASC_WORDS, DESC_WORDS, Cue
from .link import ColumnRef, Piece, TableRef, ValueRef
from .plan import Planner

__all__ = ["Problem", "Unexpressed", "unexpressed"]


@dataclass(frozen=True)
class Problem:
    """Why the composed SQL would not answer the question, in Korean and English."""

    ko: str
    en: str


@dataclass(frozen=True)
class Unexpressed(Problem):
    cue: Cue


def unexpressed(p: Planner, tree: exp.Expr) -> list[Problem]:
    """Every cue of ``p.cues`` that neither a claim nor the SQL's shape accounts for."""
    sql = _Shape(tree)
    names = _named_spans(p.roles.pieces)
    out: list[Problem] = []
    for cue in p.cues:
        if p.is_claimed(cue) or any(lo <= cue.start and cue.end <= hi for lo, hi in names):
            continue  # expressed by a construct, or part of a stored name ("Not Found", "미개봉")
        problem = _CHECKS[cue.kind](p, cue, sql)
        if problem is not None:
            out.append(Unexpressed(problem[0], problem[1], cue))
    return out


class _Shape:
    """The facts about the outer query that the checks look at."""

    def __init__(self, tree: exp.Expr) -> None:
        self.tree = tree
        select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
        assert select is not None
        self.select = select
        self.columns = [e.unalias() for e in select.expressions]
        self.plain = [e for e in self.columns if not e.find(exp.AggFunc)]  # non-aggregated outputs
        self.aggregated = any(e.find(exp.AggFunc) for e in self.columns)
        self.grouped = bool(select.args.get("group"))
        self.limited = select.args.get("limit") is not None
        order = select.args.get("order")
        self.order: list[exp.Ordered] = list(order.expressions) if order else []
        where = select.args.get("where")
        self.where = where.this if where is not None else None

    def has(self, *kinds: type[exp.Expr]) -> bool:
        return self.where is not None and any(self.where.find(k) is not None for k in kinds)


Found = tuple[str, str] | None  # (Korean, English) when the cue is not expressed


def _negation(p: Planner, cue: Cue, sql: _Shape) -> Found:
    return (f"부정 표현 '{cue.word}' 를 SQL로 표현하지 못했습니다 "
            "(부정이 들어간 이 질문 형태는 아직 처리하지 못합니다).",
            f"the negation {cue.word!r} is not expressed in the SQL I could build (I don't handle this "
            "negation yet).")


def _each(p: Planner, cue: Cue, sql: _Shape) -> Found:
    if sql.aggregated and not sql.grouped:
        if cue.word in ("각각", "respectively") and len(sql.columns) >= 2:
            return None  # "가격이 각각 얼마야": one value for each thing listed
        return (f"'{cue.word}' 는 묶음마다 값을 구하라는 뜻인데 SQL은 전체 값 하나만 돌려줍니다.",
                f"{cue.word!r} asks for one value per group, but the SQL gives a single total.")
    if sql.grouped and sql.limited and p.frame.top_n is None:
        return (f"'{cue.word}' 묶음마다 최상위 값을 고르는 질문(그룹별 순위)은 아직 처리하지 못합니다.",
                f"{cue.word!r} with a superlative asks for the top row of every group, which I do not "
                "compose yet.")
    return None


def _entity(p: Planner, cue: Cue, sql: _Shape) -> Found:
    target = _entity_target(p, cue)
    if any(_shows(p.catalog, e, target) for e in sql.plain):
        return None
    what = f"'{target.text}'" if target is not None else "항목"
    return (f"'{cue.word}' 는 {what} 자체를 묻는데, 만든 SQL은 그것을 돌려주지 않고 값만 돌려줍니다.",
            f"{cue.word!r} asks which {target.text if target else 'item'}, but the SQL I could build returns "
            "only a value, not the item itself.")


def _entity_target(p: Planner, cue: Cue) -> Piece | None:
    """'which employee' -> the employee table; '누구' / '어디' -> the head of the sentence."""
    if cue.word.lower() in ("who", "whom", "whose", "누구", "누가", "어디"):
        before = [q for q in p.roles.tables if q.start < cue.start]
        return before[-1] if p.korean and before else None
    after = [q for q in p.roles.pieces if q.start >= cue.end and isinstance(q, TableRef | ColumnRef)]
    return after[0] if after and after[0].start - cue.end <= 4 else None


def _shows(catalog: Catalog, e: exp.Expr, target: Piece | None) -> bool:
    """Whether output ``e`` names the asked-about entity (a column of its table, or a key to it)."""
    columns = [c for c in e.find_all(exp.Column)]
    if not columns:
        return False
    if target is None:
        return True
    for c in columns:
        if isinstance(target, TableRef):
            table = catalog.tables.get(c.table)
            if c.table == target.table or (table is not None and table.fks.get(c.name, ("",))[0] == target.table):
                return True
        elif isinstance(target, ColumnRef) and (c.table, c.name) in {(t, n) for t, n, _ in target.candidates}:
            return True
    return False


def _comparative(p: Planner, cue: Cue, sql: _Shape) -> Found:
    return (f"비교 표현 '{cue.word}' 가 무엇과 무엇의 비교인지 해석하지 못했습니다.",
            f"I could not tell what the comparison {cue.word!r} compares.")


def _only(p: Planner, cue: Cue, sql: _Shape) -> Found:
    spans = _filter_spans(p)
    if p.korean:
        near = any(cue.start - 8 <= end <= cue.start for _, end in spans)
    else:
        near = any(cue.end <= start <= cue.end + 25 or cue.start - 8 <= end <= cue.start for start, end in spans)
    if near:
        return None
    return (f"'{cue.word}' 가 무엇만을 뜻하는지 SQL 조건으로 표현하지 못했습니다.",
            f"I could not turn {cue.word!r} into a condition of the SQL.")


def _both(p: Planner, cue: Cue, sql: _Shape) -> Found:
    values = [v for v in p.roles.values if (cue.start - 20 <= v.start < cue.start if p.korean
                                            else cue.end <= v.start <= cue.end + 40)]
    if not values and len(sql.plain) >= 2:
        return None  # "show both names and scores": two columns, both returned
    return (f"'{cue.word}' (두 조건을 모두 만족하는 것)은 아직 처리하지 못합니다.",
            f"{cue.word!r} asks for rows that meet two conditions at once, which I do not compose yet.")


def _or(p: Planner, cue: Cue, sql: _Shape) -> Found:
    if sql.has(exp.Or, exp.In):
        return None
    return (f"'{cue.word}' (둘 중 하나) 조건을 SQL로 표현하지 못했습니다.",
            f"the alternative {cue.word!r} is not expressed in the SQL I could build.")


def _ordinal(p: Planner, cue: Cue, sql: _Shape) -> Found:
    return (f"'{cue.word}' 같은 N번째 순위는 아직 처리하지 못합니다.",
            f"rankings such as {cue.word!r} are not supported yet.")


def _same(p: Planner, cue: Cue, sql: _Shape) -> Found:
    return (f"'{cue.word}' (같은 값끼리 비교)는 아직 처리하지 못합니다.",
            f"comparisons with {cue.word!r} (rows sharing a value) are not supported yet.")


def _change(p: Planner, cue: Cue, sql: _Shape) -> Found:
    if sql.tree.find(exp.Sub) is not None:
        return None
    return (f"'{cue.word}' (차이나 변화)를 계산하는 SQL을 만들지 못했습니다.",
            f"I could not build SQL that computes the {cue.word!r} (a difference or a change).")


def _statistic(p: Planner, cue: Cue, sql: _Shape) -> Found:
    return (f"'{cue.word}' 통계는 지원하지 않습니다.", f"the statistic {cue.word!r} is not supported.")


def _order(p: Planner, cue: Cue, sql: _Shape) -> Found:
    if not sql.order:
        return (f"'{cue.word}' 정렬을 SQL에 표현하지 못했습니다.",
                f"the ordering {cue.word!r} is not expressed in the SQL.")
    text = p.frame.text
    wants_desc = DESC_WORDS.search(text) is not None
    wants_asc = ASC_WORDS.search(text) is not None
    first_desc = bool(sql.order[0].args.get("desc"))
    if (wants_desc and not first_desc) or (wants_asc and first_desc):
        return ("요청한 정렬 방향과 SQL의 정렬 방향이 다릅니다.", "the SQL sorts in the other direction than asked.")
    return None


_CHECKS: dict[str, Callable[[Planner, Cue, _Shape], Found]] = {
    "negation": _negation, "each": _each, "entity": _entity, "comparative": _comparative, "only": _only,
    "both": _both, "or": _or, "ordinal": _ordinal, "same": _same, "change": _change, "statistic": _statistic,
    "order": _order,
}  # fmt: skip


def _named_spans(pieces: list[Piece]) -> list[tuple[int, int]]:
    """Spans of multi-word names linked to the schema or to stored values."""
    return [(q.start, q.start + len(q.text)) for q in pieces if isinstance(q, ValueRef | TableRef | ColumnRef)
            and " " in q.text.strip()]


def _filter_spans(p: Planner) -> list[tuple[int, int]]:
    """Where in the question the words of each filter are: values, comparisons, dates, ids."""
    spans = [(v.start, v.start + len(v.text)) for v in p.roles.values]
    spans += [(c.start, c.end) for c in p.frame.comparisons]
    spans += list(p.frame.date.spans) if p.frame.date else []
    spans += [(pos, pos + len(str(n))) for n, pos in p.frame.numbers]
    return spans
