"""planning: intent (type, confidence, entities) and the execution plan (teams, order, strategy,
the reason for each team). One structured model call with repair, or the offline classifier; a
model failure falls back to the offline plan and says so."""

from __future__ import annotations

from typing import Any

from graphagents.events import DecisionEvent, emit
from graphagents.llm import ask_json
from graphagents.llm.degrade import fallback_reason

from ..context import SupervisorContext
from ..offline.english import gloss
from ..offline.entities import extract_entities
from ..offline.followup import INHERITED_KEYS, rewrite
from ..offline.scope import as_dicts, uncovered_topics
from ..plan import DIRECT_INTENTS, INTENT_TYPES, SIMPLE_INTENTS, PlanOut, build_plan, merge_entities
from ..prompts import PROMPTS
from ..state import MainSupervisorState


def offline_plan(ctx: SupervisorContext, query: str, entities: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    guess = ctx.classifier.classify(query, entities)
    intent = {"intent_type": guess.intent, "confidence": guess.confidence, "entities": entities,
              "simple": guess.simple, "neighbours": [list(n) for n in guess.neighbours[:3]]}
    steps: list[dict[str, Any]] = []
    for team in guess.teams:
        step: dict[str, Any] = {"team": team, "reason": guess.reasons.get(team, ""), "optional": team in guess.optional}
        if team == "search":
            step["scopes"] = list(guess.scopes)
        if team == "document":
            # Ordered after analysis when the draft should reflect it; the hand-off itself is decided at
            # run time (collaborate), once it is known whether the analysis found anything to pass on.
            step["uses"] = ["search"]
            step["after"] = ["search", "analysis"] if guess.document_uses_analysis else ["search"]
        steps.append(step)
    return intent, build_plan(steps, "parallel")


def model_plan(ctx: SupervisorContext, query: str, entities: dict[str, Any],
               errors: list[str]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The planner model's plan; None (the cause appended to ``errors``) when it gave no usable one."""
    assert ctx.models.planner is not None
    out = ask_json(ctx.models.planner, PROMPTS.render("planning.md", query=query), PlanOut, None, step="planning",
                   on_error=lambda exc: errors.append(fallback_reason(exc)))
    if out is None:
        return None
    intent_type = out.intent.intent_type if out.intent.intent_type in INTENT_TYPES else "legal"
    merged = merge_entities(entities, out.intent.entities)
    intent = {"intent_type": intent_type, "confidence": out.intent.confidence, "entities": merged,
              "simple": intent_type in SIMPLE_INTENTS}
    steps = [s.model_dump() for s in out.teams]
    if intent_type in DIRECT_INTENTS:
        steps = []
    return intent, build_plan(steps, out.strategy)


def make_planning(ctx: SupervisorContext) -> Any:
    def planning(state: MainSupervisorState) -> dict[str, Any]:
        query = state["query"]
        english = gloss(query)
        if english:  # the offline brain reads Korean: the question's real-estate words, glossed
            query = f"{query} ({english})"
        last = state.get("last_context") or {}
        followup = rewrite(query, str(last.get("query") or ""), last.get("entities") or {}) if last else None
        if followup is not None:  # "그럼 전세는?": the previous question's conditions carry over, said openly
            query = followup["query"]
            emit(DecisionEvent("followup", followup["mode"],
                               f"앞 질문의 조건({', '.join(followup['said'])})을 이어받아 '{query}'로 이해했습니다",
                               followup))
        entities = extract_entities(query)
        method, errors = "offline", list[str]()
        planned = model_plan(ctx, query, entities, errors) if ctx.models.planner is not None else None
        if planned is not None:
            intent, plan = planned
            method = "model"
        else:
            intent, plan = offline_plan(ctx, query, entities)
            method = "fallback" if errors else "offline"
        error = "; ".join(errors)[:300]
        uncovered, rest = uncovered_topics(query)
        if uncovered:  # said first in the answer; a question only about it runs no team at all
            intent = {**intent, "uncovered": as_dicts(uncovered)}
            if not rest:
                intent["intent_type"] = "out_of_scope"
                plan = build_plan([], "sequential")
        if not ctx.options.parallel:
            plan["strategy"] = "sequential"
        tasks = plan["teams"]
        teams = [t["team"] for t in tasks]
        reason = "; ".join(f"{t['team']}: {t['reason']}" for t in tasks) or (
            "인사에는 바로 답합니다" if intent["intent_type"] == "greeting" else
            f"보유 자료가 다루지 않는 주제({', '.join(u.name for u in uncovered)})라 팀을 부르지 않습니다"
            if uncovered else "부동산 상담 범위 밖의 질문입니다")
        shown = {k: v for k, v in intent.items() if k != "neighbours"}
        emit(DecisionEvent("plan", " → ".join(teams) or "respond", reason,
                           {"intent": shown, "strategy": plan["strategy"], "teams": tasks, "method": method,
                            **({"error": error} if error else {})}))
        steps = [{"team": t["team"], "task": t["reason"], "description": ", ".join(t.get("scopes", []))}
                 for t in tasks]
        context = {k: v for k, v in intent["entities"].items() if k in INHERITED_KEYS or k == "amounts"}
        if not any(k in context for k in ("region", "complex", "area", "amounts")):
            context = {}  # a question about the law alone ("전세 갱신청구권이 뭐야?") sets no conditions
        return {"current_phase": "planning", "query": query,
                "planning_state": {"analyzed_intent": intent, "execution_steps": steps, "method": method,
                                   **({"error": error} if error else {}),
                                   **({"followup": followup} if followup else {}),
                                   **({"english_gloss": english} if english else {})},
                "execution_plan": plan, "active_teams": teams, "plan_queue": tasks,
                # what the next turn's follow-up may inherit; a turn without conditions keeps the older one
                **({"last_context": {"query": query, "entities": context}} if context else {})}

    return planning


def route_after_planning(state: MainSupervisorState) -> str:
    """The note's rule: teams to run -> orchestrate; nothing to run (greeting, out of scope) -> respond."""
    return "execute" if state.get("plan_queue") else "respond"
