"""``graphagents supervisor ...``: loading the transactions into a database, showing the data set."""

from __future__ import annotations

from typing import Annotated

import typer

from graphagents.settings import get_settings

app = typer.Typer(help="Real-estate supervisor commands.", no_args_is_help=True)


@app.command("load-data")
def load_data(
    db: Annotated[str | None, typer.Option("--db", help="postgresql://... (default: the SQLite file under DATA_DIR)")]
    = None,
    data: Annotated[str | None, typer.Option(help="the real-estate dataset folder (default: found above the repo)")]
    = None,
) -> None:
    """Build the synthetic transactions database (SQLite), or load it into PostgreSQL."""
    from pathlib import Path

    from . import data as dataset

    root = dataset.find_dataset(data)
    if db and db.startswith(("postgresql://", "postgres://")):
        n = dataset.load_transactions_postgres(db, root)
        typer.echo(f"loaded {n} synthetic rows into {dataset.TABLE}; use -o market_db={db} -o market_synthetic=true")
        return
    typer.echo(str(dataset.transactions_sqlite(root, Path(get_settings().data_dir))))
