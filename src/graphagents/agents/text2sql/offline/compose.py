"""compose(question, ctx): the offline brain's natural-language -> SQL step.

It answers only from evidence: cue words it knows, schema names and comments, values that exist
in the database. A word it cannot place that looks like a value (a proper noun, a quoted string),
a construct it has no rule for, or a meaning-changing word ("없는", "which", "마다", "only") that
the SQL does not express makes it return ``sql=None`` with the reason, because a wrong query that
runs is worse for the user than an honest "I could not". Every answer carries a confidence that
its reason states, in the language of the question.
"""

from __future__ import annotations

import threading
from datetime import date
from typing import Any

import sqlglot

from .assemble import assemble
from .build import render
from .catalog import Catalog, ColumnWords
from .counted import count_problems
from .cues import find_cues
from .joins import dedupe_fan_out, prefer_named_paths
from .lexicon import STOP_EN
from .link import ColumnRef, Linker, Piece, TableRef, Unknown, ValueRef, link_terms
from .meaning import unexpressed
from .parse import Frame, parse_question
from .plan import CannotAnswer, Planner
from .predicates import unplaced_predicates
from .result import ComposeContext, ComposeResult, ValueLink, confidence_line
from .roles import Roles, assign_roles
from .sanity import contradictions
from .values import ValueIndex

__all__ = ["compose"]

_cache: dict[tuple[int, str, str, int], tuple[Catalog, ValueIndex]] = {}
_cache_lock = threading.Lock()
_SHAPES = ("ratio", "top_n", "group_by", "date_range", "join", "code_value", "aggregate", "filter", "lookup")
_SHAPE_KO = {"ratio": "비율", "top_n": "상위 N", "group_by": "그룹별 집계", "date_range": "기간 조건",
             "join": "조인", "code_value": "코드 값 조건", "aggregate": "집계", "filter": "조건 검색",
             "lookup": "조회", "having": "그룹 조건"}  # fmt: skip


def _indexes(ctx: ComposeContext) -> tuple[Catalog, ValueIndex]:
    """Catalog and value index cost a few queries; keep them per schema version and database."""
    key = (id(ctx.graph), str(getattr(ctx.graph, "fingerprint", "")), str(getattr(ctx.db, "url", id(ctx.db))),
           id(ctx.mapper))
    with _cache_lock:
        if key not in _cache:
            catalog = Catalog(ctx.graph)
            _cache[key] = (catalog, ValueIndex(catalog, ctx.db, ctx.mapper))
            if len(_cache) > 16:
                _cache.pop(next(iter(_cache)))
        return _cache[key]


def compose(question: str, ctx: ComposeContext) -> ComposeResult:
    if not question or not question.strip():
        return ComposeResult(None, "질문이 비어 있습니다 (the question is empty).")
    catalog, values = _indexes(ctx)
    frame = parse_question(question)
    lang = frame.lang
    linker = Linker(catalog, values)
    pieces = link_terms(frame.terms, linker, frame.text)
    unknown_proper = [p for p in pieces if isinstance(p, Unknown) and p.proper]
    if unknown_proper:
        words = ", ".join(repr(p.text) for p in unknown_proper)
        return _declined(CannotAnswer(f"{words} 에 해당하는 테이블, 컬럼 또는 저장된 값을 찾지 못했습니다.",
                                      f"no table, column or stored value matches {words}."), lang)
    roles = assign_roles(frame, pieces, catalog)
    planner = Planner(frame, roles, catalog, _group_pieces(frame, linker), lambda c: _anchor(ctx, c),
                      cues=find_cues(frame))
    try:
        plan = assemble(planner)
        prefer_named_paths(planner, plan)
        dedupe_fan_out(planner, plan)
        sql = render(plan, catalog, ctx.dialect)
        tree = sqlglot.parse_one(sql, read=_read_dialect(ctx.dialect))
        problems = unexpressed(planner, tree) + contradictions(planner, tree) + count_problems(planner, tree)
        problems += unplaced_predicates(planner)
        if problems:
            first = problems[0]
            raise CannotAnswer(first.ko, first.en)
    except CannotAnswer as exc:
        return _declined(exc, lang)
    except LookupError as exc:  # no foreign-key path between the tables the words point at
        return _declined(CannotAnswer(f"테이블을 잇는 외래키 경로가 없습니다 ({exc}).",
                                      f"no foreign-key path joins the tables the question names ({exc})."), lang)
    links = tuple(ValueLink(n, t, c, v) for n, t, c, v in planner.links)
    understood = [(c.start, c.end) for c in planner.claimed]
    unknown = [p.text for p in pieces if isinstance(p, Unknown)
               and not any(lo <= p.start < hi for lo, hi in understood)]
    confidence = _confidence(roles, pieces, unknown, planner)
    shape = next((s for s in _SHAPES if s in planner.features), "lookup")
    columns = tuple(dict.fromkeys(f"{c.table}.{c.name}" for c in tree.find_all(sqlglot.exp.Column) if c.table))
    tables = tuple(dict.fromkeys([plan.fact, *plan.tables]))
    reason = _explain(lang, tables, links, [n.text(lang) for n in planner.notes], unknown, shape, confidence)
    return ComposeResult(sql, reason, tables, columns, links, shape, confidence, lang)


