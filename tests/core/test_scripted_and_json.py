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


# ------------------------------------------------------------------ linear extraction
class CountingStr(str):
    """A string that counts the characters read through iteration and indexing."""

    reads = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        for ch in str.__iter__(self):
            CountingStr.reads += 1
            yield ch

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        value = str.__getitem__(self, key)
        CountingStr.reads += len(value)
        return value


@pytest.mark.parametrize("text", ["{" * 8000, "[" * 4000 + "{" * 4000, '{"a": ' * 4000, "x" * 8000 + "{"])
def test_extract_json_reads_each_character_a_bounded_number_of_times(text: str) -> None:
    CountingStr.reads = 0
    with pytest.raises(ValueError):
        extract_json(CountingStr(text))
    assert CountingStr.reads <= 2 * len(text)  # the per-start rescan read ~n^2/2 characters here


def test_extract_json_survives_nesting_deeper_than_json_accepts() -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        extract_json("[" * 8000 + "]" * 8000)  # json.loads raises RecursionError on each candidate
    assert extract_json("noise " + "[" * 8000 + ' {"ok": 1} ') == {"ok": 1}


def test_extract_json_handles_unclosed_fences_and_prose_quotes() -> None:
    with pytest.raises(ValueError):
        extract_json("```" + " " * 20_000)
    assert extract_json('He said "hi. {"a": 1}') == {"a": 1}
    assert extract_json('``` ```json\n{"b": 2}\n```') == {"b": 2}
