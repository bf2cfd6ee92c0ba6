"""The LLM path with a scripted model: good JSON helps, garbage falls back, bad values are re-asked."""

from __future__ import annotations

import json
from collections.abc import Callable

import graphagents as ga
from graphagents.llm import GARBAGE, ScriptedChatModel

MakeAgent = Callable[..., ga.Agent]
EMPTY = json.dumps({"values": {}})


def test_good_json_fills_what_the_offline_path_misses(make_agent: MakeAgent) -> None:
    model = ScriptedChatModel(responses=[json.dumps({"values": {"customer_name": "정다은", "bogus_key": 1}})],
                              default=EMPTY)
    s = make_agent(model).session(profile={"customer_phone": "010-1111-2222"})
    assert "성함을 말씀해 주세요" in s.send("안녕하세요").text
    reply = s.send("Jeong Da-eun이요")  # a romanised name: nothing the offline path can read
    assert reply.state["slots"]["customer_name"] == "정다은"
    assert "bogus_key" not in reply.state["slots"]
    prompt = model.prompt_texts[0]
    assert "Jeong Da-eun이요" in prompt and "customer_name" in prompt and "성함을 말씀해 주세요" in prompt


def test_garbage_twice_falls_back_to_offline(make_agent: MakeAgent) -> None:
    model = ScriptedChatModel(responses=[GARBAGE, GARBAGE], default=EMPTY)
    s = make_agent(model).session(profile={})
    s.send("안녕하세요")
    reply = s.send("010-3333-4444입니다")  # the name is still missing, so the model is asked
    assert not [e for e in reply.events if e.type == "error"]
    assert reply.state["slots"] == {"customer_phone": "010-3333-4444"}
    assert "성함" in reply.text
    assert len(model.prompts) == 2  # the question and one repair attempt


def test_offline_value_wins_and_the_model_fills_the_gap(make_agent: MakeAgent) -> None:
    answer = {"values": {"customer_phone": "010-0000-0000", "customer_name": "정다은"}}
    model = ScriptedChatModel(responses=[json.dumps(answer, ensure_ascii=False)], default=EMPTY)
    s = make_agent(model).session(profile={})
    s.send("안녕하세요")
    reply = s.send("Jeong Da-eun, 010-3333-4444")  # the offline path reads the phone, not the name
    assert reply.state["slots"] == {"customer_phone": "010-3333-4444", "customer_name": "정다은"}


def test_model_is_not_asked_when_the_offline_path_found_everything(make_agent: MakeAgent) -> None:
    model = ScriptedChatModel(default=EMPTY)
    s = make_agent(model).session(profile={})
    s.send("안녕하세요")
    s.send("홍길동이고 010-4444-5555입니다")
    assert model.prompts == []


def test_value_failing_validation_is_reasked_with_the_reason(make_agent: MakeAgent) -> None:
    model = ScriptedChatModel(default=EMPTY)
    s = make_agent(model).session()
    for text in ["안녕하세요", "네", "네", "네", "보안카드요"]:
        s.send(text)
    model.push(json.dumps({"values": {"transfer_limit_per_time": 500}}))
    reply = s.send("five hundred won, please")  # English: the model's to read, the offline path's not
    assert "1회 이체한도는 1만원에서 1억원 사이로 정해 주세요" in reply.text
    assert "transfer_limit_per_time" not in reply.state["slots"]
    assert reply.state["stage"] == "collect_ib_info"


def test_confirmation_intent_from_the_model_when_offline_is_unsure(make_agent: MakeAgent) -> None:
    model = ScriptedChatModel(default=EMPTY)
    s = make_agent(model).session()
    s.send("안녕하세요")
    model.push(json.dumps({"intent": "specific_correction", "correction_field": "customer_phone",
                           "correction_value": "010-1234-9999", "confidence": 0.9}))
    reply = s.send("연락처가 바뀌었는데 끝이 9999로 끝나요")  # no group cue the offline path knows
    assert reply.state["slots"]["customer_phone"] == "010-1234-9999"
    assert "연락처를 010-1234-9999로 수정했어요" in reply.text
    assert "확인 대상 필드" in model.prompt_texts[-1]


def test_model_exception_does_not_end_the_conversation(make_agent: MakeAgent) -> None:
    model = ScriptedChatModel(responses=[RuntimeError("provider down")], default=EMPTY)
    s = make_agent(model).session(profile={})
    s.send("안녕하세요")
    reply = s.send("홍길동이고 010-4444-5555입니다")
    assert not [e for e in reply.events if e.type == "error"]
    assert reply.state["slots"] == {"customer_name": "홍길동", "customer_phone": "010-4444-5555"}


def test_a_model_value_the_user_never_said_is_not_read_back(make_agent: MakeAgent) -> None:
    """Issue 9: no confirmation may read back a value the user did not say; when unsure, ask."""
    model = ScriptedChatModel(default=EMPTY)
    s = make_agent(model).session(profile={})
    s.send("안녕하세요")
    model.push(json.dumps({"values": {"customer_name": "정다은", "customer_phone": "010-9999-8888"}}))
    reply = s.send("음 그게요 제가 좀 헷갈려서요")
    assert reply.state["slots"] == {}
    assert "정다은" not in reply.text and "010-9999-8888" not in reply.text


def test_a_model_value_the_user_said_is_kept(make_agent: MakeAgent) -> None:
    model = ScriptedChatModel(default=EMPTY)
    s = make_agent(model).session(profile={})
    s.send("안녕하세요")
    model.push(json.dumps({"values": {"customer_phone": "010-3333-4444"}}))
    reply = s.send("공일공 삼삼삼삼에 사사사사로 연락 주세요")  # spoken digits the offline reader splits
    assert model.prompts, "the offline path read it alone: this test needs the model's reading"
    assert reply.state["slots"].get("customer_phone") == "010-3333-4444"
