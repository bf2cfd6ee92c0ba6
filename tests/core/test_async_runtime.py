"""The async path: async checkpointers, the turn loop, per-session locks across sync and async callers."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

import graphagents as ga
from graphagents import _connections, _loop
from graphagents._locks import TurnLock


def test_sync_and_async_turns_share_one_session(example_spec: Any) -> None:
    """A turn through asend (async saver) and the next through send (sync saver) see the same thread."""
    agent = ga.load("example")
    s = agent.session()
    assert asyncio.run(s.asend("hi")).text == "What is your name?"
    assert s.send("Ada").text == "Hello Ada! Favourite colour?"
    assert asyncio.run(s.asend("blue")).text == "Ada likes blue."
    # one SQLite saver serves both paths: its async calls run inline, no aiosqlite thread per query
    assert _loop.run(_connections.async_checkpointer_for(agent.checkpoint_url)) is agent.checkpointer


def test_sqlite_checkpointer_answers_async_calls_inline_in_wal_with_normal_sync(tmp_path: Path) -> None:
    from graphagents._checkpoint import SqliteCheckpointer, open_checkpointer

    saver = open_checkpointer(f"sqlite:///{tmp_path / 'c.sqlite'}")
    assert isinstance(saver, SqliteCheckpointer)
    assert saver.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert saver.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    threads: list[int] = []
    real_get = saver.get_tuple

    def get_tuple(config: Any) -> Any:
        threads.append(threading.get_ident())
        return real_get(config)

    saver.get_tuple = get_tuple  # type: ignore[method-assign]

    async def read() -> tuple[Any, int]:
        got = await saver.aget_tuple({"configurable": {"thread_id": "t", "checkpoint_ns": ""}})
        return got, threading.get_ident()

    got, loop_thread = asyncio.run(read())
    assert got is None and threads == [loop_thread]


async def test_async_turns_of_one_session_run_one_after_the_other(trip_spec: Any) -> None:
    s = ga.load("trip").session()
    await s.asend("plan a trip")
    # two answers sent at once: the lock orders them, each answers the then-first question
    first, second = await asyncio.gather(s.asend("Jeju"), s.asend("next week"))
    asked, planned = sorted([first, second], key=lambda r: r.done)
    assert asked.text == "When do you travel?" and not asked.done
    assert planned.done and "Jeju" in planned.text and "next week" in planned.text  # neither answer was lost


def test_turn_lock_excludes_threads_and_coroutines() -> None:
    lock = TurnLock()
    order: list[str] = []
    lock_taken = threading.Event()

    def holder() -> None:
        with lock.hold():
            lock_taken.set()
            time.sleep(0.2)
            order.append("thread")

    async def waiter() -> None:
        lock_taken.wait()
        async with lock.ahold():
            order.append("coroutine")

    t = threading.Thread(target=holder)
    t.start()
    asyncio.run(waiter())
    t.join()
    assert order == ["thread", "coroutine"] and not lock.locked()


def test_waiting_coroutines_hold_no_thread() -> None:
    """Twenty coroutines wait on one busy session; the loop stays free for other work."""
    lock = TurnLock()

    async def main() -> list[str]:
        await lock.aacquire()
        done: list[str] = []

        async def one(i: int) -> None:
            async with lock.ahold():
                done.append(f"w{i}")

        waiters = [asyncio.create_task(one(i)) for i in range(20)]
        await asyncio.sleep(0.05)
        done.append("free")  # the loop ran this while all twenty were waiting
        assert threading.active_count() < 20
        lock.release()
        await asyncio.gather(*waiters)
        return done

    done = asyncio.run(main())
    assert done[0] == "free" and sorted(done[1:]) == sorted(f"w{i}" for i in range(20))


def test_async_postgres_checkpointer(example_spec: Any, trip_spec: Any, pg_database: str, tmp_path: Path,
                                     fresh_resources: None) -> None:
    settings = ga.Settings(checkpoint_url=pg_database, data_dir=tmp_path)
    agent = ga.load("trip", settings=settings)
    sid = f"apg-{uuid.uuid4().hex[:8]}"
    s = agent.session(sid)
    assert asyncio.run(s.asend("plan a trip")).text == "Where would you like to go?"
    saver = _loop.run(_connections.async_checkpointer_for(pg_database))
    assert type(saver).__name__ == "InlinePostgresSaver"  # LangGraph's AsyncPostgresSaver, cheaper per call
    _connections.reset()  # a restart: the sync saver reads what the async one wrote
    again = ga.load("trip", settings=settings).get_session(sid)
    assert [q.text for q in again.questions] == ["Where would you like to go?", "When do you travel?"]
    assert again.send("Jeju").text == "When do you travel?"
    assert asyncio.run(again.asend("soon")).done


def test_a_crash_inside_an_async_turn_is_an_error_event(trip_spec: Any, monkeypatch: pytest.MonkeyPatch,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    s = ga.load("trip").session(budget=5)
    s.send("plan a trip")
    s.send("Jeju")
    import example_agent

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("chart library missing")

    monkeypatch.setattr(example_agent, "ChartArtifact", broken)
    caplog.set_level(logging.ERROR, logger="graphagents")
    reply = asyncio.run(s.asend("today"))
    errors = [e for e in reply.events if e.type == "error"]
    assert errors and errors[0].to_dict()["code"] == "internal"
    # the exception's text is logged with a reference, never sent to the client
    ref = errors[0].to_dict()["message"].split("ref ")[1].split(")")[0]
    assert "chart library missing" not in str([e.to_dict() for e in reply.events])
    assert any(ref in r.getMessage() and "chart library missing" in r.exc_text for r in caplog.records if r.exc_text)
    assert not reply.done and "죄송합니다" in reply.text
    assert [q.text for q in s.questions] == []  # the session stays usable: the run can be retried


ADOPTED = """
import asyncio, threading
import graphagents as ga
from graphagents import _loop

