"""The compiled graph's shape (a changed edge is a visible diff) and its public state."""

from __future__ import annotations

from pathlib import Path

import graphagents as ga
from snapshot_check import assert_snapshot

SNAPSHOT = Path(__file__).parent / "snapshots" / "supervisor_graph.mmd"


def test_graph_structure() -> None:
    drawing = ga.load("supervisor", checkpoint_url="memory").graph.get_graph().draw_mermaid()
    assert_snapshot(drawing, SNAPSHOT)
    for edge in ("initialize --> planning", "planning -. &nbsp;execute&nbsp; .-> orchestrate",
                 "orchestrate -.-> search_team", "search_team --> execute_teams",
                 "execute_teams -. &nbsp;orchestrate_again&nbsp; .-> orchestrate", "aggregate --> generate_response"):
        assert edge in drawing, edge


def test_bad_options_fail_at_load_with_one_line() -> None:
    import pytest

    with pytest.raises(ga.ConfigError, match="max_rounds"):
        ga.load("supervisor", max_rounds=0)
    with pytest.raises(ga.ConfigError, match="is not the real-estate dataset"):
        ga.load("supervisor", data="/nonexistent")
