"""``text2sql create-role`` and ``load-demo --db`` against the real local PostgreSQL.

Every database and role made here has a unique name and is dropped at the end: other engineers
run their tests on the same server at the same time.
"""

from __future__ import annotations

import logging
import socket
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit, urlunsplit

import pytest
from t2s_helpers import temporary_pg_database
from typer.testing import CliRunner

from graphagents.agents.text2sql.cli import app
from graphagents.agents.text2sql.demo.postgres import load_postgres
from graphagents.agents.text2sql.readonly_role import readonly_url
from graphagents.errors import ServiceUnavailableError
from graphagents.sql import MissingDatabaseError, connect, open_database

pytestmark = pytest.mark.postgres
runner = CliRunner()


@pytest.fixture()
def shop_db(pg_admin_url: str) -> Iterator[str]:
    import psycopg

    with temporary_pg_database(pg_admin_url, "gg_t2s_role") as url:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE items (id INT PRIMARY KEY, name TEXT); INSERT INTO items VALUES (1, 'a')")
        yield url


@pytest.fixture()
def role_name(shop_db: str, pg_admin_url: str) -> Iterator[str]:
    """A unique role name; the role's grants in ``shop_db`` and the role itself are dropped afterwards."""
    import psycopg

    name = f"gg_t2s_reader_{uuid.uuid4().hex[:10]}"
    yield name
    with psycopg.connect(pg_admin_url, autocommit=True) as admin:
        if not admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [name]).fetchone():
            return
    with psycopg.connect(shop_db, autocommit=True) as owner:
        owner.execute(f'DROP OWNED BY "{name}"')  # its grants here and on the database itself
    with psycopg.connect(pg_admin_url, autocommit=True) as admin:
        admin.execute(f'DROP ROLE "{name}"')


def _as_role(url: str, role: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"{role}@{parts.hostname}:{parts.port or 5432}"))


def test_create_role_grants_select_only_and_is_idempotent(shop_db: str, role_name: str) -> None:
    import psycopg

    first = runner.invoke(app, ["create-role", "--db", shop_db, "--role", role_name])
    assert first.exit_code == 0, first.output
    assert f"created role {role_name!r}" in first.output
    printed = first.output.strip().splitlines()[-1]
    assert printed.startswith(f"postgresql://{role_name}:") and printed.endswith(urlsplit(shop_db).path)
    with psycopg.connect(printed) as conn:
        assert conn.execute("SELECT name FROM items").fetchall() == [("a",)]
        assert conn.execute("SHOW default_transaction_read_only").fetchone() == ("on",)
    with psycopg.connect(printed, autocommit=True) as conn:  # grants, not just the read-only default
        conn.execute("SET default_transaction_read_only = off")
        for write in ("INSERT INTO items VALUES (2, 'b')", "CREATE TABLE mine (x INT)", "TRUNCATE items"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(write)
    with psycopg.connect(shop_db, autocommit=True) as owner:  # the owner over-grants, then adds a table
        owner.execute(f'GRANT INSERT ON items TO "{role_name}"')
        owner.execute("CREATE TABLE later (id INT)")
    again = runner.invoke(app, ["create-role", "--db", shop_db, "--role", role_name])
    assert again.exit_code == 0 and f"updated role {role_name!r}" in again.output
    assert "password was left as it was" in again.output
    assert again.output.strip().splitlines()[-1] == readonly_url(shop_db, role_name, None)
    with psycopg.connect(printed, autocommit=True) as conn:  # the first password still works
        conn.execute("SET default_transaction_read_only = off")
        assert conn.execute("SELECT count(*) FROM later").fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO items VALUES (3, 'c')")


def test_superuser_warning_names_create_role(shop_db: str, role_name: str,
                                             caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING), open_database(shop_db) as db:
        assert db.superuser
    assert "graphagents text2sql create-role --db" in caplog.text
    made = runner.invoke(app, ["create-role", "--db", shop_db, "--role", role_name, "--password", "s3cret/+x"])
    assert made.exit_code == 0, made.output
    url = made.output.strip().splitlines()[-1]
    assert ":s3cret%2F%2Bx@" in url
    caplog.clear()
    with caplog.at_level(logging.WARNING), open_database(url) as db:
        assert not db.superuser and db.fetch("SELECT id FROM items").rows == [(1,)]
    assert "superuser" not in caplog.text


def test_create_role_refuses_sqlite_and_missing_schema(shop_db: str, role_name: str) -> None:
    sqlite = runner.invoke(app, ["create-role", "--db", "sqlite:///x.db"])
    assert sqlite.exit_code != 0
    missing = runner.invoke(app, ["create-role", "--db", shop_db, "--role", role_name, "--schema", "nope"])
    assert missing.exit_code != 0 and "schema 'nope' does not exist" in str(missing.exception)


def test_load_demo_creates_a_missing_database(pg_admin_url: str) -> None:
    import psycopg

    name = f"gg_t2s_demo_{uuid.uuid4().hex[:10]}"
    url = urlunsplit(urlsplit(pg_admin_url)._replace(path=f"/{name}"))
    try:
        result = runner.invoke(app, ["load-demo", "--db", url])
        assert result.exit_code == 0, result.output
        assert "loaded" in result.output and "create-role --db" in result.output
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT count(*) FROM customers").fetchone() == (5000,)
    finally:
        with psycopg.connect(pg_admin_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def test_missing_database_that_cannot_be_created_names_createdb(shop_db: str, role_name: str) -> None:
    made = runner.invoke(app, ["create-role", "--db", shop_db, "--role", role_name, "--password", "pw"])
    assert made.exit_code == 0, made.output
    reader = made.output.strip().splitlines()[-1]
    missing = urlunsplit(urlsplit(reader)._replace(path=f"/gg_t2s_none_{uuid.uuid4().hex[:8]}"))
    with pytest.raises(ServiceUnavailableError) as info:
        load_postgres(missing)  # the reader may not CREATE DATABASE
    message = str(info.value)
    assert f"`createdb -h {urlsplit(reader).hostname}" in message and f"-U {role_name}" in message
    assert "server running" not in message


def test_server_down_hint_only_when_the_server_is_down(pg_admin_url: str) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free_port = s.getsockname()[1]  # nothing listens once the socket closes
    down = urlunsplit(urlsplit(pg_admin_url)._replace(netloc=f"postgres@127.0.0.1:{free_port}"))
    with pytest.raises(ServiceUnavailableError, match="is the server running"):
        connect(down, connect_timeout=3)
    absent = urlunsplit(urlsplit(pg_admin_url)._replace(path=f"/gg_t2s_none_{uuid.uuid4().hex[:8]}"))
    with pytest.raises(MissingDatabaseError) as info:
        connect(absent)
    assert "server running" not in str(info.value) and "createdb" in str(info.value)
    wrong_user = _as_role(pg_admin_url, f"gg_t2s_nobody_{uuid.uuid4().hex[:6]}")
    with pytest.raises(ServiceUnavailableError) as info2:
        connect(wrong_user)
    assert "server running" not in str(info2.value) and "does not exist" in str(info2.value)
