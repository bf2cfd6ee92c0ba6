"""Session locks across processes (defect 2), no head-of-line blocking and bounded queues (defect 4),
and erasure that cannot race a running turn."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from reliability_servers import Server
from sse_client import parse_sse

from graphagents import _loop
from graphagents._locks import FileLocks, PostgresLocks, RedisLocks, SessionLocks
from graphagents.errors import BusyError
from graphagents.server import create_app
from graphagents.settings import Settings

# -- defect 2: two server processes on one Postgres ----------------------------------------------------------


def _post(url: str, text: str) -> list[tuple[str, dict[str, Any]]]:
    res = httpx.post(url, json={"text": text}, timeout=60)
    assert res.status_code == 200, res.text
    return parse_sse(res.text)


@pytest.mark.slow
def test_two_servers_on_one_postgres_lose_no_acknowledged_update(tmp_path: Path, pg_database: str) -> None:
    """Two simultaneous corrections to one session, one per server: both must stick (20/20 sessions
    lost one of them while the lock was a threading.Lock)."""
    env = {"GRAPHAGENTS_CHECKPOINT_URL": pg_database}
    with Server(tmp_path / "a", env=env) as a, Server(tmp_path / "b", env=env) as b:
        sessions = []
        for _ in range(8):
            sid = httpx.post(f"{a.url}/api/agents/slotfill/sessions", json={}, timeout=30).json()["session_id"]
            _post(f"{a.url}/api/agents/slotfill/sessions/{sid}/messages", "안녕하세요")
            sessions.append(sid)
        _post(f"{b.url}/api/agents/slotfill/sessions/{sessions[0]}/messages", "다시 말해주세요")  # B warm too
        barrier = threading.Barrier(2)

        def correct(server: Server, sid: str, text: str) -> list[tuple[str, dict[str, Any]]]:
            barrier.wait()
            return _post(f"{server.url}/api/agents/slotfill/sessions/{sid}/messages", text)

        lost = []
        with ThreadPoolExecutor(2) as pool:
            for sid in sessions:
                one = pool.submit(correct, a, sid, "전화번호는 010-1111-2222이에요")
                two = pool.submit(correct, b, sid, "이름은 이영희예요")
                acked = [one.result()[-1][1]["state"]["slots"], two.result()[-1][1]["state"]["slots"]]
                state = httpx.get(f"{b.url}/api/agents/slotfill/sessions/{sid}", timeout=30).json()["state"]
                if state["slots"] != {"customer_name": "이영희", "customer_phone": "010-1111-2222"}:
                    lost.append((sid, acked, state["slots"]))
        assert lost == []


# -- the lock backends, across processes or connections ----------------------------------------------------


@pytest.mark.postgres
def test_postgres_advisory_locks_exclude_other_connections(pg_database: str) -> None:
    one, two = PostgresLocks(pg_database), PostgresLocks(pg_database)  # two pools, as two processes have

    async def scenario() -> None:
        token = await one.acquire("slotfill:abc", 1)
        with pytest.raises(BusyError) as busy:
            await two.acquire("slotfill:abc", 0.3)
        assert busy.value.scope == "session" and busy.value.retry_after >= 1
        other = await two.acquire("slotfill:xyz", 1)  # another session is free
        await two.release("slotfill:xyz", other)
        await one.release("slotfill:abc", token)
        again = await two.acquire("slotfill:abc", 1)
        await two.release("slotfill:abc", again)
        await one.close()
        await two.close()

    _loop.run(scenario())


@pytest.mark.postgres
def test_postgres_locks_run_at_most_their_connections_turns_at_once(pg_database: str) -> None:
    """``TURN_CONNECTIONS``: one connection per held lock; a turn beyond them waits for one, in
    order, and gets BusyError when its wait runs out, never an error of PostgreSQL's connection limit."""
    locks = PostgresLocks(pg_database, max_size=2)

    async def scenario() -> None:
        first, second = await locks.acquire("s:1", 1), await locks.acquire("s:2", 1)
        assert locks.connection(first) is not locks.connection(second)
        with pytest.raises(BusyError) as full:
            await locks.acquire("s:3", 0.3)
        assert full.value.scope == "server" and "TURN_CONNECTIONS=2" in str(full.value)  # 503, not the session's 409
        waiting = asyncio.ensure_future(locks.acquire("s:3", 5))
        await asyncio.sleep(0.1)
        assert not waiting.done()
        await locks.release("s:1", first)
        third = await asyncio.wait_for(waiting, 5)  # the freed connection goes to the waiting turn
        assert locks.connection(third) is first
        await locks.release("s:2", second)
        await locks.release("s:3", third)
        await locks.close()

    _loop.run(scenario())


