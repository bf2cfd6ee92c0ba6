"""ask_json / aask_json: typed answers, one repair, a fallback on garbage, usage counted."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from langchain_core.callbacks import UsageMetadataCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import BaseModel, ConfigDict

from graphagents.errors import ModelRequestsBlocked
from graphagents.llm import GARBAGE, MAX_OUTPUT_CHARS, aask_json, ask_json, scripted
from graphagents.llm.scripted import estimate_tokens
from graphagents.testing import FunctionChatModel


class Intent(BaseModel):
    model_config = ConfigDict(extra="forbid")
    intent: str
    confidence: float


GOOD = '{"intent": "confirmed", "confidence": 0.9}'
FALLBACK = Intent(intent="unclear", confidence=0.0)


def test_a_good_answer_is_validated_into_the_schema() -> None:
    model = scripted(f"Sure! ```json\n{GOOD}\n```")
    assert ask_json(model, "classify", Intent, FALLBACK) == Intent(intent="confirmed", confidence=0.9)
    assert model.prompt_texts == ["classify"]


def test_one_repair_names_the_problem_and_the_schema() -> None:
    model = scripted('{"intent": "confirmed"}', GOOD)
    assert ask_json(model, "classify", Intent, FALLBACK).intent == "confirmed"
    repair = model.prompt_texts[1]
    assert "confidence" in repair and "could not be used" in repair and '"title": "Intent"' in repair


@pytest.mark.parametrize("answers", [[GARBAGE, GARBAGE], ['{"intent": 3}', "[]"], [RuntimeError("provider down")]])
def test_garbage_twice_or_a_failing_provider_gives_the_fallback(answers: list[Any]) -> None:
    model = scripted(*answers)
    assert ask_json(model, "classify", Intent, None) is None
    assert ask_json(scripted(*answers), "classify", Intent, FALLBACK) is FALLBACK


def test_on_error_sees_the_cause_of_a_fallback_and_nothing_on_success() -> None:
    seen: list[Exception] = []
    assert ask_json(scripted(GARBAGE, GARBAGE), "classify", Intent, None, on_error=seen.append) is None
    assert len(seen) == 1 and "twice" in str(seen[0])
    assert ask_json(scripted(GOOD), "classify", Intent, None, on_error=seen.append) is not None
    assert ask_json(scripted(RuntimeError("provider down")), "classify", Intent, None, on_error=seen.append) is None
    assert len(seen) == 2 and str(seen[1]) == "provider down"


def test_an_answer_over_the_size_cap_is_refused_and_repaired() -> None:
    huge = json.dumps({"intent": "x" * MAX_OUTPUT_CHARS, "confidence": 1.0})
    model = scripted(huge, GOOD)
    assert ask_json(model, "classify", Intent, FALLBACK).intent == "confirmed"
    assert f"{MAX_OUTPUT_CHARS:,}" in model.prompt_texts[1]
    assert len(model.prompt_texts[1]) < 2 * MAX_OUTPUT_CHARS  # the refused answer is not echoed whole


def test_any_type_pydantic_validates_is_a_schema() -> None:
    assert ask_json(scripted("[1, 2, 3]"), "numbers", list[int], []) == [1, 2, 3]
    assert ask_json(scripted('["a"]', '["b"]'), "numbers", list[int], [0]) == [0]


def test_usage_of_both_calls_is_counted_by_the_run_callbacks() -> None:
    model = FunctionChatModel(function=lambda msgs: GOOD if len(msgs) > 1 else "not json")
    usage = UsageMetadataCallbackHandler()
    assert ask_json(model, "classify this", Intent, FALLBACK, config={"callbacks": [usage]}).intent == "confirmed"
    counted = next(iter(usage.usage_metadata.values()))
    assert len(model.prompts) == 2
    # the test models count words and punctuation marks: both answers are in the total
    assert counted["output_tokens"] == estimate_tokens("not json") + estimate_tokens(GOOD) == 2 + 17
    assert counted["input_tokens"] > 2 * 2  # the repair prompt repeats the question and the answer


def test_a_blocked_real_model_is_never_hidden_behind_the_fallback() -> None:
    class ChatProvider(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "provider"

        def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:
            return ChatResult(generations=[ChatGeneration(message=AIMessage(GOOD))])

    with pytest.raises(ModelRequestsBlocked):
        ask_json(ChatProvider(), "classify", Intent, FALLBACK)


def test_aask_json_is_the_async_twin() -> None:
    model = scripted(GARBAGE, GOOD)
    assert asyncio.run(aask_json(model, "classify", Intent, FALLBACK)).intent == "confirmed"
    assert asyncio.run(aask_json(scripted(GARBAGE, GARBAGE), "classify", Intent, FALLBACK)) is FALLBACK
