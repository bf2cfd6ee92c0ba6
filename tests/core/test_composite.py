"""Composite graphs through the runtime: subgraph events, parallel questions, async nodes, usage, artifacts."""

from __future__ import annotations

import asyncio
import threading
import uuid
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

import graphagents as ga
from example_agent import EchoModel
from graphagents import _connections
from graphagents.artifacts import ChartArtifact, CitationArtifact, TableArtifact
from graphagents.events import FinalEvent, StepEvent, ToolCallEvent

TURNS = ["plan a trip", "Jeju", "next week"]


def test_subgraph_events_carry_their_namespace(trip_spec: Any) -> None:
    reply = ga.load("trip").session().send("plan a trip")
    calls = [e for e in reply.events if isinstance(e, ToolCallEvent)]
    assert [(c.tool, c.namespace) for c in calls] == [("search", ("research",))]
    decisions = [e for e in reply.events if e.type == "decision"]
    assert decisions and all(d.namespace == ("research",) for d in decisions)
    steps = {(e.namespace, e.node) for e in reply.events if isinstance(e, StepEvent) and e.phase == "end"}
    assert {((), "research"), (("research",), "search"), (("research",), "summarise")} <= steps
    assert reply.events[-1].to_dict()["namespace"] == []
    assert calls[0].to_dict()["namespace"] == ["research"]


def test_parallel_questions_are_all_shown_and_answered_one_by_one(trip_spec: Any) -> None:
    s = ga.load("trip").session(traveller="Kim")
    first = s.send("plan a trip")
    assert not first.done and first.text == "Where would you like to go?"
    assert [(q.text, q.path) for q in first.questions] == [
        ("Where would you like to go?", ("ask_destination",)), ("When do you travel?", ("ask_dates",))]
    assert len({q.id for q in first.questions}) == 2
    assert s.pending == first.text and [q.text for q in s.questions] == [q.text for q in first.questions]

    second = s.send("Jeju")  # answers the first question only
    assert second.text == "When do you travel?" and [q.text for q in second.questions] == ["When do you travel?"]
    assert second.state["destination"] == "Jeju" and "dates" not in second.state

    third = s.send("next week")
    assert third.done and third.questions == ()
    assert third.text == "Kim: Jeju, next week. Take it slow."
    # both branches appended to the reducer list: no update was lost
    assert sorted(third.state["notes"]) == ["dates: next week", "destination: Jeju", "request: plan a trip"]
    assert s.questions == [] and s.pending is None


def test_pending_questions_survive_a_restart(trip_spec: Any, fresh_resources: None) -> None:
    sid = f"trip-{uuid.uuid4().hex[:8]}"
    ga.load("trip").session(sid).send("plan a trip")
    _connections.reset()
    s = ga.load("trip").get_session(sid)
    assert [q.text for q in s.questions] == ["Where would you like to go?", "When do you travel?"]
    assert s.send("Busan").text == "When do you travel?"


async def test_async_node_runs_through_asend_and_astream(trip_spec: Any) -> None:
    agent = ga.load("trip")
    assert agent.async_nodes
    s = agent.session()
    assert (await s.asend("plan a trip")).text == "Where would you like to go?"
    assert (await s.asend("Seoul")).text == "When do you travel?"
    events = [e async for e in s.astream("today")]
    final = events[-1]
    assert isinstance(final, FinalEvent) and final.done and final.text == "guest: Seoul, today. Take it slow."
    assert [e.text for e in events if e.type == "token"][0] == "guest: "


def test_sync_send_runs_async_nodes_on_the_turn_loop(trip_spec: Any) -> None:
    s = ga.load("trip").session()
    replies = [s.send(t) for t in TURNS]
    assert replies[-1].done and "Take it slow." in replies[-1].text


def test_sync_nodes_of_async_turns_run_in_the_turn_pool(example_spec: Any) -> None:
    seen: list[str] = []

    class S(TypedDict, total=False):
        user_input: str
        reply: str

    def node(state: S) -> dict[str, Any]:
        seen.append(threading.current_thread().name)
        return {"reply": "ok"}

    def build(ctx: ga.BuildContext) -> Any:
        g = StateGraph(S)
        g.add_node("node", node)
        g.add_edge(START, "node")
        g.add_edge("node", END)
        return g.compile(checkpointer=ctx.checkpointer)

    ga.register(ga.AgentSpec(name="where", title="where", description="thread names", build=build))
    try:
        s = ga.load("where").session()
        assert asyncio.run(s.asend("go")).text == "ok"
        s.send("again")
    finally:
        from graphagents.registry import unregister

        unregister("where")
    assert seen[0].startswith("graphagents-turn")  # not asyncio's default executor
    assert not seen[1].startswith("graphagents-turn")  # the sync path is LangGraph's own sync runner


