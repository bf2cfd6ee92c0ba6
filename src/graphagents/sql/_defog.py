"""Create the defog-data benchmark databases on a PostgreSQL server.

The ``defog-data`` package ships each database as a plain-SQL ``pg_dump`` file (``SET`` lines,
``CREATE TABLE``, ``ALTER TABLE``, and ``COPY ... FROM stdin`` blocks ended by ``\\.``). We replay it
with psycopg rather than shelling out to ``psql``: one code path that works wherever psycopg does,
inside one transaction so an interrupted load leaves an empty database that the next call refills.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from graphagents.errors import MissingExtraError, UsageError
from graphagents.store import POSTGRES_PREFIXES

from ._connect import connect, psycopg_module
from ._questions import Question, load_questions
from ._sqltext import ends_statement

DEFAULT_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
_COPY_FROM_STDIN = re.compile(r"^\s*COPY\s.+\sFROM\s+stdin\s*;\s*$", re.IGNORECASE | re.DOTALL)
_LOCK_NAMESPACE = "graphagents.defog_loader."


def _defog_root() -> Traversable:
    try:
        return resources.files("defog_data")
    except ModuleNotFoundError as exc:
        raise MissingExtraError(
            "the defog databases come from the defog-data package: `pip install 'graphagents[defog]'`"
        ) from exc


def available_defog_databases() -> list[str]:
    """Names of the databases the installed defog-data package has a dump for."""
    root = _defog_root()
    return sorted(d.name for d in root.iterdir() if d.is_dir() and d.joinpath(f"{d.name}.sql").is_file())


def defog_dump_sql(db_name: str) -> str:
    """The text of ``defog_data/<db_name>/<db_name>.sql``."""
    names = available_defog_databases()
    if db_name not in names:
        raise UsageError(f"unknown defog database {db_name!r}; choose one of {', '.join(names)}")
    return _defog_root().joinpath(db_name, f"{db_name}.sql").read_text(encoding="utf-8")


def iter_dump(text: str) -> Iterator[tuple[str, str | None]]:
    """Yield ``(statement, copy_data)`` pairs from a plain pg_dump; ``copy_data`` is set for COPY.

    psql meta-commands (lines starting with a backslash, e.g. ``\\restrict`` in newer dumps) only
    make sense to psql and are skipped.
    """
    lines = text.splitlines(keepends=True)
    buf: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not buf and (not line.strip() or line.lstrip().startswith("--") or line.startswith("\\")):
            continue
        buf.append(line)
        statement = "".join(buf)
        if not ends_statement(statement):
            continue
        buf = []
        if not _COPY_FROM_STDIN.match(statement):
            yield statement.strip(), None
            continue
        data: list[str] = []
        while i < len(lines) and lines[i].rstrip("\r\n") != "\\.":
            data.append(lines[i])
            i += 1
        i += 1  # the "\." terminator
        yield statement.strip(), "".join(data)
    if "".join(buf).strip():
        yield "".join(buf).strip(), None


def database_url(admin_url: str, db_name: str) -> str:
    """``admin_url`` pointed at another database (URL or key=value form)."""
    if admin_url.startswith(POSTGRES_PREFIXES):
        parts = urlsplit(admin_url)
        return urlunsplit(parts._replace(path="/" + quote(db_name)))
    from psycopg.conninfo import make_conninfo

    return make_conninfo(admin_url, dbname=db_name)


def load_defog_database(db_name: str, admin_url: str = DEFAULT_ADMIN_URL, *, recreate: bool = False) -> str:
    """Make sure database ``db_name`` exists on the server with the defog data; return its URL.

    A database that exists and already has tables is left as it is unless ``recreate``. Loaders in
    parallel processes serialise on an advisory lock, so a test run with workers loads each once.
    """
    sql_text = defog_dump_sql(db_name)  # validates db_name before it is used in any statement
    psycopg_module()
    from psycopg import sql

    target_url = database_url(admin_url, db_name)
    with connect(admin_url, autocommit=True) as admin:
        admin.execute("SELECT pg_advisory_lock(hashtext(%s))", (_LOCK_NAMESPACE + db_name,))
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (db_name,)).fetchone()
        if exists and recreate:
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(db_name)))
            exists = None
        if not exists:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db_name)))
        with connect(target_url) as conn:
            if not _has_tables(conn):
                _replay(conn, sql_text)
        admin.execute("SELECT pg_advisory_unlock(hashtext(%s))", (_LOCK_NAMESPACE + db_name,))
    return target_url


def _has_tables(conn: Any) -> bool:
    row = conn.execute(
        "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
    ).fetchone()
    conn.rollback()
    return bool(row and row[0])


def _replay(conn: Any, sql_text: str) -> None:
    with conn.transaction(), conn.cursor() as cur:
        for statement, copy_data in iter_dump(sql_text):
            if copy_data is None:
                cur.execute(statement)
                continue
            with cur.copy(statement) as copy:
                copy.write(copy_data.encode("utf-8"))


__all__ = [
    "DEFAULT_ADMIN_URL",
    "Question",
    "available_defog_databases",
    "database_url",
    "defog_dump_sql",
    "iter_dump",
    "load_defog_database",
    "load_questions",
]
