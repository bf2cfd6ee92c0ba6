"""The compiled graph's Mermaid drawing, so that a changed edge shows up as a diff."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import graphagents as ga
from snapshot_check import assert_snapshot

SNAPSHOT = Path(__file__).parent / "snapshots" / "slotfill_graph.mmd"


def test_graph_structure(make_agent: Callable[..., ga.Agent]) -> None:
    drawing = make_agent().graph.get_graph().draw_mermaid()
    assert_snapshot(drawing, SNAPSHOT)
    for edge in ("start -.-> ask", "ask --> process", "process -.-> finish", "process -.-> ask"):
        assert edge in drawing
