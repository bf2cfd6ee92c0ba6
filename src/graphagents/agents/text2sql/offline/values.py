"""Natural words -> stored values: "서울" -> regions 'SEL', "배송완료" -> status 'D', "Busan" -> 'BSN'.

Three sources, all read from the database itself: code/label pairs documented in column comments,
the graph's samples of code-like columns, and every text value of small (lookup-sized) tables. A
label found in a lookup table is turned into that table's key, so a filter can sit on the foreign
key of the table being queried (``customers.region_code = 'SEL'``) instead of adding a join. English
words reach Korean labels through Revised Romanization ("Busan" = 부산) and the glossary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .aliases import alias_score
from .catalog import Catalog, norm, word_forms

if TYPE_CHECKING:
    from graphagents.sql import Database

__all__ = ["ValueHit", "ValueIndex"]

LOOKUP_ROWS = 500


@dataclass(frozen=True)
class ValueHit:
    """Where a word was found; ``key_table`` is set when the value stands for a lookup-table key."""

    natural: str
    table: str
    column: str
    value: str | int | float
    score: float
    key_table: str | None = None  # the lookup table whose primary key ``value`` is


class ValueIndex:
    def __init__(self, catalog: Catalog, db: Database, mapper: Any | None = None) -> None:
        self.catalog = catalog
        self.db = db
        self.mapper = mapper  # the agent's ValueMapper: a last resort, exact-enough matches only
        self._searched: dict[str, list[ValueHit]] = {}
        # normalised label -> (table, column, stored value, label)
        self.entries: list[tuple[str, str, str, str, str]] = []
        for t in catalog.tables.values():
            small = t.row_estimate is not None and t.row_estimate <= LOOKUP_ROWS
            for c in t.columns:
                for code, label in c.codes:
                    self._add(t.name, c.name, code, label)
                    self._add(t.name, c.name, code, code)
                for s in c.samples:
                    self._add(t.name, c.name, s, s)
                if small and c.is_text and not c.samples:
                    for v in self._distinct(t.name, c.name):
                        self._add(t.name, c.name, v, v)

    def _add(self, table: str, column: str, value: str, label: str) -> None:
        entry = (norm(label), table, column, value, label)
        if entry not in self.entries:
            self.entries.append(entry)

    def _distinct(self, table: str, column: str) -> list[str]:
        try:
            return [str(v) for v in self.db.sample_values(table, column, LOOKUP_ROWS) if v is not None]
        except Exception:  # an unreadable column just contributes no values
            return []

    def lookup(self, phrase: str) -> list[ValueHit]:
        """All places the phrase names a value, best first; prefix matches only for 2+ syllables."""
        key = norm(phrase)
        if not key or key.isdigit() or (key.isascii() and len(key) < 2):
            return []  # a lone Latin letter ("s" of "5001's", "a") is never evidence of a code
        forms = {norm(f) for f in word_forms(phrase)} | {key}
        hits: list[ValueHit] = []
        for label_norm, table, column, value, label in self.entries:
            score = 0.0
            if label_norm in forms:
                score = 1.0 if label_norm == key else 0.9
            elif alias := alias_score(phrase, label):  # "Busan" = 부산, "KakaoPay" = 카카오페이, and back
                score = alias
            elif len(key) >= 2 and not key.isascii() and label_norm.startswith(key) and len(label_norm) <= len(key) + 2:
                score = 0.7
            elif any(f.isascii() is False and len(f) >= 2 and label_norm.startswith(f)
                     and len(label_norm) <= len(f) + 2 for f in forms):
                score = 0.6
            if score:
                hits.append(self._normalise(ValueHit(phrase, table, column, value, score)))
        best: dict[tuple[str | None, str, str, object], ValueHit] = {}
        for h in sorted(hits, key=lambda h: -h.score):
            ident = (h.key_table, h.table if not h.key_table else "", h.column if not h.key_table else "", h.value)
            best.setdefault(ident, h)
        return sorted(best.values(), key=lambda h: -h.score)

    def search(self, phrase: str) -> list[ValueHit]:
        """Exact matches in the large text columns (names, titles) the index does not hold.

        Only for words nothing else explained, and only equality (ignoring case): a LIKE match
        on "김" would find thousands of names and turn a typo into a confident wrong filter.
        """
        key = phrase.strip()
        if len(norm(key)) < 2 or key in self._searched:
            return self._searched.get(key, [])
        hits: list[ValueHit] = []
        indexed = {(t, c) for _, t, c, _, _ in self.entries}
        for t in self.catalog.tables.values():
            for c in t.columns:
                if not c.is_text or c.codes or (t.name, c.name) in indexed or c.name in t.fks:
                    continue
                try:
                    found = self.db.search_values(t.name, c.name, key, limit=5)
                except Exception:  # unreadable column: no evidence either way
                    continue
                hits += [ValueHit(phrase, t.name, c.name, v, 1.0) for v in found if norm(v) == norm(key)]
        if not hits and self.mapper is not None:
            hits = self._from_mapper(key)
        self._searched[key] = hits
        return hits

    def _from_mapper(self, phrase: str) -> list[ValueHit]:
        """ValueMapper's fuzzy matches, gated at 0.95 and re-checked in the database (note 8.2)."""
        try:
            found = self.mapper.validate(self.mapper.candidates(phrase)) if self.mapper else []
        except Exception:  # the mapper is an optional helper; its failure must not sink the answer
            return []
        return [self._normalise(ValueHit(phrase, m.table, m.column, m.value, 0.9))
                for m in found if m.score >= 0.95]

    def _normalise(self, hit: ValueHit) -> ValueHit:
        """Turn a label of a lookup table, or a code on a foreign key, into (lookup table, key)."""
        t = self.catalog.tables[hit.table]
        if hit.column in t.fks:
            to_table, _ = t.fks[hit.column]
            return ValueHit(hit.natural, hit.table, hit.column, hit.value, hit.score, key_table=to_table)
        pk_col = t.column(t.primary_key[0]) if len(t.primary_key) == 1 else None
        if pk_col is not None and pk_col.is_text and self.catalog.referencing(t.name):
            pk = pk_col.name
            if hit.column == pk:
                return ValueHit(hit.natural, hit.table, hit.column, hit.value, hit.score, key_table=t.name)
            ph = self.db.placeholder
            try:
                rows = self.db.fetch(
                    f'SELECT "{pk}" FROM "{t.name}" WHERE "{hit.column}" = {ph}', [hit.value], max_rows=2
                ).rows
            except Exception:
                return hit
            if len(rows) == 1:
                key = rows[0][0]
                key = key if isinstance(key, int | float) else str(key)
                return ValueHit(hit.natural, t.name, pk, key, hit.score, key_table=t.name)
        return hit