@pytest.mark.postgres
def test_postgres_locks_say_the_database_is_away_not_that_the_server_is_full(pg_database: str) -> None:
    """Connections to spare and none can be made (the database refuses them): 503 for an unreachable
    service, not the 'as many turns as connections' of a full process."""
    import psycopg

    from graphagents.errors import ServiceUnavailableError

    locks = PostgresLocks(pg_database, max_size=4)
    name = pg_database.rsplit("/", 1)[1]
    admin = pg_database.rsplit("/", 1)[0] + "/postgres"

    async def scenario() -> None:
        held = await locks.acquire("s:1", 1)
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        try:
            with pytest.raises(ServiceUnavailableError, match="cannot reach PostgreSQL"):
                await locks.acquire("s:2", 0.5)
            assert not locks.refusing()
        finally:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        await locks.release("s:1", held)
        await locks.close()

    _loop.run(scenario())


@pytest.mark.postgres
def test_the_turn_connections_setting_sizes_the_postgres_lock_pool(pg_database: str) -> None:
    from graphagents._locks import forget_shared, session_locks_for
    from graphagents.settings import Settings

    forget_shared()
    try:
        locks = session_locks_for(Settings(checkpoint_url=pg_database, turn_connections=3))
        assert isinstance(locks.shared, PostgresLocks) and locks.shared.max_size == 3
    finally:
        forget_shared()


@pytest.mark.redis
def test_redis_locks_exclude_and_lapse(redis_url: str) -> None:
    one, two = RedisLocks(redis_url, lease=1), RedisLocks(redis_url, lease=1)
    key = f"t:{time.time_ns()}"

    async def scenario() -> None:
        token = await one.acquire(key, 1)
        with pytest.raises(BusyError):
            await two.acquire(key, 0.3)
        await asyncio.sleep(1.2)  # the holder renews its lease while it holds the lock
        with pytest.raises(BusyError):
            await two.acquire(key, 0.2)
        await one.release(key, token)
        token = await two.acquire(key, 1)
        token[1].cancel()  # a killed holder: no more renewals; the lease lapses on its own
        again = await one.acquire(key, 3)
        await one.release(key, again)

    _loop.run(scenario())


HOLD = """
import asyncio, sys, time
from graphagents._locks import FileLocks
locks = FileLocks(sys.argv[1])
asyncio.run(locks.acquire("slotfill:abc", 5))
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_file_locks_exclude_another_process_and_die_with_it(tmp_path: Path) -> None:
    path = str(tmp_path / "checkpoints.sqlite.turnlocks")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, path, "30"], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
        locks = FileLocks(path)
        with pytest.raises(BusyError):
            _loop.run(locks.acquire("slotfill:abc", 0.3))
        free = _loop.run(locks.acquire("slotfill:other", 0.3))
        _loop.run(locks.release("slotfill:other", free))
        holder.kill()  # kill -9: the kernel drops its locks
        holder.wait(10)
        token = _loop.run(locks.acquire("slotfill:abc", 2))
        _loop.run(locks.release("slotfill:abc", token))
    finally:
        holder.kill()


# -- defect 4: no head-of-line blocking, bounded queues, a truthful /readyz -----------------------------------


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch, example_spec: Any) -> threading.Event:
    """The example agent's name node blocks on this gate when the message is "slow"."""
    import example_agent

    opened = threading.Event()
    real = example_agent.ask_name

    def ask_name(state: Any) -> Any:
        if state.get("user_input") == "slow":
            opened.wait(30)
        return real(state)

    monkeypatch.setattr(example_agent, "ask_name", ask_name)
    return opened