async def main():
    assert _loop.adopt(asyncio.get_running_loop(), 2)
    session = await asyncio.to_thread(ga.load("slotfill").session)
    reply = await session.asend("안녕하세요")
    assert reply.text and not reply.done
    names = [t.name for t in threading.enumerate()]
    assert "graphagents-turn-loop" not in names, names
    assert _loop.turn_loop() is asyncio.get_running_loop()
    print("adopted")

asyncio.run(main())
"""


def test_a_server_loop_adopted_as_the_turn_loop_runs_the_turns_itself(tmp_path: Path) -> None:
    """What ``graphagents serve`` does: turns run on the server's loop, no turn-loop thread starts."""
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", ADOPTED], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "GRAPHAGENTS_DATA_DIR": str(tmp_path)})
    assert done.returncode == 0 and done.stdout.strip() == "adopted", done.stderr[-2000:]


def test_no_loop_is_adopted_while_another_turn_loop_runs() -> None:
    running = _loop.turn_loop()
    other = asyncio.new_event_loop()
    try:
        assert not _loop.adopt(other)
        assert _loop.turn_loop() is running
    finally:
        other.close()



async def test_events_put_from_another_thread_arrive_in_bursts_then_the_failure() -> None:
    from graphagents.events import TokenEvent
    from graphagents.runtime import _END, STARTED, _Pipe

    pipe = _Pipe(asyncio.get_running_loop())

    def turn() -> None:  # what a turn on another thread puts, all before this loop looks
        for item in (STARTED, TokenEvent("a"), TokenEvent("b"), RuntimeError("saver vanished"), _END):
            pipe.put(item)

    # joined while this loop is blocked: with to_thread the loop could run a delivery between two
    # puts (a burst of one event), which made this test flaky under load
    other = threading.Thread(target=turn)
    other.start()
    other.join()
    assert await pipe.get() is STARTED
    bursts = pipe.bursts()
    assert [e.text for e in await bursts.__anext__()] == ["a", "b"]  # one burst: one SSE chunk
    with pytest.raises(RuntimeError, match="saver vanished"):
        await bursts.__anext__()


async def test_a_turn_that_ends_without_events_gives_no_empty_burst() -> None:
    from graphagents.runtime import _END, STARTED, _Pipe

    pipe = _Pipe(asyncio.get_running_loop())
    pipe.put(STARTED)
    pipe.put(_END)
    assert await pipe.get() is STARTED
    assert [burst async for burst in pipe.bursts()] == []


async def test_events_put_on_the_callers_own_loop_wake_it_without_the_threadsafe_path(monkeypatch) -> None:
    from graphagents.events import TokenEvent
    from graphagents.runtime import _END, STARTED, _Pipe

    loop = asyncio.get_running_loop()
    pipe = _Pipe(loop)

    def refuse(*args: object) -> None:
        raise AssertionError("call_soon_threadsafe writes to the loop's self-pipe: not needed on its own thread")

    monkeypatch.setattr(loop, "call_soon_threadsafe", refuse)
    for item in (STARTED, TokenEvent("a"), TokenEvent("b"), _END):
        pipe.put(item)  # a turn on the server's loop (adopted): same thread as the response
    assert await pipe.get() is STARTED
    assert [[e.text for e in burst] async for burst in pipe.bursts()] == [["a", "b"]]


async def test_a_lingering_pipe_sends_a_turns_steps_together_and_never_holds_the_final_event() -> None:
    import time

    from graphagents.events import FinalEvent, TokenEvent
    from graphagents.runtime import _END, STARTED, _Pipe

    pipe = _Pipe(asyncio.get_running_loop(), linger=0.5)
    pipe.put(STARTED)
    assert await pipe.get() is STARTED  # STARTED is never held: the response starts at once
    started = time.perf_counter()
    pipe.put(TokenEvent("a"))
    for _ in range(5):
        await asyncio.sleep(0)  # steps of a turn: the loop turns over between them
    pipe.put(TokenEvent("b"))
    pipe.put(FinalEvent("끝", True))
    pipe.put(_END)
    bursts = [[getattr(e, "text", None) for e in burst] async for burst in pipe.bursts()]
    assert bursts == [["a", "b", "끝"]]
    assert time.perf_counter() - started < 0.4  # the final event went out without waiting for the timer


async def test_a_lingering_pipe_sends_what_it_holds_when_the_linger_is_over() -> None:
    from graphagents.events import TokenEvent
    from graphagents.runtime import STARTED, _Pipe

    pipe = _Pipe(asyncio.get_running_loop(), linger=0.05)
    pipe.put(STARTED)
    await pipe.get()
    pipe.put(TokenEvent("a"))  # a slow model: nothing follows for a while
    bursts = pipe.bursts()
    burst = await asyncio.wait_for(bursts.__anext__(), 2)
    assert [e.text for e in burst] == ["a"]
