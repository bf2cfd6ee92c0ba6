"""``nonblocking``: async runs call the node on the event loop's thread; sync runs are unchanged."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

import graphagents as ga
from graphagents.runtime import has_async_nodes
from graphagents.testing import ScriptedChatModel


class State(TypedDict, total=False):
    seen: list[str]
    answer: str


def _graph(quick: bool) -> Any:
    wrap = ga.nonblocking if quick else (lambda fn: fn)

    def first(state: State, config: RunnableConfig) -> dict[str, Any]:
        ga.emit(ga.DecisionEvent("first", "ran", "test"))
        where = "loop" if _on_loop() else "thread"
        return {"seen": [*state.get("seen", []), f"first:{where}:{config['configurable']['thread_id']}"]}

    def ask(state: State) -> dict[str, Any]:
        return {"answer": str(interrupt("?"))}

    def route(state: State) -> str:
        return "ask" if not state.get("answer") else END

    g = StateGraph(State)
    g.add_node("first", wrap(first))
    g.add_node("ask", wrap(ask))
    g.add_edge(START, "first")
    g.add_conditional_edges("first", wrap(route), ["ask", END])
    g.add_edge("ask", END)
    return g.compile(checkpointer=InMemorySaver())


def _on_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def _arun(graph: Any, thread: str) -> tuple[list[Any], dict[str, Any]]:
    config: RunnableConfig = {"configurable": {"thread_id": thread}}
    chunks = [c async for c in graph.astream({"seen": []}, config, stream_mode="custom")]
    async for _ in graph.astream(Command(resume="네"), config):
        pass
    return chunks, (await graph.aget_state(config)).values


def test_async_runs_call_it_on_the_loop_thread_and_plain_nodes_in_a_worker() -> None:
    chunks, values = asyncio.run(_arun(_graph(quick=True), "t1"))
    assert values == {"seen": ["first:loop:t1"], "answer": "네"}  # config injected, interrupt resumed
    assert [(c.kind, c.choice) for c in chunks] == [("first", "ran")]  # emit() reaches the stream
    _, plain = asyncio.run(_arun(_graph(quick=False), "t2"))
    assert plain["seen"] == ["first:thread:t2"]


def test_sync_runs_are_unchanged_and_the_graph_still_counts_as_sync() -> None:
    graph = _graph(quick=True)
    assert not has_async_nodes(graph)
    config: RunnableConfig = {"configurable": {"thread_id": "s"}}
    list(graph.stream({"seen": []}, config))
    list(graph.stream(Command(resume="예"), config))
    assert graph.get_state(config).values == {"seen": ["first:thread:s"], "answer": "예"}
    assert threading.current_thread() is threading.main_thread()


def test_offline_slotfill_runs_its_turn_nodes_on_the_loop_and_model_nodes_in_threads() -> None:
    def kinds(agent: ga.Agent) -> dict[str, bool]:
        return {name: getattr(node.bound, "afunc", None) is not None
                and getattr(node.bound.afunc, "__name__", "") == "on_loop"
                for name, node in agent.graph.nodes.items() if not name.startswith("__")}

    offline = kinds(ga.load("slotfill"))
    assert offline == {"start": True, "ask": True, "process": True, "finish": False}  # finish writes the app DB
    with_model = kinds(ga.load("slotfill", llm=ScriptedChatModel(responses=[], default="{}")))
    assert with_model == {"start": False, "ask": False, "process": False, "finish": False}