async def _client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test",
                                 timeout=60) as c:
        yield c


async def _session(c: httpx.AsyncClient) -> str:
    return str((await c.post("/api/agents/example/sessions", json={})).json()["session_id"])


def _say(c: httpx.AsyncClient, sid: str, text: str) -> Any:
    return c.post(f"/api/agents/example/sessions/{sid}/messages", json={"text": text})


async def test_messages_waiting_for_a_busy_session_hold_no_worker(tmp_path: Path, gate: threading.Event) -> None:
    settings = Settings(data_dir=tmp_path, turn_workers=2, max_session_queue=20, warm_on_start=False)
    async for c in _client(settings):
        busy, other = await _session(c), await _session(c)
        slow = asyncio.ensure_future(_say(c, busy, "slow"))
        await asyncio.sleep(0.3)
        queued = [asyncio.ensure_future(_say(c, busy, "Ada")) for _ in range(12)]  # 6x the worker threads
        await asyncio.sleep(0.3)
        started = time.perf_counter()
        res = await asyncio.wait_for(_say(c, other, "hi"), 20)  # another session is not stuck behind them
        assert parse_sse(res.text)[-1][1]["text"] == "What is your name?"
        assert time.perf_counter() - started < 15 and not slow.done()
        gate.set()
        assert (await slow).status_code == 200
        statuses = [(await q).status_code for q in queued]
        assert statuses == [200] * 12


async def test_a_full_session_queue_is_429_and_a_long_wait_is_409(tmp_path: Path, gate: threading.Event) -> None:
    settings = Settings(data_dir=tmp_path, max_session_queue=2, session_wait_seconds=1.5, warm_on_start=False)
    async for c in _client(settings):
        sid = await _session(c)
        slow = asyncio.ensure_future(_say(c, sid, "slow"))
        await asyncio.sleep(0.3)
        waiting = [asyncio.ensure_future(_say(c, sid, "Ada")) for _ in range(2)]
        await asyncio.sleep(0.3)
        over = await _say(c, sid, "Ada")
        assert over.status_code == 429 and int(over.headers["retry-after"]) >= 1
        assert "wait for this session" in over.json()["error"]
        timed_out = [await w for w in waiting]  # the holder keeps the session past the wait
        assert [r.status_code for r in timed_out] == [409, 409]
        assert all(int(r.headers["retry-after"]) >= 1 for r in timed_out)
        gate.set()
        assert (await slow).status_code == 200
        res = await _say(c, sid, "Ada")
        assert parse_sse(res.text)[-1][1]["text"] == "Hello Ada! Favourite colour?"


async def test_a_saturated_server_is_503_and_readyz_says_so(tmp_path: Path, gate: threading.Event) -> None:
    settings = Settings(data_dir=tmp_path, max_active_turns=2, warm_on_start=False)
    async for c in _client(settings):
        assert (await c.get("/readyz")).status_code == 200
        sids = [await _session(c) for _ in range(3)]
        slow = [asyncio.ensure_future(_say(c, sid, "slow")) for sid in sids[:2]]
        await asyncio.sleep(0.5)
        refused = await _say(c, sids[2], "hi")
        assert refused.status_code == 503 and int(refused.headers["retry-after"]) >= 1
        ready = await c.get("/readyz")
        assert ready.status_code == 503 and any("saturated" in p for p in ready.json()["problems"])
        assert (await c.get("/healthz")).status_code == 200  # alive, just not ready
        gate.set()
        assert [(await s).status_code for s in slow] == [200, 200]
        assert (await c.get("/readyz")).status_code == 200
        assert (await _say(c, sids[2], "hi")).status_code == 200


