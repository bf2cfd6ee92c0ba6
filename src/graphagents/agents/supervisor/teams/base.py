"""What every team shares: its state shape and the run record it writes back."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from graphagents.artifacts import Artifact
from graphagents.events import StateUpdateEvent, emit

from ..state import PROVENANCE, TeamInput, TeamOutput, TeamTask

LOW_YIELD = 3
"""A run with fewer results than this asks the orchestrator for another look (the note's "< 3")."""


class TeamState(TeamInput, TeamOutput, total=False):
    """A team's working state: its input, its output keys and whatever its nodes add."""

    started: float


def digest(value: Any) -> str:
    """A short stable key for a piece of information (stall detection compares these)."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def run_record(task: TeamTask, *, status: str, count: int, info: Iterable[str], summary: str,
               output: Mapping[str, Any], seconds: float, error: str = "") -> dict[str, Any]:
    return {
        "id": task["id"], "team": task["team"], "task": dict(task), "status": status, "count": count,
        "low_yield": status != "error" and count < LOW_YIELD and task["team"] == "search",
        "info": sorted(set(info)), "summary": summary, "output": dict(output), "seconds": round(seconds, 3),
        "error": error,
    }


def team_output(record: dict[str, Any], artifacts: Sequence[Artifact] = ()) -> dict[str, Any]:
    """The keys a team writes into the supervisor's state (reducers merge parallel runs).

    The run and its artifacts also go out at once as a ``state_update`` event, so a page shows each
    team's output while the others are still working."""
    emit(StateUpdateEvent({"team_result": {k: record[k] for k in ("id", "team", "status", "count", "summary",
                                                                  "seconds", "error")},
                           "artifacts": [a.to_dict() for a in artifacts]}))
    output = {**record["output"], PROVENANCE: {key: record["id"] for key in record["output"]}}
    return {"team_runs": [record], "team_results": {record["team"]: output},
            "completed_teams": [record["team"]]}
