"""The one call site of the agent's language pieces: slots and the profile (``slots.py`` with its
drug/condition lexicon ``lexicon.py``) and urgent symptoms (``emergency.py``)."""

from __future__ import annotations

from .emergency import Emergency, detect_emergency
from .slots import SLOTS, SlotUpdate, extract_slots, merge_profile, profile_summary, question_signature

__all__ = ["SLOTS", "Emergency", "SlotUpdate", "detect_emergency", "extract_slots", "merge_profile", "named_terms",
           "profile_summary", "question_signature"]


def named_terms(text: str) -> list[str]:
    """The drugs and conditions a question names, canonical (English), whether or not they are the
    user's own: what retrieval should look for and the answer should be about."""
    signature = question_signature(text, None)
    out: list[str] = []
    for key in ("drugs", "conditions"):
        out.extend(v for v in (signature.get(key) or "").split(",") if v and v not in out)
    return out
