"""Console rendering of events and replies (rich), kept apart from the command definitions.

Artifacts are rendered by kind (sql, table, chart, citation, document ...), never by agent. By
default a turn prints what a user asked for: the reply, then the SQL, result table, chart,
citations and the documents written for them (a Markdown draft, rendered); ``verbose`` adds the
internals (reasoning and tool tokens, decisions, tool results, intermediate tables, retrieved
documents).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table

from ..artifacts import (
    Artifact,
    ChartArtifact,
    CitationArtifact,
    DocumentArtifact,
    IntermediateTableArtifact,
    SqlArtifact,
    TableArtifact,
)
from ..events import Event, FinalEvent, TokenEvent

console = Console()
err_console = Console(stderr=True)

ANSWER_SECTIONS = frozenset({"reply", "user_facing"})
"""Token sections written for the user (what ``streamed_reply`` collects)."""
QUIET_SECTIONS = frozenset({"reply"})
"""Token sections printed without --verbose: the reply itself. Reasoning, observations, tool calls
being written and a ReAct loop's per-step notes to the user ("user_facing") are internals there."""


def where(event: Event) -> str:
    """``[team › worker] `` for an event from a subgraph, nothing for the top graph."""
    return f"[{' › '.join(event.namespace)}] " if event.namespace else ""


class LiveRenderer:
    """Prints tokens as they arrive (reasoning dimmed), then tool/decision lines, then the reply."""

    def __init__(self, *, verbose: bool = True) -> None:
        self.verbose = verbose
        self.section: str | None = None
        self.streamed_reply = ""

    def __call__(self, event: Event) -> None:
        if isinstance(event, TokenEvent):
            if not self.verbose and event.section not in QUIET_SECTIONS:
                return
            if event.section != self.section:
                if self.section is not None:
                    console.print()
                if event.section != "reply":
                    console.print(f"[dim]{_escape(where(event))}{event.section}:[/dim] ", end="")
                self.section = event.section
            style = "dim" if event.section in {"reasoning", "observation"} else None
            console.print(event.text, end="", style=style, markup=False, highlight=False)
            if event.section in ANSWER_SECTIONS:
                self.streamed_reply += event.text
            return
        if self.section is not None:
            console.print()
            self.section = None
        if isinstance(event, FinalEvent):
            render_final(event, already_streamed=self.streamed_reply.strip() == event.text.strip(),
                         verbose=self.verbose)
            self.streamed_reply = ""
            return
        data = event.to_dict()
        kind = data.pop("type")
        data.pop("namespace", None)
        if kind == "error":  # always shown: the user must know the turn went wrong
            console.print(f"[red]error:[/red] {_escape(where(event))}{_escape(data['message'])}", highlight=False)
        elif kind == "degraded":  # always shown: the answer came from offline rules, not the model
            console.print(f"[yellow]degraded:[/yellow] {_escape(where(event))}{_escape(data['step'])}: "
                          f"{_escape(data['message'])}", highlight=False)
        elif self.verbose and kind != "step":
            line = f"· {where(event)}{kind} {json.dumps(data, ensure_ascii=False)[:300]}"
            console.print(line, style="dim", markup=False, highlight=False)


def render_final(event: FinalEvent, *, already_streamed: bool = False, verbose: bool = True) -> None:
    """The reply first (unless it was streamed), then its artifacts, then any other pending question."""
    if not already_streamed:
        console.print(f"[bold]{_escape(event.text)}[/bold]")
    for artifact in event.artifacts:
        if verbose or not _internal(artifact):
            render_artifact(artifact)
    for other in list(event.questions)[1:]:
        console.print(f"[dim]also waiting: {_escape(other.text)}[/dim]", highlight=False)


def is_written_document(artifact: Artifact) -> bool:
    """A document the agent wrote for the user (``metadata.format == "markdown"``: a draft), as opposed
    to a retrieved passage."""
    return isinstance(artifact, DocumentArtifact) and artifact.metadata.get("format") == "markdown"


def _internal(artifact: Artifact) -> bool:
    if isinstance(artifact, IntermediateTableArtifact):
        return True
    return isinstance(artifact, DocumentArtifact) and not is_written_document(artifact)


