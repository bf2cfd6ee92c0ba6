"""Arrays packed in PostgreSQL's binary format (graphagents._pg_arrays) arrive as the same values
psycopg's own list adaptation sends: every element type the saver uses, NULLs, empty arrays,
Korean text and large blobs."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from graphagents._pg_arrays import BoolArray, ByteaArray, Int4Array, TextArray

pytestmark = pytest.mark.postgres

CASES: list[tuple[Any, list[Any], str]] = [
    (TextArray, ["slots", "전화번호", "", "a,b{c}\"d\\"], "text[]"),
    (TextArray, ["x", None, "y"], "text[]"),
    (TextArray, [], "text[]"),
    (ByteaArray, [b"\x00\x01\xff", b"", bytes(range(256)) * 300], "bytea[]"),
    (ByteaArray, [None, b"msgpack"], "bytea[]"),
    (Int4Array, [0, -1, 2**31 - 1, -(2**31), 7], "int4[]"),
    (Int4Array, [], "int4[]"),
    (BoolArray, [True, False, True], "bool[]"),
]


@pytest.mark.parametrize(("array", "items", "sql_type"), CASES)
def test_a_packed_array_is_the_array_psycopg_would_send(pg_database: str, array: Any, items: list[Any],
                                                        sql_type: str) -> None:
    with psycopg.connect(pg_database, autocommit=True) as conn:
        packed, listed = conn.execute(f"SELECT %s::{sql_type}, %s::{sql_type}", (array(items), items)).fetchone()
        assert packed == listed
        assert conn.execute(f"SELECT %s::{sql_type} IS NOT DISTINCT FROM %s::{sql_type}",
                            (array(items), items)).fetchone() == (True,)
        count = conn.execute(f"SELECT count(*) FROM unnest(%s::{sql_type})", (array(items),)).fetchone()
        assert count == (len(items),)


def test_columns_unnest_side_by_side(pg_database: str) -> None:
    with psycopg.connect(pg_database, autocommit=True) as conn:
        rows = conn.execute("SELECT * FROM unnest(%s::text[], %s::int4[], %s::bytea[], %s::bool[])",
                            (TextArray(["a", "나"]), Int4Array([1, 2]), ByteaArray([b"x", None]),
                             BoolArray([False, True]))).fetchall()
    assert rows == [("a", 1, b"x", False), ("나", 2, None, True)]
