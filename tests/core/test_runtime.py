from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

import graphagents as ga
from graphagents.errors import ConfigError, InputError, UnknownAgentError, UnknownSessionError
from graphagents.events import FinalEvent, StateUpdateEvent, StepEvent


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


def test_step_cap_ends_the_turn_politely(example_spec: Any) -> None:
    agent = ga.load("example", loop=True)
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
    with pytest.raises(InputError):
        agent.session("bad id!")


def test_session_resumes_after_restart(example_spec: Any, fresh_resources: None) -> None:
    from graphagents import resources

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


def test_public_surface() -> None:
    assert set(ga.__all__) == {
        "Agent", "AgentSpec", "BuildContext", "DecisionEvent", "ErrorEvent", "Event", "FinalEvent",
        "GraphAgentsError", "Reply", "RunError", "Session", "SessionContext", "Settings", "StateUpdateEvent",
        "StepEvent", "TokenEvent", "ToolCallEvent", "ToolResultEvent", "UsageError", "all_specs", "emit",
        "get_settings", "get_spec", "load", "register",
    }
    for name in ga.__all__:
        assert getattr(ga, name) is not None
