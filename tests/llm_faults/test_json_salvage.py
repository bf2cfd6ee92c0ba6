"""Issue 24, defect 3 and the repair request of 12: salvage never silently shrinks an object; a
trailing comma or a fence is repaired exactly; a repair re-ask carries the parser's real error in
the prompt's language, after the model's answer as its own (assistant) turn."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

from graphagents.llm import extract_json, invoke_json, scripted
from graphagents.llm.json_output import strip_trailing_commas

PROFILE = '{\n  "profile": {"age": 65, "sex": "male"},\n  "removals": [],\n}'


def test_a_trailing_comma_keeps_the_whole_object() -> None:
    # before: the inner {"age": 65, "sex": "male"} was returned and the profile key was lost
    assert extract_json(PROFILE) == {"profile": {"age": 65, "sex": "male"}, "removals": []}
    assert extract_json("```json\n" + PROFILE + "\n```") == {"profile": {"age": 65, "sex": "male"},
                                                              "removals": []}
    assert extract_json('Here you go: {"a": [1, 2,], "b": "x,}"}') == {"a": [1, 2], "b": "x,}"}


def test_an_inner_object_is_never_salvaged_from_a_broken_outer_one() -> None:
    with pytest.raises(ValueError, match="invalid JSON: Expecting"):
        extract_json('{"profile": {"age": 65}, "removals": [oops]}')


def test_strip_trailing_commas_leaves_strings_and_inner_commas() -> None:
    assert strip_trailing_commas('{"a": ",}", "b": [1, 2 , ] ,\n}') == '{"a": ",}", "b": [1, 2  ] \n}'
    assert strip_trailing_commas('{"a": "\\\\", "b": 1,}') == '{"a": "\\\\", "b": 1}'


class Slots(BaseModel):
    age: int


def test_the_repair_request_names_the_real_error_in_the_prompt_language() -> None:
    model = scripted('{"age": 65 "sex": 1}', '{"age": 65}')
    assert invoke_json(model, [HumanMessage("나이를 JSON으로 알려 주세요")], Slots) == Slots(age=65)
    second = model.prompts[1]
    assert isinstance(second[-2], AIMessage) and second[-2].content == '{"age": 65 "sex": 1}'
    repair = str(second[-1].content)
    assert "사용할 수 없었습니다" in repair and "Expecting ',' delimiter" in repair
    assert "no JSON value found" not in repair

    model = scripted("sure thing", '{"age": 3}')
    invoke_json(model, [HumanMessage("Give the age as JSON")], Slots)
    repair = str(model.prompts[1][-1].content)
    assert repair.startswith("Your previous answer could not be used: no JSON value found")
