"""Versioned tables (graphagents.store.migrate): each step once, in order, on SQLite and PostgreSQL;
tables made before versioning are adopted; the session, upload, memory and record tables use it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from graphagents.store import Database, SqliteDatabase, migrate, open_database, schema_version


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        database: Database = SqliteDatabase(tmp_path / "app.db")
    else:
        database = open_database(request.getfixturevalue("pg_database"))
    try:
        yield database
    finally:
        database.close()


def test_steps_run_once_in_order_and_the_version_is_recorded(db: Database) -> None:
    calls: list[int] = []
    steps = [
        ["CREATE TABLE IF NOT EXISTS things (id TEXT PRIMARY KEY)"],
        lambda d: calls.append(2) or d.execute("ALTER TABLE things ADD COLUMN size INTEGER"),
    ]
    assert migrate(db, "things", steps) == 2
    assert schema_version(db, "things") == 2
    db.execute("INSERT INTO things (id, size) VALUES (?, ?)", ("a", 3))
    # a second process opening the same database (a new handle: no per-process cache) applies nothing
    assert migrate(db, "things", steps) == 2
    assert calls == [2]
    # a release that adds a step applies only the new one
    steps.append(["CREATE INDEX IF NOT EXISTS things_size ON things (size)"])
    assert migrate(db, "things", steps) == 3
    assert calls == [2]
    assert db.fetchall("SELECT id, size FROM things") == [("a", 3)]


def test_a_new_handle_reads_the_recorded_version_instead_of_rerunning(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    steps = [["CREATE TABLE things (id TEXT PRIMARY KEY)"]]  # no IF NOT EXISTS: a rerun would fail
    first = SqliteDatabase(path)
    migrate(first, "things", steps)
    first.close()
    second = SqliteDatabase(path)
    assert migrate(second, "things", steps) == 1
    second.close()


def test_a_step_that_fails_is_not_recorded_and_raises(db: Database) -> None:
    steps = [["CREATE TABLE IF NOT EXISTS things (id TEXT PRIMARY KEY)"], ["ALTER TABLE nowhere ADD COLUMN x INTEGER"]]
    with pytest.raises(Exception, match="nowhere"):
        migrate(db, "things", steps)
    assert schema_version(db, "things") == 1


def test_sessions_adopt_a_table_from_before_user_ids(tmp_path: Path) -> None:
    from graphagents._sessions import SessionStore

    db = SqliteDatabase(tmp_path / "app.db")
    db.execute("CREATE TABLE ga_sessions (agent TEXT NOT NULL, session_id TEXT NOT NULL, options TEXT NOT NULL,"
               " created_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (agent, session_id))")
    db.execute("INSERT INTO ga_sessions VALUES ('slotfill', 's1', '{}', 1.0)")
    store = SessionStore(db)
    assert schema_version(db, "sessions") == 2
    assert [r.session_id for r in store.for_user("anonymous")] == ["s1"]
    store.create("rag", "s2", {}, "alice")
    assert [r.session_id for r in store.for_user("alice")] == ["s2"]
    db.close()


def test_agent_record_tables_are_versioned(db: Database) -> None:
    from graphagents.agents.slotfill.records import load_application, save_application
    from graphagents.agents.tableqa.uploads import Uploads
    from graphagents.agents.text2sql.memory import ensure_table

    ensure_table(db)
    assert schema_version(db, "text2sql.query_memory") == 1
    save_application(db, "sf_applications", "sess-1", "bank", {"name": "홍길동"})
    assert schema_version(db, "slotfill.records.sf_applications") == 1
    assert load_application(db, "sf_applications", "sess-1")["slots"] == {"name": "홍길동"}
    Uploads(db)
    assert schema_version(db, "tableqa.uploads") == 1