def render_artifact(artifact: Artifact) -> None:
    if artifact.title:
        console.print(f"[bold dim]{_escape(artifact.title)}[/bold dim]")
    if isinstance(artifact, SqlArtifact):
        console.print(Syntax(format_sql(artifact.sql, artifact.dialect), "sql", word_wrap=True))
    elif isinstance(artifact, TableArtifact):
        caption = f"intermediate: {artifact.step}" if isinstance(artifact, IntermediateTableArtifact) else None
        console.print(result_table({"columns": artifact.columns, "rows": artifact.rows},
                                   total=artifact.total_rows, caption=caption))
    elif isinstance(artifact, ChartArtifact):
        console.print(chart_text(artifact.spec), markup=False, highlight=False)
    elif isinstance(artifact, CitationArtifact):
        ref = f"{artifact.ref} " if artifact.ref else ""
        link = f" <{artifact.url}>" if artifact.url else ""
        quote = f": {artifact.text[:200]}" if artifact.text else ""
        console.print(f"{ref}{artifact.source}{link}{quote}", style="dim", markup=False, highlight=False)
    elif isinstance(artifact, DocumentArtifact) and is_written_document(artifact):
        from rich.markdown import Markdown

        console.print(Markdown(artifact.text))
    elif isinstance(artifact, DocumentArtifact):
        console.print(f"[{artifact.id}] {artifact.text[:300]}", style="dim", markup=False, highlight=False)


def format_sql(sql: str, dialect: str | None = None) -> str:
    """SQL laid out one clause per line (sqlglot's pretty printer); the text as given if it does not parse."""
    import sqlglot
    from sqlglot.errors import SqlglotError

    try:
        read = dialect if dialect in {"postgres", "sqlite", "mysql", "duckdb"} else None
        pretty = sqlglot.transpile(sql, read=read, write=read, pretty=True)
    except (SqlglotError, ValueError):
        return sql
    return ";\n".join(pretty) if pretty else sql


def format_cell(value: Any) -> str:
    """A value as a person reads it: thousands separators, at most two decimals, no float noise
    (``703033.3333333334`` -> ``703,033.33``); empty for NULL."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return str(value)
        if value == int(value) and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:,.2f}" if abs(value) >= 0.01 else f"{value:.4g}"
    from decimal import Decimal

    if isinstance(value, Decimal):
        return format_cell(int(value) if value == value.to_integral_value() else float(value))
    return str(value)


def _is_number(value: Any) -> bool:
    from decimal import Decimal

    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def result_table(table: Mapping[str, Any], max_rows: int = 20, *, total: int | None = None,
                 caption: str | None = None) -> Table:
    """Rows as a table: numbers formatted and right-aligned (a column of numbers and NULLs)."""
    out = Table(show_lines=False)
    rows: Sequence[Sequence[Any]] = table.get("rows", [])
    shown = rows[:max_rows]
    for j, col in enumerate(table["columns"]):
        values = [row[j] for row in shown if j < len(row) and row[j] is not None]
        numeric = bool(values) and all(_is_number(v) for v in values)
        out.add_column(str(col), justify="right" if numeric else "left")
    for row in shown:
        out.add_row(*(_escape(format_cell(v)) for v in row))
    count = total if total is not None else len(rows)
    notes = [caption] if caption else []
    if count > min(max_rows, len(rows)):
        notes.append(f"{count} rows, first {min(max_rows, len(rows))} shown")
    if notes:
        out.caption = "; ".join(notes)
    return out


def chart_text(spec: Mapping[str, Any], width: int = 40) -> str:
    """A Vega-Lite bar/line spec as horizontal text bars (the terminal cannot draw lines either)."""
    values = (spec.get("data") or {}).get("values") or []
    encoding = spec.get("encoding") or {}
    x = (encoding.get("x") or {}).get("field")
    y = (encoding.get("y") or {}).get("field")
    points = [(str(v.get(x)), v.get(y)) for v in values if isinstance(v, Mapping)]
    numbers = [float(n) for _, n in points if isinstance(n, int | float)]
    if not x or not y or not numbers:
        return f"chart ({spec.get('mark', '?')}): {len(values)} points"
    top = max(max(abs(n) for n in numbers), 1e-12)
    label_width = min(max(len(label) for label, _ in points), 20)
    lines = [f"{spec.get('title') or y} by {x}"]
    for label, n in points:
        size = int(round(abs(float(n)) / top * width)) if isinstance(n, int | float) else 0
        lines.append(f"{label[:20]:>{label_width}} │{'█' * size} {n}")
    return "\n".join(lines)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
