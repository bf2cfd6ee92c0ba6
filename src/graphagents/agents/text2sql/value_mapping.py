"""Natural words -> the codes a database stores (note 8), gated by the database itself.

Four sources, in order of trust: the value as written (exact, then case-insensitive), the
schema's own documentation of codes (``P=결제완료`` pairs in column comments, and lookup tables
such as ``regions(region_code, region_name)`` that a FK column points to), the same name in the
other script (``offline.aliases``: "KakaoPay" finds 카카오페이 and "실버" finds 'Silver'), and
finally fuzzy matching (``difflib.SequenceMatcher`` ratio >= ``threshold``) against labels and
stored values.
Whatever the source, :meth:`ValueMapper.validate` keeps only mappings whose value exists in the
target column: a model (or a stale comment) can propose a code, only the data can confirm it.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from sqlglot import exp

from graphagents.sql import Database, QueryError

from .offline.aliases import alias_score
from .schema import SchemaGraph, TableNode
from .schema.model import LOOKUP_TABLE_ROWS, is_textish

DISTINCT_LIMIT = 500  # distinct values fetched per column for fuzzy matching


@dataclass(frozen=True)
class ValueMapping:
    """``source``: exact | exact_ci | comment | code_table | alias_comment | alias_code_table | alias_value |
    fuzzy_comment | fuzzy_code_table | fuzzy_value."""

    natural: str
    table: str
    column: str
    value: str
    score: float
    source: str


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", str(text)).strip().lower()


def _ratio(a: str, b: str) -> float:
    return SequenceMatcher(None, _norm(a), _norm(b)).ratio()


class ValueMapper:
    """Map user words to stored values of one column, or find candidate columns across the schema.

    Distinct values and lookup-table pairs are fetched once per column and kept: code tables are
    small and the ReAct loop asks about the same columns repeatedly within a session.
    """

    def __init__(self, db: Database, graph: SchemaGraph, *, threshold: float = 0.8) -> None:
        self.db = db
        self.graph = graph
        self.threshold = threshold
        self._distinct: dict[tuple[str, str], list[str]] = {}
        self._pairs: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
        self._lock = threading.Lock()

    # --- one column ----------------------------------------------------------------------------

    def map(self, natural: str, table: str, column: str) -> ValueMapping | None:
        """The best stored value of ``table.column`` for ``natural``, or None below ``threshold``."""
        natural = natural.strip()
        node = self.graph.table(table)
        col = node.column(column)
        if not natural:
            return None
        t, c = node.name, col.name

        def hit(value: str, score: float, source: str) -> ValueMapping:
            return ValueMapping(natural, t, c, str(value), round(score, 4), source)

        try:
            if self.db.value_exists(t, c, natural):
                return hit(natural, 1.0, "exact")
        except QueryError:
            pass  # e.g. a word against an integer column: not a match, keep looking
        wanted = _norm(natural)
        for value in self._values(t, c):
            if _norm(value) == wanted:
                return hit(value, 1.0, "exact_ci")
        labelled = self._labels(node, c)  # (code, label, source)
        for code, label, source in labelled:
            if _norm(label) == wanted:
                return hit(code, 0.99, source)
        best: ValueMapping | None = None
        for code, label, source in [*labelled, *((v, v, "value") for v in self._values(t, c))]:
            score = alias_score(natural, label)  # "KakaoPay" -> 카카오페이, "실버" -> 'Silver'
            if score and (best is None or score > best.score):
                best = hit(code, score, f"alias_{source}")
        if best is not None:
            return best
        for code, label, source in labelled:
            score = _ratio(natural, label)
            if score >= self.threshold and (best is None or score > best.score):
                best = hit(code, score, f"fuzzy_{source}")
        for value in self._values(t, c):
            score = _ratio(natural, value)
            if score >= self.threshold and (best is None or score > best.score):
                best = hit(value, score, "fuzzy_value")
        return best

    def _labels(self, node: TableNode, column: str) -> list[tuple[str, str, str]]:
        """(code, label, source) pairs documenting ``node.column``: comments, then lookup tables."""
        col = node.column(column)
        out = [(code, label, "comment") for code, label in col.codes]
        targets = [(node, col.name)] if col.primary_key else []
        fk = node.fk_of(col.name)
        if fk is not None:
            target = self.graph.table(fk.to_table)
            out += [(code, label, "comment") for code, label in target.column(fk.to_column).codes]
            targets.append((target, fk.to_column))
        for lookup, key in targets:
            if lookup.row_estimate is None or lookup.row_estimate > LOOKUP_TABLE_ROWS:
                continue
            for name_col in lookup.columns:
                if name_col.name != key and not name_col.primary_key and is_textish(name_col.type):
                    pairs = self._lookup(lookup.name, key, name_col.name)
                    out += [(code, label, "code_table") for code, label in pairs]
        return out

    def _lookup(self, table: str, key: str, label: str) -> list[tuple[str, str]]:
        cache_key = (table, key, label)
        with self._lock:
            cached = self._pairs.get(cache_key)
        if cached is None:
            q = self._quote
            sql = (f"SELECT {q(key)}, {q(label)} FROM {q(table)} WHERE {q(label)} IS NOT NULL "
                   f"ORDER BY {q(key)} LIMIT {LOOKUP_TABLE_ROWS}")  # fmt: skip
            try:
                rows = self.db.fetch(sql, max_rows=LOOKUP_TABLE_ROWS, timeout_s=5.0).rows
            except QueryError:
                rows = []
            cached = [(str(k), str(v)) for k, v in rows]
            with self._lock:
                self._pairs[cache_key] = cached
        return cached

    def _quote(self, name: str) -> str:
        parts = name.split(".")
        return ".".join(exp.to_identifier(p, quoted=True).sql(dialect=self.db.dialect) for p in parts)

    def _values(self, table: str, column: str) -> list[str]:
        """Distinct stored values of a text column (most frequent first); empty for other types."""
        key = (table, column)
        with self._lock:
            cached = self._distinct.get(key)
        if cached is None:
            cached = []
            if is_textish(self.graph.table(table).column(column).type):
                try:
                    cached = [str(v) for v in self.db.sample_values(table, column, DISTINCT_LIMIT)]
                except QueryError:
                    cached = []
            with self._lock:
                self._distinct[key] = cached
        return cached

    # --- whole schema --------------------------------------------------------------------------

    def candidates(self, natural: str, k: int = 5) -> list[ValueMapping]:
        """Best mappings of ``natural`` over every code-ish column (sampled or documented codes)."""
        found: list[ValueMapping] = []
        for name in self.graph.table_names():
            node = self.graph.table(name)
            for col in node.columns:
                fk = node.fk_of(col.name)
                target = self.graph.table(fk.to_table) if fk is not None else None
                codeish = bool(col.samples or col.codes) or (
                    target is not None and target.row_estimate is not None
                    and target.row_estimate <= LOOKUP_TABLE_ROWS
                )  # fmt: skip
                if not codeish:
                    continue
                mapping = self.map(natural, node.name, col.name)
                if mapping is not None:
                    found.append(mapping)
        found.sort(key=lambda m: (-m.score, m.table, m.column))
        return found[:k]

    def validate(self, mappings: Sequence[ValueMapping]) -> list[ValueMapping]:
        """Only the mappings whose value exists in their column right now: the strong gate (note 8.2)."""
        valid = []
        for m in mappings:
            try:
                if self.db.value_exists(m.table, m.column, m.value):
                    valid.append(m)
            except QueryError:
                continue  # unknown table/column: the mapping cannot be right
        return valid


__all__ = ["ValueMapper", "ValueMapping"]
