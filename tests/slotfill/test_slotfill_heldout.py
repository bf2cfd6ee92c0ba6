"""The held-out utterance set loads and is well formed (no accuracy assertion)."""

from __future__ import annotations

import re
from importlib import resources

from graphagents.agents.slotfill.eval import load_utterances
from graphagents.agents.slotfill.scenario import load_scenario

INTENTS = {"inform", "confirmed", "needs_correction", "specific_correction", "unclear",
           "cancel", "help", "repeat", "handoff"}


def test_heldout_utterances_are_well_formed() -> None:
    path = resources.files("graphagents.agents.slotfill").joinpath("evaldata", "utterances_heldout.jsonl")
    rows = load_utterances(str(path))
    assert len(rows) >= 150
    sc = load_scenario(None)
    for row in rows:
        assert set(row) <= {"text", "stage", "intent", "slots", "context"}, row
        assert isinstance(row["text"], str) and row["text"].strip(), row
        assert row["stage"] in sc.stages, row
        assert row["intent"] in INTENTS, row
        for key, value in row["slots"].items():
            spec = sc.slots[key]
            if spec.type == "boolean":
                assert isinstance(value, bool), row
            elif spec.type == "amount":
                assert isinstance(value, int) and not isinstance(value, bool), row
            elif spec.type == "phone":
                assert re.fullmatch(r"01[016789]-\d{3,4}-\d{4}", value), row
            elif spec.type == "enum":
                assert value in {"OTP", "보안카드", "모바일OTP"}, row
            elif spec.type == "person_name":
                assert re.fullmatch(r"[가-힣]{2,5}", value), row
    assert {row["stage"] for row in rows} == set(sc.stages)
