"""Terms of the question -> tables, columns, metrics and stored values of one schema.

A chunk such as "서울 지역 배송완료 주문" is tried whole first, then as its longest sub-phrases
from the left, so that each word is used once: "서울" becomes a value, "지역" a table, "배송완료" a
code, "주문" the entity. Column candidates stay ambiguous here ("이름" is a column of many tables);
the planner settles them once it knows which tables the question is about.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .catalog import Catalog, ColumnWords, Formula, norm, word_forms
from .parse import Term
from .values import ValueHit, ValueIndex

__all__ = ["NEGATION_WINDOW", "ColumnRef", "MetricRef", "Piece", "TableRef", "Unknown", "ValueRef", "link_terms"]


@dataclass(frozen=True)
class TableRef:
    table: str
    text: str
    start: int
    chunk: int = 0  # which chunk of the question the piece came from; Korean heads come last


@dataclass(frozen=True)
class ColumnRef:
    candidates: tuple[tuple[str, str, float], ...]  # (table, column, score), best first
    text: str
    start: int
    chunk: int = 0


@dataclass(frozen=True)
class ValueRef:
    hits: tuple[ValueHit, ...]
    text: str
    start: int
    chunk: int = 0
    negated: bool = False


@dataclass(frozen=True)
class MetricRef:
    formula: Formula
    text: str
    start: int
    chunk: int = 0


@dataclass(frozen=True)
class Unknown:
    text: str
    start: int
    proper: bool
    chunk: int = 0


Piece = TableRef | ColumnRef | ValueRef | MetricRef | Unknown

# A value with one of these right after it (Korean) or right before it (English) is excluded: "<>".
_NEGATION_AFTER = ("제외", "빼고", "말고", "아닌", "않은", "않는", "않았", "안 된", "안된", "안 한", "외에", "외 ")
_NEGATION_BEFORE = ("excluding", "except", "not ", "non-", "without", "other than", "besides")
NEGATION_WINDOW = 12  # characters around the value in which the negation word is looked for


@dataclass
class Linker:
    catalog: Catalog
    values: ValueIndex

    def table_for(self, phrase: str) -> str | None:
        forms = {norm(f) for f in word_forms(phrase)} | {norm(phrase)}
        best = [t.name for t in self.catalog.tables.values() if forms & {norm(e) for e in t.entity}]
        if len(best) == 1:
            return best[0]
        exact = [t for t in best if norm(phrase) in {norm(e) for e in self.catalog.tables[t].entity}]
        return exact[0] if len(exact) == 1 else (min(best, key=len) if best else None)

    def columns_for(self, phrase: str) -> list[tuple[str, str, float]]:
        key = norm(phrase)
        forms = {norm(f) for f in word_forms(phrase)} | {key}
        out = []
        for t in self.catalog.tables.values():
            for c in t.columns:
                score = _column_score(c, key, forms)
                if score:
                    out.append((t.name, c.name, score))
        return sorted(out, key=lambda x: -x[2])

    def resolve(self, phrase: str, start: int, proper: bool) -> Piece | None:
        if formula := self.catalog.formula_for(phrase):
            return MetricRef(formula, phrase, start)
        hits = self.values.lookup(phrase)
        strong = [h for h in hits if h.score >= 0.9]
        table = self.table_for(phrase)
        columns = self.columns_for(phrase)
        top = columns[0][2] if columns else 0.0
        if strong and (table is None or (proper and strong[0].score >= 1.0)) and top < 3:
            return ValueRef(tuple(strong), phrase, start)
        if table:
            return TableRef(table, phrase, start)
        if columns and top >= 2:
            return ColumnRef(tuple(c for c in columns if c[2] >= top - 0.5), phrase, start)
        if hits:
            return ValueRef(tuple(hits), phrase, start)
        if searched := self.values.search(phrase):
            return ValueRef(tuple(searched), phrase, start)
        return None


def _column_score(c: ColumnWords, key: str, forms: set[str]) -> float:
    """Exact name or comment head first; then a synonym that IS the column's name ("가격" -> ``price``
    over ``unit_price``): a compound column is a narrower thing than the word says."""
    if key in (c.head, norm(c.name)):
        return 3.0
    if key in c.words:
        return 2.5 + (0.2 if norm(c.name) in forms else 0.0)
    if forms & c.words:
        return 2.0 + (0.2 if norm(c.name) in forms else 0.0)
    return 0.0


def link_terms(terms: list[Term], linker: Linker, text: str) -> list[Piece]:
    pieces: list[Piece] = []
    for n, term in enumerate(terms):
        pieces.extend(replace(p, chunk=n) for p in _link_chunk(term, linker))
    return [_negate(p, text) for p in pieces]


def _link_chunk(term: Term, linker: Linker) -> list[Piece]:
    whole = linker.resolve(term.text, term.start, term.proper)
    if whole is not None or len(term.parts) == 1:
        return [whole if whole is not None else Unknown(term.text, term.start, term.proper)]
    parts = list(term.parts)
    offsets = term.offsets or tuple(term.start + i for i in range(len(parts)))
    flags = term.proper_parts or (term.proper,) * len(parts)
    out: list[Piece] = []
    i = 0
    while i < len(parts):
        for j in range(len(parts), i, -1):
            phrase = " ".join(parts[i:j])
            proper = any(flags[i:j])
            piece = linker.resolve(phrase, offsets[i], proper)
            if piece is None and j - i > 1:
                piece = linker.resolve("".join(parts[i:j]), offsets[i], proper)
            if piece is not None:
                out.append(piece)
                i = j
                break
        else:
            out.append(Unknown(parts[i], offsets[i], flags[i]))
            i += 1
    return out


def _negate(piece: Piece, text: str) -> Piece:
    if not isinstance(piece, ValueRef):
        return piece
    pos = text.find(piece.text)
    end = pos + len(piece.text)
    after = text[end: end + NEGATION_WINDOW] if pos >= 0 else ""
    before = text[max(0, pos - NEGATION_WINDOW): pos] if pos >= 0 else ""
    if any(n in after for n in _NEGATION_AFTER) or any(n in before.lower() for n in _NEGATION_BEFORE):
        return replace(piece, negated=True)
    return piece
