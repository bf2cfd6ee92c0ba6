"""Give every linked piece its role: the entity asked about, filters, the measure, the grouping.

Korean puts the head noun last and its modifiers first ("제주 지역 고객들의 취소 주문 건수"),
English puts it first ("the number of cancelled orders of customers in Jeju"), so "nearest piece"
means "before the cue" in Korean and "after the cue" in English. A word that only restates the
kind of a value next to it ("제주 *지역*", "점장 *직급*", "실버 *등급*") is absorbed by the value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .catalog import Catalog, ColumnWords
from .link import ColumnRef, MetricRef, Piece, TableRef, Unknown, ValueRef
from .parse import Frame

__all__ = ["Roles", "assign_roles"]


@dataclass
class Roles:
    pieces: list[Piece]
    tables: list[TableRef] = field(default_factory=list)
    columns: list[ColumnRef] = field(default_factory=list)
    values: list[ValueRef] = field(default_factory=list)
    metrics: list[MetricRef] = field(default_factory=list)
    unknown: list[Unknown] = field(default_factory=list)
    id_filters: list[tuple[str, str, int | float]] = field(default_factory=list)  # (table, column, number)
    column_equals: list[tuple[ColumnRef, int | float]] = field(default_factory=list)
    used: set[int] = field(default_factory=set)  # ids of pieces consumed by a role

    def use(self, piece: Piece) -> None:
        self.used.add(id(piece))

    def free(self, piece: Piece) -> bool:
        return id(piece) not in self.used


def assign_roles(frame: Frame, pieces: list[Piece], catalog: Catalog) -> Roles:
    roles = Roles(pieces)
    for p in pieces:
        if isinstance(p, TableRef):
            roles.tables.append(p)
        elif isinstance(p, ColumnRef):
            roles.columns.append(p)
        elif isinstance(p, ValueRef):
            roles.values.append(p)
        elif isinstance(p, MetricRef):
            roles.metrics.append(p)
        else:
            roles.unknown.append(p)
    _absorb_value_kinds(roles, catalog)
    _bind_numbers(frame, roles, catalog)
    return roles


def _absorb_value_kinds(roles: Roles, catalog: Catalog) -> None:
    ordered = roles.pieces
    for i, p in enumerate(ordered):
        if not isinstance(p, ValueRef):
            continue
        for j in (i + 1, i - 1):
            if not 0 <= j < len(ordered):
                continue
            q = ordered[j]
            homes = {h.key_table for h in p.hits if h.key_table} | {h.table for h in p.hits if not h.key_table}
            cols = {(h.table, h.column) for h in p.hits}
            for key_table in {h.key_table for h in p.hits if h.key_table}:
                cols |= set(catalog.referencing(key_table))
                cols |= {(key_table, c.name) for c in catalog.tables[key_table].columns}
            restates_table = isinstance(q, TableRef) and q.table in homes and _is_lookup(catalog, q.table)
            restates_column = isinstance(q, ColumnRef) and any((t, c) in cols for t, c, _ in q.candidates)
            if restates_table or restates_column:
                roles.use(q)


def _is_lookup(catalog: Catalog, table: str) -> bool:
    """A table that mostly names values (regions, grades): 'region' after '제주' restates the value."""
    t = catalog.tables[table]
    return bool(catalog.referencing(table)) and not t.fks


def _bind_numbers(frame: Frame, roles: Roles, catalog: Catalog) -> None:
    """'상품 236', 'employee 7', 'rating of 1': a bare number belongs to the piece right before it."""
    for number, pos in frame.numbers:
        before = [p for p in roles.pieces if _start(p) < pos]
        after = [p for p in roles.pieces if _start(p) > pos]
        target = before[-1] if before else (after[0] if after else None)
        if isinstance(target, TableRef) and len(catalog.tables[target.table].primary_key) == 1:
            roles.id_filters.append((target.table, catalog.tables[target.table].primary_key[0], number))
            roles.use(target)
        elif isinstance(target, ColumnRef):
            table, column, _ = target.candidates[0]
            c = catalog.column(table, column)
            if c.primary_key or (column in catalog.tables[table].fks):
                roles.id_filters.append((table, column, number))
            else:
                roles.column_equals.append((target, number))
            roles.use(target)


def _start(p: Piece) -> int:
    return p.start


def nearest(roles: Roles, pos: int, kinds: tuple[type, ...], *, korean: bool,
            predicate: Callable[[Piece], bool] | None = None) -> Piece | None:
    """The free piece of one of ``kinds`` closest to ``pos``, on the side the language puts it."""
    free = [p for p in roles.pieces if isinstance(p, kinds) and roles.free(p) and (predicate is None or predicate(p))]
    if not free:
        return None
    before = [p for p in free if p.start < pos]
    after = [p for p in free if p.start >= pos]
    first, second = (before[::-1], after) if korean else (after, before[::-1])
    return (first or second)[0]


def pick_column(ref: ColumnRef, scope: list[str], catalog: Catalog, *, numeric: bool = False,
                date: bool = False) -> ColumnWords | None:
    """Settle an ambiguous column word using the tables already in play, in their order of importance."""
    cands = [catalog.column(t, c) for t, c, _ in ref.candidates]
    if numeric:
        cands = [c for c in cands if c.is_numeric and not c.primary_key and c.name not in catalog.tables[c.table].fks]
    if date:
        cands = [c for c in cands if c.is_date]
    if not cands:
        return None
    for table in scope:
        for c in cands:
            if c.table == table:
                return c
    return cands[0]
