"""Orchestration decisions: the record, the model's answer schema, validation and application.

A decision comes from the plan (the first round, no call), the model, the offline rules, or a
guard (a fallback after a bad model answer, a cap, a stall). Whatever its source, it is checked
here against the state (known team, runs left) and turned into the next batch of team tasks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .state import ACTIONS, SCOPES, TEAMS, TeamTask

Source = Literal["plan", "model", "rules", "fallback", "cap", "stall", "step_cap"]


@dataclass(frozen=True)
class Decision:
    action: str
    reasoning: str
    confidence: float = 1.0
    next_agent: str | None = None
    keywords: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ()
    from_teams: tuple[str, ...] = ()
    focus: str = ""
    source: Source = "rules"
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("keywords", "scopes", "from_teams"):
            data[key] = list(data[key])
        return data


class DecisionOut(BaseModel):
    """What the model answers. Extra keys are ignored (models add them); values are checked."""

    model_config = ConfigDict(extra="ignore")

    action: Literal["continue", "add_agent", "skip_remaining", "collaborate"]
    reasoning: str = ""
    confidence: float = Field(0.5, ge=0.0, le=1.0)
    next_agent: str | None = None
    keywords: list[str] = []
    scopes: list[str] = []
    from_agents: list[str] = []
    focus: str = ""


def team_name(raw: str | None) -> str | None:
    """"search_team", "Search" -> "search"; None for anything that is not a team."""
    if not raw:
        return None
    name = raw.strip().lower().removesuffix("_team").removesuffix(" team")
    return name if name in TEAMS else None


def from_model(out: DecisionOut) -> Decision:
    """A validated model answer as a Decision; semantic problems raise ValueError (-> fallback)."""
    nxt = team_name(out.next_agent)
    if out.next_agent and nxt is None:
        raise ValueError(f"unknown team {out.next_agent!r}; teams are {', '.join(TEAMS)}")
    if out.action == "add_agent" and nxt is None:
        raise ValueError("add_agent needs next_agent")
    sources = []
    for raw in out.from_agents:
        name = team_name(raw)
        if name is None:
            raise ValueError(f"unknown team {raw!r} in from_agents")
        sources.append(name)
    if out.action == "collaborate" and nxt is None:
        raise ValueError("collaborate needs next_agent (the team that receives the output)")
    scopes = tuple(s for s in out.scopes if s in SCOPES)
    return Decision(out.action, out.reasoning.strip() or "(no reasoning given)", out.confidence, nxt,
                    tuple(k.strip() for k in out.keywords if k.strip())[:8], scopes, tuple(sources),
                    out.focus.strip()[:300], source="model")


def fallback(error: str) -> Decision:
    """The note's rule: when the model fails, follow the plan."""
    return Decision("continue", "모델 판단을 사용할 수 없어 계획대로 진행합니다", 0.5, source="fallback",
                    error=error[:300])


def run_counts(runs: Sequence[Mapping[str, Any]]) -> Counter[str]:
    return Counter(str(r["team"]) for r in runs)


@dataclass(frozen=True)
class Limits:
    max_rounds: int = 6
    max_team_runs: int = 3


def next_from_plan(queue: Sequence[TeamTask], completed: Sequence[str], strategy: str) -> list[TeamTask]:
    """The planned tasks to run now: the head, or every ready task when the plan is parallel."""
    if not queue:
        return []
    if strategy != "parallel":
        return [queue[0]]
    done = set(completed)
    ready = [t for t in queue if set(t.get("after") or []) <= done]
    return ready or [queue[0]]


def apply(decision: Decision, *, queue: list[TeamTask], pending: list[TeamTask], runs: Sequence[Mapping[str, Any]],
          completed: Sequence[str], strategy: str, limits: Limits) -> tuple[Decision, list[TeamTask], dict[str, Any]]:
    """The decision as it will be carried out (a refused add is downgraded), the batch, state updates."""
    counts = run_counts(runs)
    updates: dict[str, Any] = {}
    caps: list[str] = []
    if decision.action in ("add_agent", "collaborate") and decision.next_agent:
        team = decision.next_agent
        planned_head = next((t for t in queue if t["team"] == team), None)
        will_rerun = planned_head is None
        if will_rerun and counts[team] >= limits.max_team_runs:
            caps.append(f"team_runs:{team}")
            decision = replace(decision, action="continue", source="cap",
                               reasoning=f"{team} 팀은 이미 {counts[team]}회 실행되어(상한 {limits.max_team_runs}회) "
                                         f"추가 실행 대신 계획대로 진행합니다 — 요청: {decision.reasoning}")
        else:
            task = _task_for(decision, planned_head, runs, counts)
            if planned_head is not None:
                queue = [t for t in queue if t is not planned_head]
            updates.update(plan_queue=queue, pending_teams=pending[1:] if pending else [])
            return decision, [task], {**updates, "caps_hit": caps}
    if decision.action == "skip_remaining":
        return decision, [], {"skip_remaining": True, "caps_hit": caps}
    if pending:
        return decision, [pending[0]], {"pending_teams": pending[1:], "caps_hit": caps}
    batch = next_from_plan(queue, completed, strategy)
    ids = {t["id"] for t in batch}
    return decision, batch, {"plan_queue": [t for t in queue if t["id"] not in ids], "caps_hit": caps}


def _task_for(decision: Decision, planned: TeamTask | None, runs: Sequence[Mapping[str, Any]],
              counts: Counter[str]) -> TeamTask:
    team = str(decision.next_agent)
    base: TeamTask = dict(planned) if planned else {}  # type: ignore[assignment]
    if not planned:
        last = next((r["task"] for r in reversed(runs) if r["team"] == team), None)
        if last:
            base = {k: v for k, v in last.items() if k in ("scopes", "keywords", "inputs_from")}  # type: ignore[assignment]
    task: TeamTask = {**base, "id": f"{team}#{counts[team] + 1}", "team": team,
                      "origin": "collaborate" if decision.action == "collaborate" else "add_agent",
                      "reason": decision.reasoning}
    if decision.action == "add_agent":
        task["broaden"] = bool(counts[team])
    if decision.keywords:
        task["keywords"] = list(decision.keywords)
    if decision.scopes:
        task["scopes"] = list(decision.scopes)
    if decision.action == "collaborate":
        task["inputs_from"] = sorted({*(base.get("inputs_from") or []), *decision.from_teams})
        task["focus"] = decision.focus
    task.pop("optional", None)
    return task


__all__ = ["ACTIONS", "Decision", "DecisionOut", "Limits", "apply", "fallback", "from_model", "next_from_plan"]
