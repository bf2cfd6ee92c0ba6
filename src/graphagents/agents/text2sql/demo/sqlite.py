"""Build the demo database as a SQLite file, and cache it between runs."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from graphagents.store import building_sqlite, sqlite_stamp

from .generate import demo_data
from .schema import TABLES, create_index_sql, create_table_sql

DEMO_SQLITE_NAME = "text2sql_demo.sqlite"
_COMMENTS_DDL = "CREATE TABLE _comments (table_name TEXT NOT NULL, column_name TEXT, comment TEXT NOT NULL)"


def data_stamp() -> int:
    """A fingerprint of the generator and schema sources, kept in ``PRAGMA user_version``.

    Any edit to either file changes the stamp, so a cached file built by older code is rebuilt
    instead of silently disagreeing with the PostgreSQL copy or the gold answers.
    """
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for name in ("schema.py", "generate.py"):
        digest.update((here / name).read_bytes())
    return int(digest.hexdigest()[:7], 16)  # 28 bits: fits SQLite's signed 32-bit user_version


def build_sqlite(path: str | os.PathLike[str]) -> Path:
    """Write the demo database to ``path``, replacing whatever is there.

    The file is built under a temporary name and renamed into place, so a reader (or a second
    builder in another process) never sees a half-written database.
    """
    target = Path(path)
    data = demo_data()
    with building_sqlite(target, data_stamp()) as con:
        con.execute("PRAGMA journal_mode = OFF")
        con.execute("PRAGMA synchronous = OFF")
        for table in TABLES:
            con.execute(create_table_sql(table))
            marks = ", ".join("?" * len(table.columns))
            con.executemany(f"INSERT INTO {table.name} VALUES ({marks})", data[table.name])
            for column in table.indexes:
                con.execute(create_index_sql(table, column))
        con.execute(_COMMENTS_DDL)
        comments: list[tuple[str, str | None, str]] = []
        for table in TABLES:
            comments.append((table.name, None, table.comment))
            comments.extend((table.name, c.name, c.comment) for c in table.columns)
        con.executemany("INSERT INTO _comments VALUES (?, ?, ?)", comments)
        con.commit()
        con.execute("ANALYZE")
    return target


def demo_sqlite_path(data_dir: str | os.PathLike[str]) -> Path:
    """Path of the cached demo database under ``data_dir``; built on first use or after a code change."""
    path = Path(data_dir) / DEMO_SQLITE_NAME
    if path.is_file() and sqlite_stamp(path) == data_stamp():
        return path
    return build_sqlite(path)