def test_usage_counts_model_calls_in_subgraphs_and_async_nodes(trip_spec: Any) -> None:
    planner, researcher = EchoModel(reply="Go east then west."), EchoModel(reply="quiet season")
    s = ga.load("trip", models={"planner": planner, "researcher": researcher}).session()
    first = s.send("plan a trip")
    # researcher inside the subgraph: "Summarise: guide: quiet season; guide: pack light" = 7 words in, 2 out
    assert (first.usage.model_calls, first.usage.input_tokens, first.usage.output_tokens) == (1, 7, 2)
    assert first.usage.steps == 5  # research, search, summarise, and the two asking branches
    assert first.usage.latency_ms > 0
    second = s.send("Jeju")
    assert second.usage.model_calls == 0
    third = s.send("next week")
    # planner in the async node: "Plan Jeju on next week" = 5 words in, 4 out
    assert (third.usage.model_calls, third.usage.input_tokens, third.usage.output_tokens) == (1, 5, 4)
    assert third.text.endswith("Go east then west.")
    final = third.events[-1].to_dict()
    assert final["usage"]["model_calls"] == 1 and final["usage"]["input_tokens"] == 5


def test_model_roles_fall_back_to_the_agents_llm(trip_spec: Any) -> None:
    llm = EchoModel(reply="from the main llm")
    agent = ga.load("trip", llm, models={"researcher": "offline"})
    ctx = agent.build_context
    assert ctx.model("planner") is llm and ctx.model("researcher") is None and ctx.model("judge") is llm
    s = agent.session()
    for text in TURNS:
        reply = s.send(text)
    assert reply.text.endswith("from the main llm")


def test_model_roles_from_settings(trip_spec: Any, tmp_path: Any) -> None:
    settings = ga.Settings(data_dir=tmp_path, models={"planner": "offline"})
    agent = ga.load("trip", EchoModel(), settings=settings)
    assert agent.build_context.model("planner") is None
    with pytest.raises(ga.UnknownProviderError):
        ga.load("trip", settings=ga.Settings(data_dir=tmp_path, models={"judge": "bogus:model"}))


def test_artifacts_are_typed_on_the_reply_and_the_final_event(trip_spec: Any) -> None:
    s = ga.load("trip").session(budget=80)
    for text in TURNS:
        reply = s.send(text)
    kinds = [type(a) for a in reply.artifacts]
    assert kinds == [TableArtifact, ChartArtifact, CitationArtifact]
    table, chart, citation = reply.artifacts
    assert isinstance(table, TableArtifact) and table.columns == ["day", "activity"] and table.title == "Itinerary"
    assert isinstance(chart, ChartArtifact) and chart.spec["data"]["values"][0]["cost"] == 80
    assert isinstance(citation, CitationArtifact) and citation.ref == "[1]"
    data = reply.events[-1].to_dict()["artifacts"]
    assert [a["kind"] for a in data] == ["table", "chart", "citation"]
    assert "artifacts" not in reply.state  # they travel on the final event, not in the public state
    assert reply.to_dict()["artifacts"] == data


class Inner(TypedDict, total=False):
    user_input: str
    answer: str


class Outer(TypedDict, total=False):
    user_input: str
    answer: str
    reply: str


def _nested_build(ctx: ga.BuildContext) -> Any:
    def ask(state: Inner) -> dict[str, Any]:
        return {"answer": interrupt("Inner question?")}

    inner = StateGraph(Inner)
    inner.add_node("ask", ask)
    inner.add_edge(START, "ask")
    inner.add_edge("ask", END)
    g = StateGraph(Outer)
    g.add_node("team", inner.compile())
    g.add_node("done", lambda s: {"reply": f"got {s['answer']}"})
    g.add_edge(START, "team")
    g.add_edge("team", "done")
    g.add_edge("done", END)
    return g.compile(checkpointer=ctx.checkpointer)


def test_a_question_asked_inside_a_subgraph_names_its_path() -> None:
    from graphagents.registry import unregister

    ga.register(ga.AgentSpec(name="nested", title="nested", description="inner interrupt", build=_nested_build))
    try:
        s = ga.load("nested").session()
        first = s.send("hi")
        assert [(q.text, q.path) for q in first.questions] == [("Inner question?", ("team", "ask"))]
        assert [q.path for q in s.questions] == [("team", "ask")]
        assert s.send("42").text == "got 42"
    finally:
        unregister("nested")
