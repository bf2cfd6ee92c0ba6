"""Console rendering of events and replies (rich), kept apart from the command definitions."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table

from ..events import Event, FinalEvent, TokenEvent

console = Console()
err_console = Console(stderr=True)


class LiveRenderer:
    """Prints tokens as they arrive (reasoning dimmed), then tool/decision lines, then the reply."""

    def __init__(self, *, verbose: bool = True) -> None:
        self.verbose = verbose
        self.section: str | None = None
        self.streamed_reply = ""

    def __call__(self, event: Event) -> None:
        if isinstance(event, TokenEvent):
            if event.section != self.section:
                if self.section is not None:
                    console.print()
                if event.section != "reply":
                    console.print(f"[dim]{event.section}:[/dim] ", end="")
                self.section = event.section
            style = "dim" if event.section in {"reasoning", "observation"} else None
            console.print(event.text, end="", style=style, markup=False, highlight=False)
            if event.section in {"reply", "user_facing"}:
                self.streamed_reply += event.text
            return
        if self.section is not None:
            console.print()
            self.section = None
        if isinstance(event, FinalEvent):
            render_final(event, already_streamed=self.streamed_reply.strip() == event.text.strip())
            self.streamed_reply = ""
            return
        if self.verbose:
            data = event.to_dict()
            kind = data.pop("type")
            if kind == "error":
                console.print(f"[red]error:[/red] {data['message']}", markup=True, highlight=False)
            elif kind != "step":
                console.print(f"[dim]· {kind} {json.dumps(data, ensure_ascii=False)[:300]}[/dim]", highlight=False)


def render_final(event: FinalEvent, *, already_streamed: bool = False) -> None:
    state = event.state
    sql = state.get("sql")
    if isinstance(sql, str) and sql:
        console.print(Syntax(sql, "sql", word_wrap=True))
    table = state.get("table")
    if isinstance(table, dict) and table.get("columns"):
        console.print(result_table(table))
    if not already_streamed:
        console.print(f"[bold]{_escape(event.text)}[/bold]")


def result_table(table: dict[str, Any], max_rows: int = 20) -> Table:
    out = Table(show_lines=False)
    for col in table["columns"]:
        out.add_column(str(col))
    rows = table.get("rows", [])
    for row in rows[:max_rows]:
        out.add_row(*("" if v is None else str(v) for v in row))
    if len(rows) > max_rows:
        out.caption = f"{len(rows)} rows, first {max_rows} shown"
    return out


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
