"""The NLU package exports exactly its public API."""

from __future__ import annotations

import graphagents.agents.slotfill.nlu as nlu


def test_public_api() -> None:
    assert sorted(nlu.__all__) == [
        "ConfirmationIntent", "ConfirmationResult", "FieldInfo", "SlotSpec", "SlotType", "SlotValue",
        "classify_confirmation", "extract_slots", "extract_value", "find_labels", "match_enum",
    ]
    public = {name for name, value in vars(nlu).items() if not name.startswith("_") and not _is_module(value)}
    assert public == set(nlu.__all__)


def _is_module(value: object) -> bool:
    return type(value).__name__ == "module"
