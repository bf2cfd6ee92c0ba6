"""Understanding a user turn: the offline brain, improved by an LLM when one is configured.

The flow never depends on the model. Its answers go through ``ask_json`` (one repair retry,
the offline result as the fallback), are limited to the slots the stage accepts, and are merged
under the offline result:
the deterministic parsers win where they found something (phones, amounts), the model fills
the gaps. Every value is validated by the engine afterwards, like any other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeVar

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, ConfigDict

from ...korean import compact, find_amounts, parse_number
from ...llm import ask_json
from ...prompts import PromptSet
from . import offline
from .offline import ConfirmationResult
from .scenario import Scenario, Stage

T = TypeVar("T", bound=BaseModel)


class LlmValues(BaseModel):
    model_config = ConfigDict(extra="ignore")
    values: dict[str, Any] = {}


class LlmConfirmation(BaseModel):
    model_config = ConfigDict(extra="ignore")
    intent: Literal["confirmed", "needs_correction", "specific_correction", "unclear"]
    correction_field: str | None = None
    correction_value: Any = None
    confidence: float = 0.0


PROMPTS = PromptSet(__package__ or "graphagents.agents.slotfill", "prompts")


def describe_fields(sc: Scenario, keys: list[str]) -> str:
    lines = []
    for k in keys:
        slot = sc.slots[k]
        extra = f" (선택지: {', '.join(slot.choices)})" if slot.type == "enum" else ""
        lines.append(f"- {k}: {slot.label} [{slot.type}]{extra}")
    return "\n".join(lines)


_SPOKEN_DIGITS = str.maketrans("공영빵일이삼사오육륙칠팔구", "0001234566789")


def said(sc: Scenario, key: str, value: Any, text: str, current: Any = None) -> bool:
    """Whether a model's value for ``key`` is something the user said, so that no confirmation reads
    back a number or a name the user never gave. Phones: their digits are in the text (or the last
    four, the rest being the current number's); amounts: an amount or number in the text; names:
    written in the text. Words in Latin letters ("three million", "Jeong Da-eun") are the model's
    to read."""
    kind = sc.slots[key].type
    if kind not in ("phone", "amount", "person_name") or re.search(r"[A-Za-z]{3}", text):
        return True
    if kind == "phone":
        digits, spoken = re.sub(r"\D", "", str(value)), re.sub(r"\D", "", text.translate(_SPOKEN_DIGITS))
        old = re.sub(r"\D", "", str(current or ""))
        return len(digits) >= 10 and (digits[-8:] in spoken or (old[:-4] == digits[:-4] and digits[-4:] in spoken))
    if kind == "amount":
        numbers = {m.value for m in find_amounts(text)} | {
            n for w in re.findall(r"[\d,.]+", text) if (n := parse_number(w)) is not None}
        return parse_number(str(value)) in numbers
    return compact(str(value)) in compact(text)


class Understanding:
    """What the engine asks about a turn; ``llm=None`` is the offline path."""

    def __init__(self, llm: BaseChatModel | None = None) -> None:
        self.llm = llm

    def repair(self, text: str, *, expecting_yes_no: bool) -> str | None:
        return offline.repair(text, expecting_yes_no=expecting_yes_no)

    def yes_no(self, text: str) -> str | None:
        return offline.yes_no(text)

    def keeps_values(self, text: str) -> bool:
        return offline.keeps_values(text)

    def mentioned_fields(self, text: str, keys: list[str], sc: Scenario) -> list[str]:
        return offline.mentioned_fields(text, keys, sc)

    def _ask(self, name: str, schema: type[T], **fields: str) -> T | None:
        """The model's JSON answer to prompt ``name``, or None: the caller keeps its offline result."""
        assert self.llm is not None
        return ask_json(self.llm, PROMPTS.render(f"{name}.md", **fields), schema, None)

    def extract(self, text: str, keys: list[str], focus: list[str], sc: Scenario,
                slots: Mapping[str, Any], question: str = "", extra: Sequence[str] = ()) -> dict[str, Any]:
        """Values for ``keys``; ``extra`` (slots of later stages) only when the user plainly gives them
        (offline rules: named, or a closed-choice value); the model is never asked for them."""
        found = offline.extract(text, keys, focus, sc, slots, extra)
        if self.llm is None or not keys or (focus and all(k in found for k in focus)):
            return found  # nothing left for a model to add to what was asked
        answer = self._ask("extract", LlmValues, question=question, text=text, fields=describe_fields(sc, keys))
        if answer is None:
            return found
        merged = dict(found)
        for key, value in answer.values.items():
            if (key in keys and key not in merged and value not in (None, "")
                    and said(sc, key, value, text, slots.get(key))):
                merged[key] = value
        return merged

    def confirmation(self, text: str, fields: list[str], sc: Scenario, slots: Mapping[str, Any],
                     stage: Stage, question: str = "", asides: bool = False) -> ConfirmationResult:
        yes = [w for t in stage.transitions if t.condition == "confirmed" for w in t.intent_keywords]
        no = [w for t in stage.transitions if t.condition == "needs_correction" for w in t.intent_keywords]
        result = offline.classify_confirmation(text, fields, sc, slots, yes, no, asides)
        if self.llm is None or (result.intent != "unclear" and not
                                (result.intent == "specific_correction" and not result.values)):
            return result
        answer = self._ask("confirm", LlmConfirmation, question=question, text=text,
                           fields=describe_fields(sc, fields))
        if answer is None:
            return result
        if answer.intent == "specific_correction":
            field, value = answer.correction_field, answer.correction_value
            if field in fields and value not in (None, "") and said(sc, field, value, text, slots.get(field)):
                return ConfirmationResult("specific_correction", {field: value}, [field])
            if field in fields:
                return ConfirmationResult("specific_correction", {}, [field])
            return result if result.intent != "unclear" else ConfirmationResult("needs_correction")
        if result.intent == "specific_correction":
            return result
        return ConfirmationResult(answer.intent)
