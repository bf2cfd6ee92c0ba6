"""Load the demo database into PostgreSQL, from the same generator as the SQLite file."""

from __future__ import annotations

import re
import shlex
from typing import Any

from graphagents.errors import MissingExtraError, ServiceUnavailableError, UsageError, redact_url

from .generate import demo_data
from .schema import TABLES, create_index_sql, create_table_sql, foreign_key_sql


def psycopg_module() -> Any:
    """psycopg, or a one-line error naming the extra that brings it."""
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingExtraError(
            "PostgreSQL support needs psycopg: install it with `pip install 'graphagents[postgres]'`"
        ) from exc
    return psycopg


_SERVER_DOWN = re.compile(r"connection refused|no such file or directory|timeout expired|could not translate host"
                          r"|network is unreachable|no route to host|server closed the connection", re.I)
_MISSING_DATABASE = re.compile(r'database "([^"]+)" does not exist')


class MissingDatabaseError(ServiceUnavailableError):
    """The server answered, but the database named in the URL does not exist on it."""

    def __init__(self, message: str, *, name: str, createdb: str) -> None:
        super().__init__(message)
        self.name = name
        self.createdb = createdb


def connect(url: str, **kwargs: Any) -> Any:
    """A psycopg connection; a failure is one line that says what to do about it.

    Only a server that cannot be reached gets the "is it running?" hint; a missing database gets
    the exact ``createdb`` command (:class:`MissingDatabaseError`), a refused login its own cause.
    """
    psycopg = psycopg_module()
    try:
        return psycopg.connect(url, **kwargs)
    except psycopg.OperationalError as exc:
        raise connection_error(url, exc) from exc


def connection_error(url: str, exc: BaseException) -> ServiceUnavailableError:
    text = " ".join(str(exc).split())
    cause = text.rsplit(" failed: ", 1)[-1].removeprefix("FATAL: ").strip() or type(exc).__name__
    where = f"cannot connect to PostgreSQL at {redact_url(url)!r}"
    if missing := _MISSING_DATABASE.search(text):
        command = createdb_command(url)
        return MissingDatabaseError(f"{where}: database {missing[1]!r} does not exist; create it with `{command}`",
                                    name=missing[1], createdb=command)
    if _SERVER_DOWN.search(text):
        return ServiceUnavailableError(f"{where}: {cause.split(' Is the server')[0]}; is the server running? "
                                       "Start it (e.g. `sudo service postgresql start`) or pass another URL")
    return ServiceUnavailableError(f"{where}: {cause}")


def url_parts(url: str) -> dict[str, str]:
    """host, port, user, dbname (and password) of a libpq URL, with libpq's defaults left out."""
    from psycopg.conninfo import conninfo_to_dict

    return {k: str(v) for k, v in conninfo_to_dict(url).items() if v is not None}


def createdb_command(url: str) -> str:
    parts = url_parts(url)
    args = ["createdb"]
    for flag, key in (("-h", "host"), ("-p", "port"), ("-U", "user")):
        if parts.get(key):
            args += [flag, shlex.quote(parts[key])]
    return " ".join([*args, shlex.quote(parts.get("dbname", ""))])


def create_database(url: str) -> None:
    """CREATE DATABASE for the URL's database, connected to the server's ``postgres`` database."""
    psycopg = psycopg_module()
    from psycopg import sql
    from psycopg.conninfo import make_conninfo

    name = url_parts(url).get("dbname", "")
    maintenance = make_conninfo(url, dbname="postgres")
    with connect(maintenance, autocommit=True) as conn:
        try:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        except psycopg.errors.DuplicateDatabase:
            return  # created meanwhile by someone else: what we wanted
        except psycopg.Error as exc:
            first = str(exc).strip().splitlines()[0]
            raise ServiceUnavailableError(
                f"database {name!r} does not exist and could not be created ({first}); "
                f"create it with `{createdb_command(url)}`"
            ) from exc


def load_postgres(url: str, *, schema: str = "public", drop_existing: bool = True) -> dict[str, int]:
    """Create the demo tables in ``schema`` of the database at ``url`` and fill them; return row counts.

    A database that does not exist yet is created first (or the error says the ``createdb`` to run).

    Everything runs in one transaction, so a failed load leaves the schema as it was. With
    ``drop_existing=False`` an existing demo table is an error rather than a silent skip, because
    stale rows would make gold answers disagree with SQLite.
    """
    psycopg = psycopg_module()
    try:
        conn = connect(url)
    except MissingDatabaseError:
        create_database(url)
        conn = connect(url)
    from psycopg import sql

    counts: dict[str, int] = {}
    with conn, conn.cursor() as cur:
        cur.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        cur.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(schema)))
        if drop_existing:
            for table in reversed(TABLES):
                cur.execute(sql.SQL("DROP TABLE IF EXISTS {} CASCADE").format(sql.Identifier(table.name)))
        for table in TABLES:
            try:
                cur.execute(create_table_sql(table, foreign_keys=False))
            except psycopg.errors.DuplicateTable as exc:
                raise UsageError(
                    f"table {table.name!r} already exists in schema {schema!r}; "
                    "pass drop_existing=True to replace the demo tables"
                ) from exc
        data = demo_data()  # only now: a refused or unreachable load should fail fast
        for table in TABLES:
            columns = sql.SQL(", ").join(sql.Identifier(c) for c in table.column_names)
            copy_sql = sql.SQL("COPY {} ({}) FROM STDIN").format(sql.Identifier(table.name), columns)
            with cur.copy(copy_sql) as copy:
                for row in data[table.name]:
                    copy.write_row(row)
            counts[table.name] = len(data[table.name])
        for table in TABLES:
            for column in table.indexes:
                cur.execute(create_index_sql(table, column))
            for statement in foreign_key_sql(table):
                cur.execute(statement)
            comment = sql.SQL("COMMENT ON TABLE {} IS {}")
            cur.execute(comment.format(sql.Identifier(table.name), sql.Literal(table.comment)))
            for col in table.columns:
                target = sql.Identifier(table.name, col.name)
                cur.execute(sql.SQL("COMMENT ON COLUMN {} IS {}").format(target, sql.Literal(col.comment)))
            cur.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(table.name)))
    conn.close()
    return counts
