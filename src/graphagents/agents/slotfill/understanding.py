"""Understanding a user turn: the offline brain, improved by an LLM when one is configured.

The flow never depends on the model. Its answers go through ``ask_json`` (one repair retry,
the offline result as the fallback), are limited to the slots the stage accepts, and are merged
under the offline result:
the deterministic parsers win where they found something (phones, amounts), the model fills
the gaps. Every value is validated by the engine afterwards, like any other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeVar

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, ConfigDict

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
            if key in keys and key not in merged and value not in (None, ""):
                merged[key] = value
        return merged

    def confirmation(self, text: str, fields: list[str], sc: Scenario, slots: Mapping[str, Any],
                     stage: Stage, question: str = "") -> ConfirmationResult:
        yes = [w for t in stage.transitions if t.condition == "confirmed" for w in t.intent_keywords]
        no = [w for t in stage.transitions if t.condition == "needs_correction" for w in t.intent_keywords]
        result = offline.classify_confirmation(text, fields, sc, slots, yes, no)
        if self.llm is None or (result.intent != "unclear" and not
                                (result.intent == "specific_correction" and not result.values)):
            return result
        answer = self._ask("confirm", LlmConfirmation, question=question, text=text,
                           fields=describe_fields(sc, fields))
        if answer is None:
            return result
        if answer.intent == "specific_correction":
            field = answer.correction_field
            if field in fields and answer.correction_value not in (None, ""):
                return ConfirmationResult("specific_correction", {field: answer.correction_value}, [field])
            if field in fields:
                return ConfirmationResult("specific_correction", {}, [field])
            return result if result.intent != "unclear" else ConfirmationResult("needs_correction")
        if result.intent == "specific_correction":
            return result
        return ConfirmationResult(answer.intent)
