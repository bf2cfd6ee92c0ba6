"""Turning a planner's answer (model or offline) into the execution plan the graph runs."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .state import SCOPES, TEAMS, TeamTask

INTENT_TYPES = ("legal", "legal_calc", "market_analysis", "market_lookup", "loan_info", "loan_calc", "market_loan",
                "risk_check", "document", "comprehensive", "greeting", "out_of_scope")
SIMPLE_INTENTS = frozenset({"legal", "loan_info", "market_lookup"})
DIRECT_INTENTS = frozenset({"greeting", "out_of_scope"})
TEAM_ORDER = {t: i for i, t in enumerate(TEAMS)}


class AmountOut(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: str = "other"
    manwon: int = Field(ge=0)


class EntitiesOut(BaseModel):
    model_config = ConfigDict(extra="ignore")
    sigungu: str | None = None
    complex: str | None = None
    property_type: str | None = None
    deal_type: str | None = None
    area_m2_min: float | None = None
    area_m2_max: float | None = None
    amounts: list[AmountOut] = []


class IntentOut(BaseModel):
    model_config = ConfigDict(extra="ignore")
    intent_type: str = "legal"
    confidence: float = Field(0.5, ge=0.0, le=1.0)
    entities: EntitiesOut = EntitiesOut()


class TeamStepOut(BaseModel):
    model_config = ConfigDict(extra="ignore")
    team: Literal["search", "analysis", "document"]
    reason: str = ""
    scopes: list[Literal["laws", "market", "loans"]] = []
    keywords: list[str] = []
    uses: list[Literal["search", "analysis", "document"]] | None = None  # None: the usual hand-offs


class PlanOut(BaseModel):
    """The planner model's answer (one structured call)."""

    model_config = ConfigDict(extra="ignore")
    intent: IntentOut
    teams: list[TeamStepOut] = []
    strategy: Literal["sequential", "parallel"] = "sequential"


def merge_entities(offline: Mapping[str, Any], model: EntitiesOut) -> dict[str, Any]:
    """The model's entities over the offline extraction (the deterministic numbers stay as a base;
    an area the user said stays as code read it)."""
    from .tools.loan_rules import SEOUL_GU

    out = dict(offline)
    if model.sigungu and model.sigungu in SEOUL_GU:
        out["region"] = {"sido": "서울특별시", "sigungu": model.sigungu, "text": model.sigungu}
    for key in ("complex", "property_type", "deal_type"):
        if getattr(model, key):
            out[key] = getattr(model, key)
    # The size the user said, read by code (평형 -> 전용면적, ㎡ as 전용), is never replaced by the model's
    # reading: a model that multiplies 30평대 by 3.3 gets 99-132㎡ instead of 전용 71-100㎡ (issue 24).
    if (not offline.get("area") and model.area_m2_min is not None and model.area_m2_max is not None
            and model.area_m2_min <= model.area_m2_max):
        out["area"] = {"min_m2": model.area_m2_min, "max_m2": model.area_m2_max, "text": "model"}
    if model.amounts:
        out["amounts"] = [{"role": a.role, "manwon": a.manwon, "text": ""} for a in model.amounts]
    return out


def build_plan(steps: Sequence[Mapping[str, Any]], strategy: str) -> dict[str, Any]:
    """Tasks in team order with ids, dependencies and planned hand-offs; parallel only if it helps.

    ``steps``: dicts with team, reason, scopes, keywords, uses (hand-offs), after (ordering; default:
    uses), optional.
    """
    seen: set[str] = set()
    tasks: list[TeamTask] = []
    for step in sorted(steps, key=lambda s: TEAM_ORDER[s["team"]]):
        team = step["team"]
        if team in seen:
            continue
        seen.add(team)
        given = step.get("uses")
        uses = [u for u in (default_uses(team) if given is None else given) if u != team]
        after = [a for a in step.get("after") or uses if a != team]
        task: TeamTask = {"id": f"{team}#1", "team": team, "reason": str(step.get("reason") or ""), "origin": "plan",
                          "after": after, "inputs_from": list(uses),
                          "optional": bool(step.get("optional"))}
        if team == "search":
            task["scopes"] = [s for s in step.get("scopes") or ["laws"] if s in SCOPES]
            task["keywords"] = _keywords([str(k) for k in step.get("keywords") or []])
        tasks.append(task)
    planned = {t["team"] for t in tasks}
    for task in tasks:  # a dependency on a team that is not planned is dropped, not waited for
        task["after"] = [a for a in task["after"] if a in planned]
        task["inputs_from"] = [a for a in task["inputs_from"] if a in planned]
    deps = _closure({t["team"]: set(t["after"]) for t in tasks})
    runnable_together = any(
        a is not b and a["team"] not in deps[b["team"]] and b["team"] not in deps[a["team"]]
        for a in tasks for b in tasks)
    return {"teams": tasks, "strategy": "parallel" if strategy == "parallel" and runnable_together else "sequential"}


MAX_KEYWORDS = 8
_NAMES_ARTICLE = re.compile(r"제?\s*\d+\s*조")


def _keywords(words: list[str]) -> list[str]:
    """At most ``MAX_KEYWORDS`` search terms, but never drop one that names an article: a plan that
    names nine articles wants all nine."""
    named = [w for w in words if _NAMES_ARTICLE.search(w)]
    rest = [w for w in words if w not in named]
    return named + rest[:max(0, MAX_KEYWORDS - len(named))]


def default_uses(team: str) -> list[str]:
    return ["search"] if team in ("analysis", "document") else []


def _closure(after: dict[str, set[str]]) -> dict[str, set[str]]:
    """Every team each team waits for, directly or through another."""
    out = {team: set(deps) for team, deps in after.items()}
    changed = True
    while changed:
        changed = False
        for deps in out.values():
            extra = set().union(*(out.get(d, set()) for d in deps)) - deps
            if extra:
                deps |= extra
                changed = True
    return out
