"""Issue 8, defect 8: a negative amount is refused with a reason, never a crash and never positive.

Before the fix a model's -3000000 crashed the turn (``format_krw() takes a non-negative amount``
while building the out-of-range message), and offline "-300만원" was read as 10,000 won and
"마이너스 300만원" as 3,000,000."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

import graphagents as ga
from graphagents.agents.slotfill.scenario import load_scenario
from graphagents.agents.slotfill.values import validate
from graphagents.llm import ScriptedChatModel

MakeAgent = Callable[..., ga.Agent]
TO_IB_SETTINGS = ["안녕하세요", "네", "네", "네", "보안카드요"]


def test_validation_refuses_a_negative_amount_with_a_reason() -> None:
    value, reason = validate(load_scenario(), "transfer_limit_per_time", -3_000_000, {})
    assert value is None
    assert reason is not None and "-300만원" in reason and "1만원에서 1억원" in reason


def test_a_negative_amount_from_the_model_is_reasked(make_agent: MakeAgent) -> None:
    model = ScriptedChatModel(default=json.dumps({"values": {}}))
    s = make_agent(model).session()
    for text in TO_IB_SETTINGS:
        s.send(text)
    model.push(json.dumps({"values": {"transfer_limit_per_time": -3_000_000}}))
    reply = s.send("minus three million won per transfer")
    assert not [e for e in reply.events if e.type == "error"], reply.events
    assert "0보다 작은 금액은 정할 수 없어요" in reply.text
    assert "transfer_limit_per_time" not in reply.state["slots"]
    assert reply.state["stage"] == "collect_ib_info"


@pytest.mark.parametrize("text", ["1회 -300만원으로 해 주세요", "1회 마이너스 300만원이요"])
def test_a_negative_amount_said_offline_is_refused(make_agent: MakeAgent, text: str) -> None:
    s = make_agent().session()
    for line in TO_IB_SETTINGS:
        s.send(line)
    reply = s.send(text)
    assert "-300만원처럼 0보다 작은 금액은 정할 수 없어요" in reply.text
    assert "transfer_limit_per_time" not in reply.state["slots"]
