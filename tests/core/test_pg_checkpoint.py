"""The async PostgreSQL saver the runtime opens (graphagents._pg_checkpoint.InlinePostgresSaver):
what it stores reads back through LangGraph's stock savers exactly as what the stock async saver
stores, it never hands work to a thread, on a pool its queries do not queue behind one lock, and
inside a turn (``turn_reads``) it reads a thread's head once and answers later reads of it exactly
as the database would."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import psycopg
import pytest
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Interrupt, interrupt
from psycopg import AsyncCursor

from graphagents._checkpoint import aclose_saver, current_turn_reads, open_async_checkpointer, turn_reads
from graphagents._pg_checkpoint import InlinePostgresSaver

pytestmark = pytest.mark.postgres


class State(TypedDict, total=False):
    slots: dict[str, Any]
    reply: str
    turns: int
    amount: float  # inline in the checkpoint's JSON: jsonb prints 1e+16 as an integer
    profile: dict[str, Any]  # a blob written once: later checkpoints point at its first version


AMOUNTS = (0.1, 1e16, 1e-07, 2.5e3)


def _graph(saver: Any) -> Any:
    def ask(state: State) -> dict[str, Any]:
        answer = interrupt({"text": f"질문 {state.get('turns', 0)}"})
        return {"reply": str(answer), "turns": state.get("turns", 0) + 1}

    def fill(state: State) -> dict[str, Any]:
        return {"slots": {**(state.get("slots") or {}), f"k{state['turns']}": state["reply"] * 2},
                "amount": AMOUNTS[state["turns"] % len(AMOUNTS)]}

    g = StateGraph(State)
    g.add_node("ask", ask)
    g.add_node("fill", fill)
    g.add_edge(START, "ask")
    g.add_edge("ask", "fill")
    g.add_conditional_edges("fill", lambda s: END if s["turns"] >= 3 else "ask")
    return g.compile(checkpointer=saver)


async def _converse(graph: Any, thread: str) -> None:
    config = {"configurable": {"thread_id": thread}}
    await graph.ainvoke({"slots": {}, "turns": 0, "profile": {"이름": "김민수"}}, config)
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


def _statements(monkeypatch: pytest.MonkeyPatch, first_word: str) -> list[str]:
    """The async statements starting with ``first_word`` sent from now on, in order."""
    sent: list[str] = []
    execute = AsyncCursor.execute

    async def counted(cur: AsyncCursor[Any], query: Any, *args: Any, **kwargs: Any) -> Any:
        if str(query).lstrip().lower().startswith(first_word):
            sent.append(str(query))
        return await execute(cur, query, *args, **kwargs)

    monkeypatch.setattr(AsyncCursor, "execute", counted)
    return sent


def _exact(found: Any) -> str:
    """Everything a read returns, key order included (LangGraph hands these dicts on as they are)."""
    if found is None:
        return "None"
    return repr((found.config, found.checkpoint, found.metadata, found.parent_config, found.pending_writes))


async def test_inside_a_turn_reads_answer_as_the_database_does_with_one_query(
        pg_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    saver = await open_async_checkpointer(pg_database)
    stock = AsyncPostgresSaver(saver.conn)  # type: ignore[arg-type]  # reads the same pool, uncached
    selects = _statements(monkeypatch, "select")
    graph = _graph(saver)
    config = {"configurable": {"thread_id": "t"}}
    try:
        async with turn_reads("t"):
            await graph.ainvoke({"slots": {}, "turns": 0, "profile": {"이름": "김민수"}}, config)
        for text in ("하나", "둘", "셋"):
            async with turn_reads("t"):
                selects.clear()
                before = await graph.aget_state(config)  # what the runtime reads before the run
                await graph.ainvoke(Command(resume=text), config)
                after = await graph.aget_state(config)
                assert len(selects) == 1, selects  # the run's read and the last one came from the head
                cached = await saver.aget_tuple(config)
                assert _exact(cached) == _exact(await stock.aget_tuple(config))
                assert current_turn_reads("t") is not None
                assert current_turn_reads("u") is None  # another thread's reads are not kept
            assert before.values["turns"] + 1 == after.values["turns"]
            if after.values["turns"] == 1:
                assert after.values["amount"] == 1e16 and type(after.values["amount"]) is int  # as jsonb has it
        assert current_turn_reads("t") is None
        assert after.values["slots"] == {"k1": "하나하나", "k2": "둘둘", "k3": "셋셋"}
    finally:
        await aclose_saver(saver)


async def test_a_write_that_fails_inside_a_turn_sends_the_next_read_to_the_database(pg_database: str) -> None:
    saver = await open_async_checkpointer(pg_database)
    config = {"configurable": {"thread_id": "t"}}
    try:
        await _converse(_graph(saver), "t")
        async with turn_reads("t"):
            head = await saver.aget_tuple(config)
            assert head is not None
            reads = current_turn_reads("t")
            assert reads is not None and reads.heads
            bad = {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": head.config[
                "configurable"]["checkpoint_id"]}}
            await saver.aput_writes(bad, [("reply\x00", "x")], "task-1")  # held back for the next statement
            with pytest.raises(psycopg.DataError):  # a NUL cannot go into a text column: the insert fails
                await saver.aget_tuple(config)  # a read sends the writes held back first
            assert not reads.heads and not reads.pending  # nothing known about the thread any more
            again = await saver.aget_tuple(config)
            assert _exact(again) == _exact(head)
            assert reads.heads  # read from the database and kept again
    finally:
        await aclose_saver(saver)


async def test_writes_that_commit_before_their_checkpoint_are_part_of_its_head(pg_database: str) -> None:
    """With durability "async" a task's writes can commit before the checkpoint they belong to."""
    from langgraph.checkpoint.base import copy_checkpoint
    from langgraph.checkpoint.base.id import uuid6

    saver = await open_async_checkpointer(pg_database)
    stock = AsyncPostgresSaver(saver.conn)  # type: ignore[arg-type]
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    try:
        await _converse(_graph(saver), "t")
        async with turn_reads("t"):
            head = await saver.aget_tuple(config)
            assert head is not None
            following = copy_checkpoint(head.checkpoint)
            following["id"] = str(uuid6(clock_seq=-1))
            written = {**config["configurable"], "checkpoint_id": following["id"]}
            await saver.aput_writes({"configurable": written}, [("reply", "먼저 온 답")], "task-early")
            await saver.aput(head.config, following, {"source": "loop", "step": 99}, {})  # no channel changed
            found = await saver.aget_tuple(config)
            assert found is not None and found.pending_writes == [("task-early", "reply", "먼저 온 답")]
            assert found.checkpoint["channel_values"]["profile"] == {"이름": "김민수"}  # an older blob
            assert _exact(found) == _exact(await stock.aget_tuple(config))
    finally:
        await aclose_saver(saver)


