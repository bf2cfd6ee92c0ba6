"""Connecting to PostgreSQL with errors that say what to do: a server that is down, a database that
does not exist (with the exact ``createdb`` to run), a refused login. Loaders (text2sql's demo,
supervisor's transactions, the defog benchmark) and the read-only reader share these."""

from __future__ import annotations

import re
import shlex
from typing import Any

from ..errors import MissingExtraError, ServiceUnavailableError, redact_url

__all__ = ["MissingDatabaseError", "connect", "connection_error", "create_database", "createdb_command",
           "psycopg_module", "url_parts"]


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
