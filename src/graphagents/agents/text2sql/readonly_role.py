"""A login role that can only read one schema: what the text2sql agent should connect as.

The agent's own locks (the guard and the read-only transaction) stop writes, but a superuser can
still read server files and other databases through functions the guard might not know yet. A
role with nothing but ``SELECT`` on the tables of one schema makes the database itself the last
lock. ``graphagents text2sql create-role --db URL`` runs :func:`create_readonly_role` with the URL
of the database owner (or an admin) and prints the URL the agent should use instead.

Idempotent: run again, the role ends with the same rights (new tables of the schema included, and
anything more than ``SELECT`` taken back); its password changes only when one is given.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from urllib.parse import quote

from graphagents.errors import ServiceUnavailableError, UsageError
from graphagents.sql import connect, psycopg_module, url_parts

__all__ = ["DEFAULT_ROLE", "ReadOnlyRole", "create_readonly_role", "readonly_url"]

DEFAULT_ROLE = "graphagents_reader"
_ATTRIBUTES = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"


@dataclass(frozen=True)
class ReadOnlyRole:
    name: str
    schema: str
    url: str  # what to pass as --db; holds the password when this run set one
    created: bool
    password_set: bool


def create_readonly_role(admin_url: str, *, role: str = DEFAULT_ROLE, schema: str = "public",
                         password: str | None = None) -> ReadOnlyRole:
    """Create or update ``role`` with LOGIN and SELECT on every table of ``schema``, nothing else."""
    psycopg = psycopg_module()
    from psycopg import sql

    dbname = url_parts(admin_url).get("dbname", "")
    with connect(admin_url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", [schema]).fetchone():
            raise UsageError(f"schema {schema!r} does not exist in database {dbname!r}; pass --schema")
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role]).fetchone() is not None
        if not exists and password is None:
            password = secrets.token_urlsafe(18)
        r, s = sql.Identifier(role), sql.Identifier(schema)
        statements = [
            sql.SQL("ALTER ROLE {} " + _ATTRIBUTES).format(r) if exists
            else sql.SQL("CREATE ROLE {} " + _ATTRIBUTES).format(r),
            *([sql.SQL("ALTER ROLE {} PASSWORD {}").format(r, sql.Literal(password))] if password else []),
            sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(r),
            sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(dbname), r),
            sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(s, r),
            sql.SQL("REVOKE CREATE ON SCHEMA {} FROM {}").format(s, r),
            sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA {} FROM {}").format(s, r),
            sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA {} FROM {}").format(s, r),
            sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(s, r),
            sql.SQL("ALTER DEFAULT PRIVILEGES IN SCHEMA {} GRANT SELECT ON TABLES TO {}").format(s, r),
        ]
        try:
            with conn.transaction():
                for statement in statements:
                    conn.execute(statement)
        except psycopg.errors.InsufficientPrivilege as exc:
            first = str(exc).strip().splitlines()[0]
            raise ServiceUnavailableError(
                f"the role in --db cannot set up {role!r} ({first}); run create-role with the URL of the "
                "database owner or a role with CREATEROLE"
            ) from exc
    return ReadOnlyRole(role, schema, readonly_url(admin_url, role, password), not exists, password is not None)


def readonly_url(admin_url: str, role: str, password: str | None) -> str:
    """The admin URL's server and database, with ``role`` (and its password) as the user."""
    parts = url_parts(admin_url)
    auth = quote(role, safe="") + (f":{quote(password, safe='')}" if password else "")
    host = parts.get("host", "localhost")
    host = f"[{host}]" if ":" in host else host
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{auth}@{host}{port}/{quote(parts.get('dbname', ''), safe='')}"