def _checkpoint_statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The saver's writing statements from now on (all start with WITH), in order."""
    return _statements(monkeypatch, "with")


async def test_inside_a_turn_a_run_is_stored_in_one_statement(
        pg_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A resume turn of the test graph (ask's writes, the checkpoint after ask, fill's writes, the
    checkpoint after fill, the interrupt's writes: five statements with the stock saver's batching,
    more without) is held back until the thread is read and then stored in one statement, which
    reads back exactly as the stock saver reads what it stored."""
    saver = await open_async_checkpointer(pg_database)
    stock = AsyncPostgresSaver(saver.conn)  # type: ignore[arg-type]
    config = {"configurable": {"thread_id": "t"}}
    graph = _graph(saver)
    try:
        async with turn_reads("t"):
            await graph.ainvoke({"slots": {}, "turns": 0, "profile": {"이름": "김민수"}}, config)
        sent = _checkpoint_statements(monkeypatch)
        async with turn_reads("t") as reads:
            await graph.ainvoke(Command(resume="하나"), config)
            assert sent == [] and any(reads.pending.values())
            state = await graph.aget_state(config)
            assert len(sent) == 1 and "INSERT INTO checkpoints" in sent[0] and "new_writes" in sent[0]
            assert not any(reads.pending.values())
            assert state.interrupts and state.interrupts[0].value == {"text": "질문 1"}
            assert state.values["slots"] == {"k1": "하나하나"}
            assert _exact(await saver.aget_tuple(config)) == _exact(await stock.aget_tuple(config))
        assert len(sent) == 1
    finally:
        await aclose_saver(saver)
    assert len(_history(pg_database, "t")) == 4  # every checkpoint of the two turns (two each) was stored


async def test_writes_a_failed_checkpoint_carried_are_not_stored_either(
        pg_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task's writes and the checkpoint they are sent with commit together or not at all."""
    from langgraph.checkpoint.base import copy_checkpoint
    from langgraph.checkpoint.base.id import uuid6

    saver = await open_async_checkpointer(pg_database)
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}
    try:
        await _converse(_graph(saver), "t")
        async with turn_reads("t") as reads:
            head = await saver.aget_tuple(config)
            assert head is not None
            await saver.aput_writes(head.config, [("reply", "남은 답")], "task-lost")
            following = copy_checkpoint(head.checkpoint)
            following["id"] = str(uuid6(clock_seq=-1))
            following["channel_values"]["reply"] = "a\x00b"  # inline in the jsonb column, which refuses a NUL
            await saver.aput(head.config, following, {"source": "loop", "step": 99}, {})  # held back
            with pytest.raises(psycopg.Error):
                await saver.aget_tuple(config)  # the read sends it: the statement fails
            assert not reads.heads and not any(reads.pending.values())
        with psycopg.connect(pg_database) as conn:
            assert conn.execute("SELECT count(*) FROM checkpoint_writes WHERE task_id = 'task-lost'").fetchone() == (0,)
            assert conn.execute("SELECT count(*) FROM checkpoints WHERE checkpoint_id = %s",
                                (following["id"],)).fetchone() == (0,)
    finally:
        await aclose_saver(saver)


