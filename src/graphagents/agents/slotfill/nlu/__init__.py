"""Offline, deterministic Korean NLU for the slot-filling agent: pure functions, no model calls.

    from graphagents.agents.slotfill.nlu import SlotSpec, extract_slots, classify_confirmation

Call order the engine should follow for each user turn:
``classify_repair`` (cancel/help/repeat/handoff) first, then ``classify_confirmation`` in a
confirmation stage, ``classify_yes_no`` for a yes/no question, or ``extract_slots`` otherwise.
"""

from .enums import match_enum
from .intents import ConfirmationIntent, ConfirmationResult, FieldInfo, classify_confirmation
from .names import extract_person_name
from .numbers import AmountMatch, find_krw_amounts, format_krw, parse_krw_amount
from .phone import PhoneMatch, extract_phone, find_phones, mask_phone, mask_phones_in_text
from .repair import Repair, classify_repair
from .slots import SlotSpec, SlotType, SlotValue, extract_slots, extract_value
from .yesno import YesNo, classify_yes_no

__all__ = [
    "AmountMatch",
    "ConfirmationIntent",
    "ConfirmationResult",
    "FieldInfo",
    "PhoneMatch",
    "Repair",
    "SlotSpec",
    "SlotType",
    "SlotValue",
    "YesNo",
    "classify_confirmation",
    "classify_repair",
    "classify_yes_no",
    "extract_person_name",
    "extract_phone",
    "extract_slots",
    "extract_value",
    "find_krw_amounts",
    "find_phones",
    "format_krw",
    "mask_phone",
    "mask_phones_in_text",
    "match_enum",
    "parse_krw_amount",
]
