"""``graphagents slotfill schema`` and ``graphagents slotfill validate FILE`` (``-`` reads stdin)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from .scenario import Scenario, ScenarioError, json_schema, load_scenario, parse_scenario_text


def make_cli() -> typer.Typer:
    app = typer.Typer(help="Scenario files of the slotfill agent.", no_args_is_help=True)

    @app.command()
    def schema() -> None:
        """Print the JSON Schema of scenario files."""
        print(json.dumps(json_schema(), ensure_ascii=False, indent=2))

    @app.command()
    def validate(file: Annotated[str, typer.Argument(help="scenario file (.json, .yaml), or - for stdin")]) -> None:
        """Check a scenario file; on failure print one line with the JSON path and the reason."""
        try:
            sc: Scenario = (parse_scenario_text(sys.stdin.read(), "<stdin>") if file == "-"
                            else load_scenario(Path(file)))
        except ScenarioError as exc:
            typer.echo(f"invalid: {exc}", err=True)
            raise typer.Exit(1) from None
        typer.echo(f"ok: {sc.name!r}: {len(sc.stages)} stages, {len(sc.slots)} slots, "
                   f"{len(sc.info_groups)} info groups")

    return app
