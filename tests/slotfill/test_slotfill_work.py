"""The turn's working copy and the graph state use the same names, and survive a round trip."""

from __future__ import annotations

from typing import get_type_hints

from graphagents.agents.slotfill.state import SlotfillState
from graphagents.agents.slotfill.work import Work


def test_every_stored_field_is_a_state_key() -> None:
    stored = set(Work().to_state())
    assert stored <= set(get_type_hints(SlotfillState)), stored - set(get_type_hints(SlotfillState))
    assert "notices" not in stored


def test_round_trip_copies_and_keeps_values() -> None:
    state = {"stage_id": "collect_ib_info", "slots": {"customer_name": "김민수"}, "confirmed_groups": ["basic_info"],
             "stage_visit_count": {"greeting": 1}, "slot_retries": {"security_medium": 2},
             "correction_context": {"fields": ["customer_phone"]}, "handoff_declined": ["customer_name"],
             "last_intent": "inform", "status": "active"}
    w = Work.from_state(state, "greeting")
    w.slots["customer_phone"] = "010-1234-5678"
    w.correction_context["fields"].append("customer_name")
    assert state["slots"] == {"customer_name": "김민수"}  # the checkpointed state is not mutated
    assert state["correction_context"] == {"fields": ["customer_phone"]}
    back = w.to_state()
    assert {k: back[k] for k in state if k not in ("slots", "correction_context")} == {
        k: v for k, v in state.items() if k not in ("slots", "correction_context")}


def test_a_missing_stage_starts_at_the_start_stage() -> None:
    assert Work.from_state({}, "greeting").stage_id == "greeting"
    assert Work.from_state({"status": None}, "greeting").status == "active"
