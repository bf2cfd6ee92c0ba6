"""Graph state of the supervisor: the note's ``MainSupervisorState`` plus what the note lacks.

Every list or map that parallel team runs may write has a reducer, so two teams finishing in
the same step cannot lose each other's updates. A turn starts by sending ``RESET`` to those keys
(``initialize``), because one turn answers one question.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, TypedDict

from langgraph.managed import RemainingSteps

Team = Literal["search", "analysis", "document"]
Scope = Literal["laws", "market", "loans"]
Action = Literal["continue", "add_agent", "skip_remaining", "collaborate"]
Strategy = Literal["sequential", "parallel"]
TEAMS: tuple[str, ...] = ("search", "analysis", "document")
SCOPES: tuple[str, ...] = ("laws", "market", "loans")
ACTIONS: tuple[str, ...] = ("continue", "add_agent", "skip_remaining", "collaborate")

RESET: Any = None
"""Written to a reducer key by ``initialize``: the reducer then starts from empty."""


def add_or_reset(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    """Append (parallel-safe); ``RESET`` empties the list."""
    if right is None:
        return []
    return [*(left or []), *right]


def merge_or_reset(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Merge by key, later values win; ``RESET`` empties the map."""
    if right is None:
        return {}
    return {**(left or {}), **right}


PROVENANCE = "_provenance"
"""In a team's merged result: ``{key: run id}``, the run each top-level key's value came from."""


def _empty(value: Any) -> bool:
    return value is None or value == {} or value == [] or value == ""


def _merge_value(old: Any, new: Any) -> Any:
    """``new`` over ``old``: an empty new value keeps the old one, maps merge by key, lists keep the
    old items and add the new ones not already there (order kept)."""
    if _empty(new):
        return old
    if isinstance(old, dict) and isinstance(new, dict):
        merged = dict(old)
        for key, value in new.items():
            merged[key] = _merge_value(old.get(key), value) if key in old else value
        return merged
    if isinstance(old, list) and isinstance(new, list):
        seen = [json.dumps(item, sort_keys=True, default=str, ensure_ascii=False) for item in old]
        out = list(old)
        for item in new:
            key = json.dumps(item, sort_keys=True, default=str, ensure_ascii=False)
            if key not in seen:
                seen.append(key)
                out.append(item)
        return out
    return new


def merge_team_output(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """A team's result after one more run: what the new run found merges into what earlier runs found
    (issue 24: a re-run search with ``scopes: ["laws"]`` dropped the first run's market rows and loan
    figures). ``_provenance`` names the run each top-level key came from."""
    if not old:
        return dict(new)
    merged = dict(old)
    provenance = dict(old.get(PROVENANCE) or {})
    for key, value in new.items():
        if key == PROVENANCE:
            continue
        if key in old and _empty(value):
            continue
        merged[key] = _merge_value(old.get(key), value) if key in old else value
        run = (new.get(PROVENANCE) or {}).get(key)
        if run is not None:
            previous = provenance.get(key)
            if previous and previous != run and key in old and not _empty(old.get(key)):
                provenance[key] = f"{previous}+{run}"
            else:
                provenance[key] = run
    merged[PROVENANCE] = provenance
    return merged


def merge_team_results(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """``team_results``' reducer: per team, every run's output merged (``merge_team_output``);
    ``RESET`` empties the map."""
    if right is None:
        return {}
    merged = dict(left or {})
    for team, output in right.items():
        merged[team] = merge_team_output(merged.get(team), output)
    return merged


def sum_or_reset(left: int | None, right: int | None) -> int:
    if right is None:
        return 0
    return (left or 0) + right


class TeamTask(TypedDict, total=False):
    """One scheduled run of a team: why, with which parameters and with whose output as input."""

    id: str  # "search#2": the team and its run number
    team: str
    reason: str
    origin: Literal["plan", "add_agent", "collaborate"]
    scopes: list[str]  # search only: laws, market, loans
    keywords: list[str]  # search only: law search terms (add_agent may broaden them)
    broaden: bool
    after: list[str]  # teams whose completion this planned task waits for
    inputs_from: list[str]  # teams whose latest output is handed over as input
    focus: str  # what a collaborate decision asks the team to look at
    optional: bool  # planned on weak evidence: orchestration may skip it


class MainSupervisorState(TypedDict, total=False):
    # the turn
    user_input: str
    session_options: dict[str, Any]
    query: str
    current_phase: str
    last_context: dict[str, Any]  # {query, entities} of the last turn that stated any: what a follow-up inherits
    # planning (the note's planning_state and execution_plan)
    planning_state: dict[str, Any]  # analyzed_intent {intent_type, confidence, entities}, execution_steps, method
    execution_plan: dict[str, Any]  # {"teams": [TeamTask...], "strategy": Strategy}
    active_teams: list[str]  # the teams of the plan, plus any a decision added, in order
    plan_queue: list[TeamTask]  # planned tasks not run yet (single writer: planning / orchestrate)
    pending_teams: list[TeamTask]  # tasks a decision added, run before the rest of the plan
    current_batch: list[TeamTask]  # the tasks orchestrate dispatched this round
    # execution: written by parallel team runs
    team_runs: Annotated[list[dict[str, Any]], add_or_reset]  # every run, in completion order of steps
    team_results: Annotated[dict[str, dict[str, Any]], merge_team_results]  # every run's output, merged per team
    completed_teams: Annotated[list[str], add_or_reset]
    model_calls: Annotated[int, sum_or_reset]
    # orchestration (the note's fields, and the caps and stall bookkeeping it lacks)
    orchestration_action: str
    orchestration_reasoning: str
    orchestration_decisions: Annotated[list[dict[str, Any]], add_or_reset]
    skip_remaining: bool
    rounds: int
    info_keys: list[str]  # every piece of information seen so far (stall detection)
    idle_rounds: int  # consecutive rounds that added nothing new
    low_yield: list[str]  # teams of the last batch that found too little
    review: bool  # the plan is done and the orchestrator takes one more look (option review_last)
    finish_reason: str  # plan_complete | skip_remaining | stall | round_cap | step_cap | direct
    caps_hit: Annotated[list[str], add_or_reset]
    # the answer
    aggregated: dict[str, Any]
    artifacts: list[dict[str, Any]]
    reply: str
    remaining_steps: RemainingSteps


class TeamInput(TypedDict, total=False):
    """What a team sub-graph receives through ``Send``: its task and the context it may use."""

    task: TeamTask
    query: str
    intent: dict[str, Any]
    inputs: dict[str, dict[str, Any]]  # team -> that team's latest output, per task.inputs_from
    session_options: dict[str, Any]


class TeamOutput(TypedDict, total=False):
    """The keys a team writes back into the supervisor's state."""

    team_runs: Annotated[list[dict[str, Any]], add_or_reset]
    team_results: Annotated[dict[str, dict[str, Any]], merge_team_results]
    completed_teams: Annotated[list[str], add_or_reset]
    model_calls: Annotated[int, sum_or_reset]
