"""Built SQLite files (demo databases, bundled tables): stamped, written aside, renamed into place."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from graphagents.store import building_sqlite, sqlite_stamp


def test_a_built_file_is_stamped_and_replaces_the_old_one(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "t.sqlite"
    assert sqlite_stamp(target) is None
    with building_sqlite(target, 7) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
        con.execute("INSERT INTO t VALUES (1)")
        assert not target.exists()  # readers never see a half-built file
    assert sqlite_stamp(target) == 7
    with building_sqlite(target, 8) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    assert sqlite_stamp(target) == 8 and list(target.parent.iterdir()) == [target]


def test_a_failed_build_leaves_the_old_file_and_no_litter(tmp_path: Path) -> None:
    target = tmp_path / "t.sqlite"
    with building_sqlite(target, 1) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    with pytest.raises(sqlite3.OperationalError), building_sqlite(target, 2) as con:
        con.execute("CREATE TABLE broken (")
    assert sqlite_stamp(target) == 1 and list(tmp_path.iterdir()) == [target]
    (tmp_path / "junk.sqlite").write_bytes(b"not a database at all, just bytes" * 10)
    assert sqlite_stamp(tmp_path / "junk.sqlite") is None
