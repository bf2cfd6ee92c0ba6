"""The slot-filling NLU: slot values and confirmation intents per field, on ``graphagents.korean``.

    from graphagents.agents.slotfill.nlu import SlotSpec, extract_slots, classify_confirmation

The Korean language knowledge (amounts, phones, names, yes/no, repairs) lives in
``graphagents.korean``; this package adds what is about slots: which value belongs to which
field when an utterance holds several, and which field a correction is about.
"""

from .enums import match_enum
from .intents import ConfirmationIntent, ConfirmationResult, FieldInfo, classify_confirmation
from .labels import find_labels
from .slots import SlotSpec, SlotType, SlotValue, extract_slots, extract_value

__all__ = [
    "ConfirmationIntent",
    "ConfirmationResult",
    "FieldInfo",
    "SlotSpec",
    "SlotType",
    "SlotValue",
    "classify_confirmation",
    "extract_slots",
    "extract_value",
    "find_labels",
    "match_enum",
]
