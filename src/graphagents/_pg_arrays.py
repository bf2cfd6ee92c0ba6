"""PostgreSQL arrays in binary form, built in one pass: how the saver sends many rows in one
statement (``unnest`` of one array per column).

psycopg adapts a Python list element by element in Python (a dumper looked up and called for each
item): for a slotfill step's writes, eight lists of twenty items, that was the largest single cost
of a checkpoint statement (bench/server_load.py, py-spy). Here an array is packed once, in
PostgreSQL's binary array format (``array_send``: dimensions, element type, then each element as a
length and its bytes), and handed to psycopg as one parameter of the array's type.

:func:`register` must run before the connections that send them are opened (psycopg copies its
global adapters into each new connection); the saver's pool and the session locks' pool do.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

from psycopg import adapters
from psycopg.adapt import Dumper
from psycopg.pq import Format

__all__ = ["BoolArray", "ByteaArray", "Int4Array", "TextArray", "register"]

_HEADER = struct.Struct("!iiIii")  # ndim, has nulls, element oid, length, lower bound
_EMPTY = struct.Struct("!iiI")  # ndim 0: no dimensions follow
_LENGTH = struct.Struct("!i")
_NULL = _LENGTH.pack(-1)


def _pack(oid: int, items: list[bytes | None]) -> bytes:
    if not items:
        return _EMPTY.pack(0, 0, oid)
    has_null = any(item is None for item in items)
    parts = [_HEADER.pack(1, has_null, oid, len(items), 1)]
    for item in items:
        if item is None:
            parts.append(_NULL)
        else:
            parts.append(_LENGTH.pack(len(item)))
            parts.append(item)
    return b"".join(parts)


class _Array:
    """An array already in binary form; subclasses name its type."""

    __slots__ = ("data",)
    oid = 0

    def __init__(self, data: bytes) -> None:
        self.data = data


class TextArray(_Array):
    __slots__ = ()
    oid = 1009  # text[]; its elements are text (25)

    def __init__(self, items: Iterable[str | None]) -> None:
        super().__init__(_pack(25, [None if s is None else s.encode() for s in items]))


class ByteaArray(_Array):
    __slots__ = ()
    oid = 1001  # bytea[]; elements bytea (17)

    def __init__(self, items: Iterable[bytes | None]) -> None:
        super().__init__(_pack(17, list(items)))


_INT4 = struct.Struct("!i")


class Int4Array(_Array):
    __slots__ = ()
    oid = 1007  # int4[]; elements int4 (23)

    def __init__(self, items: Iterable[int]) -> None:
        super().__init__(_pack(23, [_INT4.pack(i) for i in items]))


class BoolArray(_Array):
    __slots__ = ()
    oid = 1000  # bool[]; elements bool (16)

    def __init__(self, items: Iterable[bool]) -> None:
        super().__init__(_pack(16, [b"\x01" if b else b"\x00" for b in items]))


def _dumper(array: type[_Array]) -> type[Dumper]:
    class ArrayDumper(Dumper):
        format = Format.BINARY
        oid = array.oid

        def dump(self, obj: Any) -> bytes:
            return obj.data  # type: ignore[no-any-return]

    ArrayDumper.__name__ = f"{array.__name__}Dumper"
    return ArrayDumper


_registered = False


def register() -> None:
    """Teach psycopg (its global adapters, copied into connections opened from now on) these types."""
    global _registered
    if not _registered:
        for array in (TextArray, ByteaArray, Int4Array, BoolArray):
            adapters.register_dumper(array, _dumper(array))
        _registered = True


register()
