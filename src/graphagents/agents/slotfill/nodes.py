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
from . import offline
from .engine import Engine
from .flow import pending_groups
from .logs import log
from .records import save_application
from .state import SlotfillState
from .values import render
from .work import Work


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
    """The state updates of a turn: the working copy plus what is derived from it."""
    stage = engine.sc.stages.get(w.stage_id)
    return {**w.to_state(), "current_stage_type": stage.stage_type if stage else "end",
            "pending_confirmation_groups": pending_groups(engine.sc, w)}


def _emit_if_changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
    old, new = public_state(before), public_state(after)
    if old != new:
        emit(StateUpdateEvent(new))


class Nodes:
    def __init__(self, engine: Engine, settings: Settings) -> None:
        self.engine = engine
        self.settings = settings

    def start(self, state: SlotfillState) -> dict[str, Any]:
        """A new conversation; after one ended, a polite closing unless a new application is asked for."""
        status = state.get("status")
        if status == "active" and state.get("stage_id"):
            return {}
        text = state.get("user_input", "")
        msgs = self.engine.sc.messages
        if status in ("completed", "cancelled", "handoff") and not offline.asks_for_new_application(text):
            # "고마워요" after the end: a closing, and the finished application stays as it was.
            reply = msgs.closing if status == "completed" else msgs.closing_inactive
            return {"reply": reply, "question": "", "user_input": "", "last_intent": "closing"}
        w = Work.from_state({}, self.engine.sc.start_stage_id)
        # The opening line starts the conversation: read for what it gives ahead, never as an answer.
        # A new application keeps nothing of the last one but the profile, confirmed again.
        self.engine.start(w, dict(state.get("profile") or {}), opening=text)
        log.info("session %s started at stage %s", state.get("session_id"), w.stage_id)
        updates = {**work_updates(self.engine, w), "application_id": None, "user_input": "",
                   "stats": {"turns": 0}}
        _emit_if_changed({}, updates)
        return updates

    def route_start(self, state: SlotfillState) -> str:
        if state.get("last_intent") == "closing":
            return "end"
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
                 w.stage_id, w.last_intent)
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

