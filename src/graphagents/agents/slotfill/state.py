"""The graph state of a slot-filling conversation (a TypedDict, as LangGraph expects)."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

Status = Literal["active", "completed", "cancelled", "handoff"]


class SlotfillState(TypedDict, total=False):
    user_input: str
    session_options: dict[str, Any]
    session_id: str
    profile: dict[str, Any]
    # where we are
    stage_id: str
    current_stage_type: str
    previous_stage_id: str | None
    question: str
    """The pending question: what the ask node hands to interrupt()."""
    base_question: str
    """The question without this turn's notices; what help and repeat ask again."""
    # what we know
    slots: dict[str, Any]
    pending_confirmation_groups: list[str]
    confirmed_groups: list[str]
    correction_context: dict[str, Any]
    # loop prevention and repair
    stage_visit_count: dict[str, int]
    slot_retries: dict[str, int]
    offer: dict[str, Any] | None
    """A pending yes/no of the engine's own: a handoff after a cap ({"kind": "visit_cap"|"retry_cap",
    "stage": ..., "slot": ...}) or the confirmation of a cancel ({"kind": "cancel"})."""
    volunteered: list[str]
    """Slots given ahead of their question, mentioned when their question is skipped."""
    handoff_declined: list[str]
    # outcome
    status: Status
    reply: str
    application_id: str | None
    last_intent: str
    stats: dict[str, int]
