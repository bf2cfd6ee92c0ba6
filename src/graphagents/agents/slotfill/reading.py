"""Reading one user turn at the current stage, without changing anything.

The order is the conversation's, not the parser's: a hesitation holds the turn; a request for a
person, a repeat, or a question is served before anything is read as an answer (a question is
never an answer, even when it names an item and a change word); leaving the application is asked
about, unless what is left is one item ("인터넷뱅킹은 안 할래요" declines that item). Then the
stage's own answer is read, together with what the user says about other items: earlier answers
changed ("평생계좌는 그냥 안 쓸래요") and later ones given ahead.

``Reader.interpret`` is what the labelled utterance sets measure (``graphagents eval slotfill``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...korean import classify_question, extract_person_name, find_phones, is_hesitation, normalize, respell
from ...korean import strip_hesitation as without_hesitation
from . import flow, offline
from .scenario import Scenario
from .understanding import Understanding
from .work import Work


@dataclass(frozen=True)
class Interpretation:
    intent: str
    """inform | keep | unclear | confirmed | needs_correction | specific_correction | cancel | help | repeat
    | handoff"""
    values: dict[str, Any] = field(default_factory=dict)
    """Values read, for the stage's fields and for other items (changed or given ahead)."""
    fields: list[str] = field(default_factory=list)
    question: bool = False
    """A help turn that asks for information ("OTP는 발급 비용 있어요?") rather than what an item is."""
    detour: str | None = None
    """An earlier item named as wrong without its new value: ask for it, then come back."""
    approximate: tuple[str, ...] = ()
    """Amount slots given as an estimate ("이천만원쯤")."""


def clean(text: str) -> str:
    """The text the readers see: the normalisation policy, then everyday misspellings fixed."""
    return respell(normalize(text))


class Reader:
    def __init__(self, scenario: Scenario, understanding: Understanding) -> None:
        self.sc = scenario
        self.nlu = understanding

    def interpret(self, w: Work, text: str) -> Interpretation:
        """What ``text`` means at ``w``'s stage."""
        sc, st = self.sc, self.sc.stages[w.stage_id]
        text = clean(text)
        fields = flow.stage_fields(sc, st, w)
        asked = flow.missing_batch(sc, st, w) if st.stage_type == "collection" else fields
        expecting_yes_no = st.stage_type == "confirmation" or any(sc.slots[k].type == "boolean" for k in asked)
        if is_hesitation(text):
            return Interpretation("unclear")
        core = without_hesitation(text)
        repair = self.nlu.repair(core, expecting_yes_no=expecting_yes_no)
        if repair in ("handoff", "repeat"):
            return Interpretation(repair)
        if repair == "help":
            return Interpretation("help")
        if classify_question(core) == "information":
            return Interpretation("help", question=True)
        item_cancel = repair == "cancel" and offline.names_an_item(core, sc)
        if repair == "cancel" and not item_cancel:
            return Interpretation("cancel")
        others = [k for k in sc.slots if k not in fields]
        if st.stage_type == "confirmation":
            return self._confirmation(w, core, fields, others, item_cancel)
        narrowed = [f for f in w.correction_context.get("fields", []) if f in fields]
        # A correction of everything has no focus: a bare "아니요" there must not set every yes/no slot.
        focus = asked if st.stage_type == "collection" else (narrowed if len(narrowed) < len(fields) else [])
        found = self.nlu.extract(core, fields, focus, sc, w.slots, question=w.question, extra=others)
        if found:  # "해외 IP 차단은 안 할래요" answers the question; it does not cancel
            return Interpretation("inform", found, list(found),
                                  approximate=tuple(offline.approximate_keys(core, found, sc)))
        if item_cancel:
            return Interpretation("cancel")
        detour = offline.detour_field(core, others, sc, w.slots)
        if detour is not None:
            return Interpretation("needs_correction", fields=[detour], detour=detour)
        if st.stage_type == "correction" and self.nlu.keeps_values(core):
            return Interpretation("keep")
        return Interpretation("unclear")

    def _confirmation(self, w: Work, text: str, fields: list[str], others: list[str],
                      item_cancel: bool) -> Interpretation:
        sc, st = self.sc, self.sc.stages[w.stage_id]
        asides = self.nlu.extract(text, [], [], sc, w.slots, extra=others) if others else {}
        res = self.nlu.confirmation(text, fields, sc, w.slots, st, question=w.question, asides=bool(asides))
        if res.intent == "unclear" and not asides:
            if item_cancel:
                return Interpretation("cancel")
            detour = offline.detour_field(text, others, sc, w.slots)
            if detour is not None:
                return Interpretation("needs_correction", fields=[detour], detour=detour)
        return Interpretation(res.intent, {**asides, **res.values}, res.fields)

    def opening(self, text: str, slots: Mapping[str, Any]) -> dict[str, Any]:
        """What the first message says about any item ("통장 만들려고요. 인터넷뱅킹도 OTP로 해 주세요",
        "안녕하세요 김민준이에요"); it is read for values only, never as an answer to a question."""
        sc = self.sc
        text = without_hesitation(clean(text))
        if not text or classify_question(text) == "information":
            return {}
        found = self.nlu.extract(text, [], [], sc, slots, extra=list(sc.slots))
        for key, slot in sc.slots.items():
            if key in found:
                continue
            if slot.type == "person_name":
                name = extract_person_name(text)
                if name is not None:
                    found[key] = name
            elif slot.type == "phone" and len(find_phones(text)) == 1:
                found[key] = find_phones(text)[0].number
        return found
