"""``graphagents tableqa ...``: agent-specific commands."""

from __future__ import annotations

from typing import Annotated

import typer

app = typer.Typer(no_args_is_help=True)


@app.command("tables")
def tables_command(
    sources: Annotated[list[str], typer.Argument(help="table files or URLs (file.csv, db.sqlite#t, postgresql://...#t)")],
) -> None:
    """Load tables the way the agent will, and show their names, shapes and column types."""
    from rich.console import Console
    from rich.table import Table

    from .tables import load_sources

    console = Console()
    for table in load_sources(sources):
        view = Table(title=f"{table.name}: {len(table.frame)} rows x {table.frame.shape[1]} columns ({table.source})")
        view.add_column("column")
        view.add_column("type")
        view.add_column("first values")
        for column in table.frame.columns:
            first = ", ".join(str(v) for v in table.frame[column].head(3).tolist())
            view.add_row(str(column), str(table.frame[column].dtype), first[:60])
        console.print(view)
