from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from graphagents.errors import ModelOutputError
from graphagents.llm import GARBAGE, ScriptedChatModel, ScriptExhaustedError, extract_json, invoke_json, scripted


def test_scripted_replays_in_order_and_records_prompts() -> None:
    model = scripted("one", lambda msgs: f"echo:{msgs[-1].content}")
    assert model.invoke("first").content == "one"
    assert model.invoke([HumanMessage("second")]).content == "echo:second"
    assert model.prompt_texts == ["first", "second"]
    with pytest.raises(ScriptExhaustedError):
        model.invoke("third")


def test_scripted_streams_in_chunks_and_raises_on_purpose() -> None:
    model = ScriptedChatModel(responses=["abcdefg", RuntimeError("boom")], chunk_size=3)
    assert [c.content for c in model.stream("x") if c.content] == ["abc", "def", "g"]
    with pytest.raises(RuntimeError, match="boom"):
        model.invoke("y")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure! ```json\n{"a": [1, 2]}\n``` hope it helps', {"a": [1, 2]}),
        ('prefix {"a": "}"} suffix', {"a": "}"}),
        ('[1, {"b": 2}] trailing', [1, {"b": 2}]),
    ],
)
def test_extract_json(text: str, expected: object) -> None:
    assert extract_json(text) == expected


def test_extract_json_refuses_garbage() -> None:
    with pytest.raises(ValueError):
        extract_json(GARBAGE)


class Intent(BaseModel):
    intent: str
    confidence: float


def test_invoke_json_repairs_once_then_gives_up() -> None:
    model = scripted(GARBAGE, '{"intent": "confirmed", "confidence": 0.9}')
    result = invoke_json(model, [HumanMessage("classify")], Intent)
    assert result == Intent(intent="confirmed", confidence=0.9)
    assert "could not be used" in model.prompt_texts[1]

    model = scripted('{"intent": 3}', "still not json")
    with pytest.raises(ModelOutputError, match="unusable JSON twice"):
        invoke_json(model, [HumanMessage("classify")], Intent)
