"""The NLU package exports exactly its public API."""

from __future__ import annotations

import graphagents.agents.slotfill.nlu as nlu


def test_public_api() -> None:
    assert sorted(nlu.__all__) == [
        "AmountMatch", "ConfirmationIntent", "ConfirmationResult", "FieldInfo", "PhoneMatch", "Repair",
        "SlotSpec", "SlotType", "SlotValue", "YesNo", "classify_confirmation", "classify_repair",
        "classify_yes_no", "extract_person_name", "extract_phone", "extract_slots", "extract_value",
        "find_krw_amounts", "find_phones", "format_krw", "mask_phone", "mask_phones_in_text", "match_enum",
        "parse_krw_amount",
    ]
    for name in nlu.__all__:
        assert hasattr(nlu, name), name


def test_kiwi_is_built_once_and_lazily() -> None:
    from graphagents.agents.slotfill.nlu import morph

    first = morph.get_kiwi()
    assert morph.get_kiwi() is first
