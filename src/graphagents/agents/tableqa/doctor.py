"""``graphagents doctor``'s checks for tableqa (``AgentSpec.doctor``): the bundled example tables, the
tables the agent's options name, and the development set."""

from __future__ import annotations

from graphagents.registry import Check, DoctorContext

__all__ = ["checks"]


def checks(ctx: DoctorContext) -> list[Check]:
    return [Check("tableqa example tables", _examples), Check("tableqa tables", lambda: _tables(ctx)),
            Check("tableqa dev set", _dev)]


def _examples() -> str:
    from .tables import EXAMPLE_TABLES, load_table_source

    shapes = []
    for name in EXAMPLE_TABLES:
        (table,) = load_table_source(f"example:{name}")
        shapes.append(f"{name} {len(table.frame)}x{table.frame.shape[1]}")
    return ", ".join(shapes) + " (--table example:NAME)"


def _tables(ctx: DoctorContext) -> str:
    from .tables import load_sources

    sources = list(ctx.options.get("tables") or [])
    if not sources:
        return "none configured: pass --table FILE, or upload on the web page"
    tables = load_sources(sources)
    return ", ".join(f"{t.name} {len(t.frame)}x{t.frame.shape[1]}" for t in tables)


def _dev() -> str:
    from .datasets import wtq_dev_path

    path = wtq_dev_path()
    questions = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    tables = len(list((path.parent / "wtq_tables").glob("*.csv")))
    return f"WTQ: {questions} questions over {tables} tables (CC BY-SA 4.0)"
