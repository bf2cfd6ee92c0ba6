from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

import graphagents as ga
from graphagents.errors import ConfigError, InputError, UnknownAgentError, UnknownSessionError
from graphagents.events import DecisionEvent, FinalEvent, StateUpdateEvent, StepEvent


def types_of(events: list[Any]) -> list[str]:
    return [e.type for e in events]


def test_multi_turn_conversation_with_interrupts(example_spec: Any) -> None:
    agent = ga.load("example")
    s = agent.session()
    first = s.send("hi")
    assert first.text == "What is your name?" and not first.done
    second = s.send("Ada")
    assert second.text == "Hello Ada! Favourite colour?"
    assert any(isinstance(e, StateUpdateEvent) and e.state == {"name": "Ada"} for e in second.events)
    third = s.send("blue")
    assert third.text == "Ada likes blue." and third.done
    assert third.state["color"] == "blue"
    kinds = types_of(third.events)
    assert kinds[-1] == "final" and "decision" in kinds and "token" in kinds
    assert StepEvent("finish", "start") in third.events


def test_events_serialise(example_spec: Any) -> None:
    reply = ga.load("example").session().send("name:Bo")
    for event in reply.events:
        data = event.to_dict()
        assert data["type"] == event.type
    final = reply.events[-1]
    assert isinstance(final, FinalEvent) and final.to_dict()["text"] == "Hello Bo! Favourite colour?"


def test_step_cap_ends_in_the_finish_node_with_the_reason_in_state(example_spec: Any) -> None:
    agent = ga.load("example", loop="guarded")
    reply = agent.session().send("go")
    assert not [e for e in reply.events if e.type == "error"]
    assert reply.done and reply.text.startswith("Stopped after") and reply.text.endswith("(step_cap).")
    assert reply.state["stop_reason"] == "step_cap"
    assert 10 <= reply.state["loops"] < agent.step_cap  # it ran, then stopped before the cap
    cap = [e for e in reply.events if isinstance(e, DecisionEvent) and e.kind == "step_cap"]
    assert len(cap) == 1 and cap[0].choice == "finish"
    assert reply.state["trail"] == ["spin"] * reply.state["loops"]  # a reducer list, one entry per run
    assert StepEvent("finish", "end") in reply.events


def test_recursion_error_is_the_last_resort(example_spec: Any) -> None:
    agent = ga.load("example", loop="raw")
    reply = agent.session().send("go")
    errors = [e for e in reply.events if e.type == "error"]
    assert errors and errors[0].to_dict()["code"] == "step_cap"
    assert "죄송합니다" in reply.text and not reply.done
    # the session is still usable afterwards
    again = agent.session().send("go")
    assert again.events[-1].type == "final"


@pytest.mark.parametrize("text", ["", "   ", "x" * 4001])
def test_bad_input_is_refused_before_anything_runs(example_spec: Any, text: str) -> None:
    s = ga.load("example").session()
    with pytest.raises(InputError):
        s.send(text)
    assert s.send("hi").text == "What is your name?"


def test_unknown_agent_session_and_option(example_spec: Any) -> None:
    with pytest.raises(UnknownAgentError, match="registered agents: .*example"):
        ga.load("nope")
    agent = ga.load("example")
    with pytest.raises(UnknownSessionError):
        agent.get_session("missing")
    with pytest.raises(ConfigError, match="no option 'colour'"):
        ga.load("example", colour="red")
    with pytest.raises(ConfigError, match="option 'loop': Input should be 'off', 'guarded' or 'raw'"):
        ga.load("example", loop="sometimes")
    with pytest.raises(InputError, match="sessions take no option 'profile'; options: none"):
        agent.session(profile={})
    with pytest.raises(InputError):
        agent.session("bad id!")
    with pytest.raises(InputError):
        agent.session("ａｂｃ")  # full-width letters are letters, but not ASCII


def test_session_resumes_after_restart(example_spec: Any, fresh_resources: None) -> None:
    from graphagents import _connections as resources

    sid = f"restart-{uuid.uuid4().hex[:8]}"
    ga.load("example").session(sid).send("hi")
    resources.reset()  # drop every connection, as a new process would
    agent = ga.load("example")
    s = agent.get_session(sid)
    assert s.pending == "What is your name?"
    assert s.send("Cy").text == "Hello Cy! Favourite colour?"


async def test_async_api(example_spec: Any) -> None:
    s = ga.load("example").session()
    reply = await s.asend("name:Di")
    assert reply.text == "Hello Di! Favourite colour?"
    kinds = [ev.type async for ev in s.astream("green")]
    assert kinds[-1] == "final" and "token" in kinds
    with pytest.raises(InputError):
        s.astream("")


async def test_concurrent_sessions_do_not_mix(example_spec: Any) -> None:
    agent = ga.load("example")
    sessions = [agent.session() for _ in range(6)]
    await asyncio.gather(*(s.asend(f"name:P{i}") for i, s in enumerate(sessions)))
    replies = await asyncio.gather(*(s.asend(f"c{i}") for i, s in enumerate(sessions)))
    assert [r.text for r in replies] == [f"P{i} likes c{i}." for i in range(6)]
