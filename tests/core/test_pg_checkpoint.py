"""The async PostgreSQL saver the runtime opens (graphagents._pg_checkpoint.InlinePostgresSaver):
what it stores reads back through LangGraph's stock savers exactly as what the stock async saver
stores, it never hands work to a thread, and on a pool its queries do not queue behind one lock."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Interrupt, interrupt

from graphagents._checkpoint import aclose_saver, open_async_checkpointer
from graphagents._pg_checkpoint import InlinePostgresSaver

pytestmark = pytest.mark.postgres


class State(TypedDict, total=False):
    slots: dict[str, Any]
    reply: str
    turns: int


def _graph(saver: Any) -> Any:
    def ask(state: State) -> dict[str, Any]:
        answer = interrupt({"text": f"질문 {state.get('turns', 0)}"})
        return {"reply": str(answer), "turns": state.get("turns", 0) + 1}

    def fill(state: State) -> dict[str, Any]:
        return {"slots": {**(state.get("slots") or {}), f"k{state['turns']}": state["reply"] * 2}}

    g = StateGraph(State)
    g.add_node("ask", ask)
    g.add_node("fill", fill)
    g.add_edge(START, "ask")
    g.add_edge("ask", "fill")
    g.add_conditional_edges("fill", lambda s: END if s["turns"] >= 3 else "ask")
    return g.compile(checkpointer=saver)


async def _converse(graph: Any, thread: str) -> None:
    config = {"configurable": {"thread_id": thread}}
    await graph.ainvoke({"slots": {}, "turns": 0}, config)
    for text in ("하나", "둘", "셋"):
        await graph.ainvoke(Command(resume=text), config)


def _without_ids(value: Any) -> Any:
    """Interrupt ids hash the thread's checkpoint ids: compare what was asked."""
    if isinstance(value, list) and value and all(isinstance(v, Interrupt) for v in value):
        return [v.value for v in value]
    return value


def _history(url: str, thread: str) -> list[tuple[Any, ...]]:
    """Every checkpoint of a thread as LangGraph's stock sync saver reads it, ids left out."""
    with PostgresSaver.from_conn_string(url) as reader:
        return [(t.metadata.get("step"), t.metadata.get("source"), t.checkpoint["channel_values"],
                 sorted((channel, repr(_without_ids(value))) for _task, channel, value in t.pending_writes or []),
                 t.parent_config is not None)
                for t in reader.list({"configurable": {"thread_id": thread}})]


async def test_what_it_stores_reads_back_like_the_stock_savers(pg_database: str) -> None:
    saver = await open_async_checkpointer(pg_database)
    assert isinstance(saver, InlinePostgresSaver)
    try:
        await _converse(_graph(saver), "inline")
    finally:
        await aclose_saver(saver)
    async with AsyncPostgresSaver.from_conn_string(pg_database) as stock:
        await _converse(_graph(stock), "stock")
    inline, reference = _history(pg_database, "inline"), _history(pg_database, "stock")
    assert len(inline) == len(reference) >= 8
    assert inline == reference
    assert inline[0][2]["slots"] == {"k1": "하나하나", "k2": "둘둘", "k3": "셋셋"}


async def test_it_never_hands_work_to_a_thread(pg_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    saver = await open_async_checkpointer(pg_database)

    async def no_thread(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("asyncio.to_thread called on the turn's path")

    try:
        monkeypatch.setattr(asyncio, "to_thread", no_thread)
        graph = _graph(saver)
        await _converse(graph, "t")
        state = await graph.aget_state({"configurable": {"thread_id": "t"}})
        assert state.values["turns"] == 3 and not state.next
    finally:
        monkeypatch.undo()
        await aclose_saver(saver)


async def test_on_a_pool_queries_do_not_wait_for_the_saver_lock(pg_database: str) -> None:
    saver = await open_async_checkpointer(pg_database)
    try:
        await _converse(_graph(saver), "t")
        async with saver.lock:  # type: ignore[attr-defined]  # upstream would queue every query here
            found = await asyncio.wait_for(saver.aget_tuple({"configurable": {"thread_id": "t"}}), 10)
        assert found is not None and found.checkpoint["channel_values"]["turns"] == 3
    finally:
        await aclose_saver(saver)