@pytest.mark.postgres
async def test_turns_beyond_the_postgres_turn_connections_are_503_and_readyz_says_so(
        tmp_path: Path, gate: threading.Event, pg_database: str) -> None:
    """Every lock connection runs a turn: another session's message is refused as a full server (503,
    naming TURN_CONNECTIONS), not as a busy session (409); /readyz says so while it lasts, and its
    ping does not wait for a connection (it answered "store unreachable" after a 2 s pool timeout)."""
    from graphagents._locks import forget_shared

    forget_shared()
    settings = Settings(data_dir=tmp_path, checkpoint_url=pg_database, turn_connections=1,
                        session_wait_seconds=1, warm_on_start=False)
    try:
        async for c in _client(settings):
            busy, other = await _session(c), await _session(c)
            assert (await _say(c, other, "hi")).status_code == 200
            slow = asyncio.ensure_future(_say(c, busy, "slow"))
            await asyncio.sleep(0.5)
            started = time.perf_counter()  # all in use, nobody refused yet: busy, still ready
            assert (await c.get("/readyz")).status_code == 200 and time.perf_counter() - started < 1.5
            refused = await _say(c, other, "Ada")
            assert refused.status_code == 503 and int(refused.headers["retry-after"]) >= 1
            assert "TURN_CONNECTIONS=1" in refused.json()["error"]
            started = time.perf_counter()
            ready = await c.get("/readyz")
            assert ready.status_code == 503 and time.perf_counter() - started < 1.5
            assert ready.json()["problems"] == ["saturated: every turn connection to PostgreSQL runs a turn and "
                                                "messages are refused (TURN_CONNECTIONS=1)"]
            gate.set()
            assert (await slow).status_code == 200
            assert (await c.get("/readyz")).status_code == 200
            res = await _say(c, other, "Ada")
            assert parse_sse(res.text)[-1][1]["text"] == "Hello Ada! Favourite colour?"
    finally:
        forget_shared()


# -- erasure holds the session's turn lock -------------------------------------------------------------------


def test_erasure_waits_for_a_running_turn_and_leaves_nothing(tmp_path: Path, gate: threading.Event) -> None:
    import graphagents as ga
    from graphagents import _connections
    from graphagents.userdata import delete_user

    settings = Settings(data_dir=tmp_path)
    agent = ga.load("example", settings=settings)
    s = agent.session(user_id="eve")
    with ThreadPoolExecutor(2) as pool:
        turn = pool.submit(s.send, "slow")
        time.sleep(0.5)
        erased = pool.submit(delete_user, "eve", settings=settings)
        time.sleep(0.5)
        assert not erased.done()  # it waits for the running turn
        gate.set()
        assert turn.result().text == "What is your name?"
        assert erased.result()["threads"] == 1
    saver = _connections.checkpointer_for(settings.resolved_checkpoint_url)
    assert saver.get_tuple({"configurable": {"thread_id": s.thread_id, "checkpoint_ns": ""}}) is None
    assert SessionLocks.active() == 0


async def test_an_admitted_turn_leaves_however_its_stream_ends() -> None:
    import gc

    from graphagents.server.limits import Admission

    async def events() -> AsyncIterator[int]:
        for i in range(3):
            yield i

    admission = Admission(1)
    admission.enter()
    with pytest.raises(BusyError):
        admission.enter()  # full
    assert [e async for e in admission.admit(events())] == [0, 1, 2]
    assert admission.active == 0
    admission.enter()
    stream = admission.admit(events())
    del stream  # the client left before the response started: never iterated
    gc.collect()
    assert admission.active == 0
    admission.enter()
    stream = admission.admit(events())
    assert await stream.__anext__() == 0
    await stream.aclose()  # the client left mid-stream
    assert admission.active == 0
