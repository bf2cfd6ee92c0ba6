"""Graph nodes: start a conversation, ask (the one interrupt), process an answer, finish.

Only ``ask`` waits for the user, and it does nothing before ``interrupt()``, so a resumed run
re-executes nothing with side effects. ``process`` and ``start`` emit a state_update event
whenever the stage or the collected information changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.types import interrupt

from ...events import StateUpdateEvent, emit
from ...privacy import loggable
from ...settings import Settings
from ...store import database_for
from .engine import Engine
from .flow import Work, pending_groups
from .logs import log
from .records import save_application
from .state import SlotfillState
from .values import render


def public_state(values: Mapping[str, Any]) -> dict[str, Any]:
    """What the web page, the CLI and GET /session show: small and readable."""
    out: dict[str, Any] = {
        "stage": values.get("stage_id"),
        "stage_type": values.get("current_stage_type"),
        "slots": dict(values.get("slots") or {}),
        "confirmed_groups": list(values.get("confirmed_groups") or []),
        "completed": values.get("status") == "completed",
        "status": values.get("status"),
    }
    if values.get("application_id"):
        out["application_id"] = values["application_id"]
    return out


def work_updates(engine: Engine, w: Work) -> dict[str, Any]:
    stage = engine.sc.stages.get(w.stage_id)
    return {
        "stage_id": w.stage_id,
        "current_stage_type": stage.stage_type if stage else "end",
        "previous_stage_id": w.previous_stage_id,
        "question": w.question,
        "base_question": w.base_question,
        "slots": w.slots,
        "confirmed_groups": w.confirmed,
        "pending_confirmation_groups": pending_groups(engine.sc, w),
        "correction_context": w.correction,
        "stage_visit_count": w.visits,
        "slot_retries": w.retries,
        "offer": w.offer,
        "handoff_declined": w.declined,
        "status": w.status,
        "reply": w.reply,
        "stats": w.stats,
        "last_intent": w.intent,
        "profile": w.profile,
    }


def _emit_if_changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
    old, new = public_state(before), public_state(after)
    if old != new:
        emit(StateUpdateEvent(new))


class Nodes:
    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings

    def start(self, state: SlotfillState) -> dict[str, Any]:
        """A new conversation, or the next answer when a run ended without a pending question."""
        status = state.get("status")
        if status == "active" and state.get("stage_id"):
            return {}
        w = Work.from_state({}, self.engine.sc.start_stage_id)
        self.engine.start(w, dict(state.get("profile") or {}))
        log.info("session %s started at stage %s", state.get("session_id"), w.stage_id)
        # The opening line only starts the conversation; it is consumed, not read as an answer.
        updates = {**work_updates(self.engine, w), "application_id": None, "user_input": "",
                   "stats": {"turns": 0}}
        _emit_if_changed({}, updates)
        return updates

    def route_start(self, state: SlotfillState) -> str:
        if state.get("user_input") and state.get("status") == "active":
            return "process"
        return self.route(state)

    def ask(self, state: SlotfillState) -> dict[str, Any]:
        answer = interrupt({"text": state.get("question", ""), "stage": state.get("stage_id")})
        return {"user_input": str(answer)}

    def process(self, state: SlotfillState) -> dict[str, Any]:
        w = Work.from_state(dict(state), self.engine.sc.start_stage_id)
        text = state.get("user_input", "")
        before = w.stage_id
        self.engine.handle(w, text)
        log.info("session %s: %r at %s -> %s (intent %s)", state.get("session_id"), loggable(text), before,
                 w.stage_id, w.intent)
        updates = work_updates(self.engine, w)
        _emit_if_changed(state, updates)
        return updates

    def route(self, state: SlotfillState) -> str:
        status = state.get("status")
        if status == "completed":
            return "finish"
        if status == "active" and state.get("question"):
            return "ask"
        return "end"

    def finish(self, state: SlotfillState) -> dict[str, Any]:
        sc = self.engine.sc
        session_id = state.get("session_id") or "unknown"
        try:
            db = database_for(self.settings.resolved_database_url)
            app_id = save_application(db, sc.record_table, session_id, sc.name, dict(state.get("slots") or {}))
        except Exception as exc:  # the customer gets a clear answer even when the store is down
            log.error("saving the application of session %s failed: %s: %s", session_id, type(exc).__name__, exc)
            return {"status": "handoff", "reply": "신청 내용을 저장하지 못했어요. " + sc.messages.handoff}
        reply = render(sc.messages.completed, {"application_id": app_id})
        updates = {"reply": reply, "application_id": app_id, "question": ""}
        emit(StateUpdateEvent(public_state({**state, **updates})))
        return updates