def _group_pieces(frame: Frame, linker: Linker) -> list[tuple[Piece | None, str, str | None]]:
    groups: list[tuple[Piece | None, str, str | None]] = []
    for g in frame.groups:
        piece = None if g.bucket else (
            linker.resolve(g.word + "별", g.start, False) if frame.lang == "ko" else None
        ) or linker.resolve(g.word, g.start, False)
        words = [w for w in g.word.split() if w.lower() not in STOP_EN]  # "by total spending" -> "spending"
        for word in [] if piece is not None or g.bucket or len(words) == len(g.word.split()) == 1 else [
                " ".join(words), *words]:  # "by quantity sold" -> "quantity"
            piece = linker.resolve(word, g.start, False) if word else None
            if piece is not None:
                break
        groups.append((piece, g.word, g.bucket))
    return groups


def _declined(exc: CannotAnswer, lang: str) -> ComposeResult:
    return ComposeResult(None, exc.message(lang), shape="unknown", language="ko" if lang == "ko" else "en")


def _confidence(roles: Roles, pieces: list[Piece], unknown: list[str], planner: Planner) -> float:
    """1.0 when every word was placed and every value matched exactly; each doubt costs a little.

    Words left unplaced (ignored) and schema words the SQL did not use cost 0.1 each; a value
    matched by prefix, romanisation or fuzzy match costs what its match score lacks.
    """
    unused = [p for p in pieces if isinstance(p, TableRef | ColumnRef | ValueRef) and roles.free(p)
              and p not in roles.tables and p not in roles.columns]
    value = 1.0 - 0.1 * len(unknown) - 0.1 * len(unused)
    for ref in roles.values:
        value -= (1.0 - max(h.score for h in ref.hits)) / 2
    return round(min(1.0, max(0.2, value)), 2)


def _anchor(ctx: ComposeContext, c: ColumnWords) -> date | None:
    try:
        rows = ctx.db.fetch(f'SELECT MAX("{c.name}") FROM "{c.table}"', max_rows=1).rows
    except Exception:
        return None
    value: Any = rows[0][0] if rows else None
    if value is None:
        return None
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def _read_dialect(dialect: str) -> str:
    return "postgres" if dialect.startswith("postgres") else dialect


def _explain(lang: str, tables: tuple[str, ...], links: tuple[ValueLink, ...], notes: list[str],
             unknown: list[str], shape: str, confidence: float) -> str:
    if lang == "ko":
        lines = [f"유형: {_SHAPE_KO.get(shape, shape)} ({shape}) · 테이블: {', '.join(tables)}"]
        lines += [f"값 연결: {link}" for link in links]
    else:
        lines = [f"Shape: {shape} · tables: {', '.join(tables)}"]
        lines += [f"Value: {link}" for link in links]
    lines += notes
    if unknown:
        label = "해석하지 못한 단어" if lang == "ko" else "Words not understood"
        lines.append(f"{label}: " + ", ".join(repr(u) for u in unknown))
    lines.append(confidence_line(confidence, lang))
    return "\n".join(lines)