async def test_writes_held_back_longer_than_the_linger_are_sent_in_the_background(
        pg_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished task next to a long one: its writes are stored without waiting for the step's
    checkpoint, so a crash meanwhile does not lose them."""
    saver = await open_async_checkpointer(pg_database)
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": ""}}

    def stored() -> int:
        with psycopg.connect(pg_database) as conn:
            row = conn.execute("SELECT count(*) FROM checkpoint_writes WHERE task_id = 'task-done'").fetchone()
            return int(row[0]) if row else 0

    try:
        await _converse(_graph(saver), "t")
        async with turn_reads("t", linger=0.05) as reads:
            head = await saver.aget_tuple(config)
            assert head is not None
            await saver.aput_writes(head.config, [("reply", "먼저 끝난 답")], "task-done")
            assert stored() == 0
            for _ in range(100):
                await asyncio.sleep(0.02)
                if stored():
                    break
            assert stored() == 1 and not any(reads.pending.values())
            found = await saver.aget_tuple(config)  # the head knows the write: no second statement needed
            assert found is not None and ("task-done", "reply", "먼저 끝난 답") in found.pending_writes
    finally:
        await aclose_saver(saver)


@pytest.mark.parametrize(("linger_ms", "stores"), [(1000, 1), (0, 6)])
def test_a_turn_runs_its_statements_on_the_connection_holding_its_session_lock(
        tmp_path: Any, pg_database: str, fresh_resources: None, monkeypatch: pytest.MonkeyPatch,
        linger_ms: float, stores: int) -> None:
    """No pool checkout per statement: the saver's pool lends nothing during a turn, the session
    check runs on the lock's connection too (no thread), and the turn still answers right; the
    run's checkpoints and writes are one statement, or one each with ``CHECKPOINT_LINGER_MS=0``."""
    import graphagents as ga
    from graphagents import _connections, _loop
    from graphagents.agents.slotfill.spec import SPEC as SLOTFILL
    from graphagents.registry import unregister
    from graphagents.settings import Settings

    ga.register(SLOTFILL)
    try:
        agent = ga.load("slotfill", settings=Settings(data_dir=tmp_path, checkpoint_url=pg_database,
                                                      warm_on_start=False, checkpoint_linger_ms=linger_ms))
        session = agent.session()
        asyncio.run(session.asend("안녕하세요"))
        saver = _loop.run(_connections.async_checkpointer_for(pg_database))
        lent = saver.conn.get_stats().get("requests_num", 0)  # type: ignore[attr-defined]
        sent = _checkpoint_statements(monkeypatch)
        reply = asyncio.run(session.asend("전화번호는 010-4001-7919이에요"))
        assert saver.conn.get_stats().get("requests_num", 0) == lent  # type: ignore[attr-defined]
        assert len(sent) == stores
        assert reply.state["slots"].get("customer_phone") == "010-4001-7919"
    finally:
        unregister(SLOTFILL.name)


async def test_with_no_linger_each_checkpoint_and_write_is_stored_as_it_comes(
        pg_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``CHECKPOINT_LINGER_MS=0``: nothing is held back (LangGraph's durability alone decides), and
    reads inside the turn still answer exactly as the database does."""
    saver = await open_async_checkpointer(pg_database)
    stock = AsyncPostgresSaver(saver.conn)  # type: ignore[arg-type]
    config = {"configurable": {"thread_id": "t"}}
    graph = _graph(saver)
    try:
        async with turn_reads("t", linger=0):
            await graph.ainvoke({"slots": {}, "turns": 0, "profile": {"이름": "김민수"}}, config)
        sent = _checkpoint_statements(monkeypatch)
        async with turn_reads("t", linger=0) as reads:
            await graph.ainvoke(Command(resume="하나"), config)
            assert len(sent) == 6 and not any(reads.pending.values())  # 2 checkpoints, 4 tasks' writes
            state = await graph.aget_state(config)
            assert len(sent) == 6 and state.values["slots"] == {"k1": "하나하나"}
            assert _exact(await saver.aget_tuple(config)) == _exact(await stock.aget_tuple(config))
    finally:
        await aclose_saver(saver)
