"""``graphagents text2sql ...``: agent-specific commands (loading the demo data)."""

from __future__ import annotations

from typing import Annotated

import typer

from graphagents.settings import get_settings

app = typer.Typer(help="Text-to-SQL agent commands.", no_args_is_help=True)


@app.command("load-demo")
def load_demo(
    db: Annotated[str | None, typer.Option("--db", help="postgresql://... or sqlite:///file.db "
                                           "(default: the demo SQLite under DATA_DIR)")] = None,
) -> None:
    """Load the demo retail database into PostgreSQL, or build the demo SQLite file."""
    from .demo import build_sqlite, demo_sqlite_path, load_postgres

    if db and db.startswith(("postgresql://", "postgres://")):
        counts = load_postgres(db)
        total = sum(counts.values())
        typer.echo(f"loaded {total} rows into {len(counts)} tables: "
                   + ", ".join(f"{t}={n}" for t, n in counts.items()))
        return
    if db:
        path = build_sqlite(db.removeprefix("sqlite:///"))
    else:
        path = demo_sqlite_path(get_settings().data_dir)
    typer.echo(str(path))
