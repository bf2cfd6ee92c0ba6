"""The compiled graph's Mermaid drawing, so that a changed edge shows up as a diff."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import graphagents as ga

SNAPSHOT = Path(__file__).parent / "snapshots" / "slotfill_graph.mmd"


def test_graph_structure(make_agent: Callable[..., ga.Agent]) -> None:
    drawing = make_agent().graph.get_graph().draw_mermaid()
    if os.environ.get("UPDATE_SNAPSHOTS") or (not SNAPSHOT.exists() and not os.environ.get("CI")):
        SNAPSHOT.write_text(drawing, encoding="utf-8")
    assert SNAPSHOT.exists(), f"{SNAPSHOT} is missing: run the test once with UPDATE_SNAPSHOTS=1 and commit it"
    assert drawing == SNAPSHOT.read_text(encoding="utf-8")
    for edge in ("start -.-> ask", "ask --> process", "process -.-> finish", "process -.-> ask"):
        assert edge in drawing
