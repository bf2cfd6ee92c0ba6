"""``graphagents text2sql ...``: agent-specific commands (the demo data, a read-only role)."""

from __future__ import annotations

from typing import Annotated

import typer

from graphagents.settings import get_settings
from graphagents.store import POSTGRES_PREFIXES

app = typer.Typer(help="Text-to-SQL agent commands.", no_args_is_help=True)


@app.command("load-demo")
def load_demo(
    db: Annotated[str | None, typer.Option("--db", help="postgresql://... or sqlite:///file.db "
                                           "(default: the demo SQLite under DATA_DIR)")] = None,
) -> None:
    """Load the demo retail database into PostgreSQL (creating the database if needed), or build the SQLite file."""
    from .demo import build_sqlite, demo_sqlite_path, load_postgres

    if db and db.startswith(POSTGRES_PREFIXES):
        counts = load_postgres(db)
        total = sum(counts.values())
        typer.echo(f"loaded {total} rows into {len(counts)} tables: "
                   + ", ".join(f"{t}={n}" for t, n in counts.items()))
        typer.echo(f"next: graphagents text2sql create-role --db {db}   (a role that can only read it)")
        return
    if db:
        path = build_sqlite(db.removeprefix("sqlite:///"))
    else:
        path = demo_sqlite_path(get_settings().data_dir)
    typer.echo(str(path))


@app.command("create-role")
def create_role(
    db: Annotated[str, typer.Option("--db", help="postgresql://OWNER@host/dbname: the owner's or an admin's URL")],
    role: Annotated[str, typer.Option(help="name of the login role to create or update")] = "graphagents_reader",
    schema: Annotated[str, typer.Option(help="the schema whose tables the role may read")] = "public",
    password: Annotated[str | None, typer.Option(help="password to set (default: a new random one for a new "
                                                       "role; an existing role keeps its own)")] = None,
) -> None:
    """Create (idempotently) a login role with only SELECT on one schema, and print the URL to use."""
    from graphagents.errors import UsageError

    from .readonly_role import create_readonly_role

    if not db.startswith(POSTGRES_PREFIXES):
        raise UsageError("create-role needs a PostgreSQL URL (postgresql://user@host/dbname); "
                         "a SQLite file is opened read-only already")
    made = create_readonly_role(db, role=role, schema=schema, password=password)
    verb = "created" if made.created else "updated"
    typer.echo(f"{verb} role {made.name!r}: LOGIN, SELECT on the tables of schema {made.schema!r}, nothing else")
    if not made.password_set:
        typer.echo("its password was left as it was (pass --password to set one); add it to the URL if the "
                   "server asks for one", err=True)
    typer.echo(made.url)
