"""``graphagents rag ...``: ingest documents into the agent's corpus; see or clear a user's profile."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(no_args_is_help=True)
profile_app = typer.Typer(no_args_is_help=True, help="a user's health profile (what the agent remembers)")
app.add_typer(profile_app, name="profile")


@app.command("ingest")
def ingest_command(
    paths: Annotated[list[Path], typer.Argument(help="files or folders (.jsonl, .md, .txt, .pdf)")],
    store_url: Annotated[str | None, typer.Option(help="unset = embedded store; postgresql://... = pgvector")] = None,
    store_name: Annotated[str, typer.Option(help="the store the agent searches (agent option store_name)")] =
        "rag_medical",
) -> None:
    """Add documents to the agent's corpus (idempotent: unchanged files are skipped)."""
    from graphagents.errors import InputError
    from graphagents.retrieval import ingest, open_store

    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise InputError(f"not found: {', '.join(missing)}")
    with open_store(store_url, store_name) as store:
        report = ingest(paths, store)
        typer.echo(f"{store_name}: {len(store)} passages; {report.files} file(s) read, {report.skipped} unchanged; "
                   f"{report.added} added, {report.updated} updated, {report.deleted} deleted, "
                   f"{report.unchanged} unchanged passages in {report.seconds:.1f} s")


@profile_app.command("show")
def profile_show(user: Annotated[str, typer.Option("--user", help="user id")],
                 as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False) -> None:
    """Print what the agent remembers about a user."""
    from .routes_data import profile_payload

    data = profile_payload(user)
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    typer.echo(f"{user}: {data['summary'] or '(empty profile)'}")
    for slot, value in data["profile"].items():
        if value:
            typer.echo(f"  {slot}: {json.dumps(value, ensure_ascii=False)}")


@profile_app.command("clear")
def profile_clear(user: Annotated[str, typer.Option("--user", help="user id")]) -> None:
    """Forget a user's profile and cached answers."""
    from .routes_data import clear_profile

    removed = clear_profile(user)
    typer.echo(f"{user}: profile cleared ({removed} item(s) removed)")
