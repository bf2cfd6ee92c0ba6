"""The one call site of the agent's language pieces (slots, profile merge, cache signature, emergency).

INTERIM: the real implementations (``slots.py``, ``lexicon.py``, ``emergency.py``) come from the
``ragslots`` branch; until they are merged these are minimal stand-ins (no slots, no emergency, the
core's text signature) so that the rest of the pipeline runs. Replaced by re-exports on merge.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from graphagents.cache import qualifiers, quantities

SLOTS = ("demographics", "conditions", "symptoms", "medications", "vitals", "labs")


@dataclass
class SlotUpdate:
    demographics: dict[str, Any] = field(default_factory=dict)
    conditions: list[Any] = field(default_factory=list)
    symptoms: list[Any] = field(default_factory=list)
    medications: list[Any] = field(default_factory=list)
    vitals: dict[str, Any] = field(default_factory=dict)
    labs: dict[str, Any] = field(default_factory=dict)
    removals: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Emergency:
    kind: str
    notice: str


def extract_slots(text: str) -> SlotUpdate:
    return SlotUpdate()


def merge_profile(profile: dict[str, Any], update: SlotUpdate) -> dict[str, Any]:
    return copy.deepcopy(profile)


def profile_summary(profile: dict[str, Any]) -> str:
    return ""


def question_signature(text: str, profile: dict[str, Any] | None) -> dict[str, str]:
    return {"quantities": ",".join(sorted(quantities(text))), "qualifiers": ",".join(sorted(qualifiers(text)))}


def detect_emergency(text: str) -> Emergency | None:
    return None
