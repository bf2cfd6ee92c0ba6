"""Load on the real server: N concurrent SSE sessions of an 8-turn Korean slotfill conversation.

Starts ``graphagents serve`` (1 and 2 worker processes, SQLite and Postgres checkpointers) on
127.0.0.1 only, drives 20/50/100 concurrent sessions, each one an account-opening conversation
with its own phone number and transfer limits, and checks every session's final slots against
what it said. Prints turns/s, p50/p99 turn latency (request sent -> ``final`` event read), CPU
per turn of the server processes, of this client and of PostgreSQL (all on the same cores),
errors, wrong slots, and leaks (server RSS growth, sessions still locked), with each
configuration's throughput as a ratio of the first one (1 worker, SQLite) measured in the same run,
and a machine-speed figure at the start and the end (the shared machine drifts).

``--in-process`` measures the turn without HTTP (``Session.asend``), for slotfill and for an empty
graph of the same shape run by the same runtime: the floor that LangGraph, the checkpointer and
the runtime cost whatever the agent does.

    .venv/bin/python bench/server_load.py [--workers 1 2] [--backends sqlite postgres]
        [--sessions 20 50 100] [--rounds 1] [--pg postgresql://postgres@127.0.0.1:5432/test]
    .venv/bin/python bench/server_load.py --in-process 1 20
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import httpx

from graphagents.agents.slotfill.generated import account_opening

PG_DEFAULT = os.environ.get("GRAPHAGENTS_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def machine_speed() -> float:
    """Milliseconds for a fixed piece of pure-Python work (JSON, dicts, strings), best of five: the
    shared machine's speed drifts by half between runs, so figures from runs far apart are compared
    through this, not directly."""
    sample = {"slots": {f"k{i}": "값" * (i % 7) for i in range(40)}, "turns": list(range(50))}
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(400):
            json.loads(json.dumps(sample, ensure_ascii=False))
            sorted(sample["slots"].items(), key=lambda kv: kv[1])
        best = min(best, time.perf_counter() - started)
    return best * 1000


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def postgres_cpu_seconds() -> float:
    """CPU time of this machine's PostgreSQL processes so far (they share the cores with the server)."""
    ticks, total = os.sysconf("SC_CLK_TCK"), 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
            if "(postgres)" in stat:
                fields = stat.rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- the server ------------------------------------------------------------------------------------------


class Server:
    def __init__(self, workers: int, env: dict[str, str], data_dir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        self.env = {**os.environ, "GRAPHAGENTS_DATA_DIR": str(data_dir), "GRAPHAGENTS_WARM_ON_START": "true",
                    "GRAPHAGENTS_WARM_AGENTS": '["slotfill"]',
                    "GRAPHAGENTS_MAX_SESSION_QUEUE": "8", **env}
        for var in ("GRAPHAGENTS_LLM", "GRAPHAGENTS_CACHE_URL"):
            self.env.pop(var, None)
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        cmd = [sys.executable, "-m", "graphagents", "serve", "--host", "127.0.0.1", "--port", str(self.port),
               "--workers", str(self.workers)]
        self.proc = subprocess.Popen(cmd, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     start_new_session=True)
        deadline = time.monotonic() + 300
        ready = 0
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.__exit__()  # its workers, if any are left
                raise RuntimeError((self.proc.stderr.read() if self.proc.stderr else b"").decode()[-2000:])
            try:
                # every worker must be warm: ask until as many ready answers in a row as workers, twice
                ready = ready + 1 if httpx.get(f"{self.url}/readyz", timeout=5).status_code == 200 else 0
                if ready >= 4 * self.workers:
                    return self
            except httpx.HTTPError:
                ready = 0
            time.sleep(0.1)
        self.__exit__()
        raise RuntimeError("server not ready in time")

    def __exit__(self, *exc: Any) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)

    def pids(self) -> list[int]:
        assert self.proc is not None
        pids = [self.proc.pid]
        with contextlib.suppress(OSError):
            out = subprocess.run(["pgrep", "-g", str(self.proc.pid)], capture_output=True, text=True).stdout
            pids = [int(p) for p in out.split()]
        return pids

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server's processes so far."""
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for pid in self.pids():
            with contextlib.suppress(OSError), open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / ticks
        return total

    def rss_mb(self) -> float:
        """Resident memory of the server's processes (the supervisor and its workers)."""
        total = 0
        for pid in self.pids():
            with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        return total / 1024


# -- the clients -----------------------------------------------------------------------------------------


def final_of(body: str) -> dict[str, Any] | None:
    """The ``final`` event's data (the last frame), or None."""
    block = body.replace("\r\n", "\n").rstrip().rsplit("\n\n", 1)[-1]
    if "event: final" not in block:
        return None
    data = "\n".join(line[5:].lstrip() for line in block.split("\n") if line.startswith("data:"))
    return json.loads(data)  # type: ignore[no-any-return]


class Tally:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors: dict[str, int] = {}
        self.wrong: list[str] = []

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


async def one_session(client: aiohttp.ClientSession, url: str, i: int, tally: Tally) -> None:
    turns, expected = account_opening(i)
    async with client.post(f"{url}/api/agents/slotfill/sessions", json={}) as res:
        if res.status != 201:
            tally.error(f"create {res.status}")
            return
        sid = (await res.json())["session_id"]
    messages = f"{url}/api/agents/slotfill/sessions/{sid}/messages"
    final: dict[str, Any] | None = None
    state: Any = None
    for text in turns:
        taken, status, body = False, 0, ""
        for _attempt in range(5):
            started = time.perf_counter()
            try:
                async with client.post(messages, json={"text": text}) as res:
                    status, body, retry = res.status, await res.text(), res.headers.get("retry-after", "1")
            except aiohttp.ClientError as exc:  # the connection broke: was the message taken?
                tally.error(f"transport {type(exc).__name__}")
                async with client.get(f"{url}/api/agents/slotfill/sessions/{sid}") as res:
                    now = (await res.json())["state"]
                if now != state:
                    state, taken = now, True
                    break
                continue
            if status in (409, 429, 503):  # busy: honour Retry-After, as a client should
                tally.error(f"retried {status}")
                await asyncio.sleep(float(retry))
                continue
            break
        if taken:
            final = {"state": state}
            continue
        if status != 200:
            tally.error(f"status {status}")
            return
        final = final_of(body)
        tally.latencies.append(time.perf_counter() - started)
        if final is None:
            tally.error("no final event")
            return
        state = final.get("state")
        if "event: error" in body:
            tally.error("error event")
    slots = (final or {}).get("state", {}).get("slots")
    if slots != expected:
        tally.wrong.append(sid)


async def drive(url: str, sessions: int) -> tuple[Tally, float]:
    """``sessions`` conversations at once, each on its own keep-alive connection (aiohttp: the
    client's own CPU per turn stays small next to the server's, see the CPU/turn columns)."""
    tally = Tally()
    connector = aiohttp.TCPConnector(limit=sessions + 10, keepalive_timeout=3)
    timeout = aiohttp.ClientTimeout(total=120)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as client:
        started = time.perf_counter()
        await asyncio.gather(*(one_session(client, url, i, tally) for i in range(sessions)))
        return tally, time.perf_counter() - started


# -- the runs --------------------------------------------------------------------------------------------


def create_database(admin: str) -> tuple[str, str]:
    import psycopg

    name = f"ga_load_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    base, _, _ = admin.rpartition("/")
    return name, f"{base}/{name}"


def drop_database(admin: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def run_config(backend: str, workers: int, counts: list[int], pg: str, rounds: int = 1) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="ga-load-") as tmp:
        env: dict[str, str] = {}
        dbname = None
        if backend == "postgres":
            dbname, url = create_database(pg)
            env = {"GRAPHAGENTS_CHECKPOINT_URL": url}
        try:
            with Server(workers, env, Path(tmp)) as server:
                asyncio.run(drive(server.url, 4))  # first turns on every worker, not measured
                for n in (n for n in counts for _ in range(rounds)):
                    rss_before, server_cpu, client_cpu = server.rss_mb(), server.cpu_seconds(), time.process_time()
                    pg_cpu = postgres_cpu_seconds()
                    tally, seconds = asyncio.run(drive(server.url, n))
                    server_cpu, client_cpu = server.cpu_seconds() - server_cpu, time.process_time() - client_cpu
                    pg_cpu = postgres_cpu_seconds() - pg_cpu
                    ready = httpx.get(f"{server.url}/readyz", timeout=10).json()
                    rows.append({
                        "round": sum(1 for r in rows if r["sessions"] == n) + 1,
                        "backend": backend, "workers": workers, "sessions": n, "turns": len(tally.latencies),
                        "seconds": seconds, "turns_per_s": len(tally.latencies) / seconds,
                        "p50_ms": pct(tally.latencies, 50) * 1000, "p99_ms": pct(tally.latencies, 99) * 1000,
                        "errors": dict(tally.errors), "wrong_slots": len(tally.wrong),
                        "rss_growth_mb": server.rss_mb() - rss_before, "turns_left_running": ready.get("turns"),
                        "server_cpu_ms_per_turn": server_cpu * 1000 / max(len(tally.latencies), 1),
                        "client_cpu_ms_per_turn": client_cpu * 1000 / max(len(tally.latencies), 1),
                        "postgres_cpu_ms_per_turn": pg_cpu * 1000 / max(len(tally.latencies), 1),
                    })
                    print_row(rows[-1], None)
        finally:
            if dbname is not None:
                drop_database(pg, dbname)
    return rows


def print_row(row: dict[str, Any], baseline: float | None) -> None:
    ratio = f"  x{row['turns_per_s'] / baseline:.2f}" if baseline else ""
    errors = ", ".join(f"{k}: {v}" for k, v in row["errors"].items()) or "none"
    lap = f" #{row['round']}" if row.get("round", 1) > 1 else "   "
    print(f"{row['backend']:8} workers={row['workers']} N={row['sessions']:3}{lap}  {row['turns']:4} turns in "
          f"{row['seconds']:5.1f} s = {row['turns_per_s']:6.1f} turns/s{ratio}  p50 {row['p50_ms']:6.0f} ms  "
          f"p99 {row['p99_ms']:6.0f} ms  CPU/turn server {row['server_cpu_ms_per_turn']:4.1f} ms "
          f"client {row['client_cpu_ms_per_turn']:4.1f} ms PostgreSQL {row['postgres_cpu_ms_per_turn']:4.1f} ms  "
          f"wrong slots {row['wrong_slots']}  errors: {errors}  "
          f"RSS +{row['rss_growth_mb']:.0f} MB  turns still running: {row['turns_left_running']}", flush=True)


def floor_spec() -> Any:
    """A graph of slotfill's shape with no work in it: ``start`` -> ``ask`` (the interrupt) <->
    ``process``, one state key per slot. What LangGraph, the checkpointer and the runtime cost per
    turn whatever the agent does: the floor under slotfill's figure, measured in the same process."""
    from typing import TypedDict

    from langgraph.graph import START, StateGraph
    from langgraph.types import interrupt

    import graphagents as ga

    class State(TypedDict, total=False):
        user_input: str
        reply: str
        question: str
        slots: dict[str, Any]
        turns: int

    def start(state: State) -> dict[str, Any]:
        return {"question": "무엇을 도와드릴까요?", "slots": {}, "turns": 0}

    def ask(state: State) -> dict[str, Any]:
        return {"user_input": str(interrupt({"text": state.get("question", "")}))}

    def process(state: State) -> dict[str, Any]:
        turns = state.get("turns", 0) + 1
        return {"turns": turns, "slots": {**state.get("slots", {}), f"answer_{turns}": state.get("user_input")},
                "question": f"{turns}번째 질문입니다"}

    def build(ctx: Any) -> Any:
        g = StateGraph(State)
        g.add_node("start", ga.nonblocking(start))  # as slotfill's offline nodes run
        g.add_node("ask", ga.nonblocking(ask))
        g.add_node("process", ga.nonblocking(process))
        g.add_edge(START, "start")
        g.add_edge("start", "ask")
        g.add_edge("ask", "process")
        g.add_edge("process", "ask")
        return g.compile(checkpointer=ctx.checkpointer)

    return ga.AgentSpec(name="bench_floor", title="floor", description="an empty slotfill-shaped graph",
                        build=build, public_state=lambda values: {"slots": dict(values.get("slots") or {})})


def in_process(sessions: int, concurrency: int, agent_name: str = "slotfill") -> None:
    """The same conversations through ``Session.asend`` in this process, no HTTP: what a turn costs
    the agent, its checkpointer and the turn loop alone (the HTTP runs add the server and client).
    ``agent_name="bench_floor"`` runs :func:`floor_spec` instead."""
    import graphagents as ga
    from graphagents.registry import all_specs
    from graphagents.settings import Settings

    if agent_name == "bench_floor" and agent_name not in all_specs():
        ga.register(floor_spec())
    agent = ga.load(agent_name, settings=Settings(data_dir=Path(tempfile.mkdtemp(prefix="ga-inproc-")),
                                                  warm_on_start=False))
    tally = Tally()

    async def one(i: int) -> None:
        turns, expected = account_opening(i)
        session = await asyncio.to_thread(agent.session)
        reply = None
        for text in turns:
            started = time.perf_counter()
            reply = await session.asend(text)
            tally.latencies.append(time.perf_counter() - started)
        if agent_name == "bench_floor":  # it keeps each answer: the first is the opening line
            expected = {f"answer_{k}": text for k, text in enumerate(turns[1:], 1)}
        if reply is None or reply.state.get("slots") != expected:
            tally.wrong.append(session.id)

    async def run() -> None:
        await one(0)  # warm: Kiwi, the agent, the saver
        tally.latencies.clear()
        gate = asyncio.Semaphore(concurrency)

        async def gated(i: int) -> None:
            async with gate:
                await one(i)

        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(gated(i) for i in range(1, sessions + 1)))
        took, cpu = time.perf_counter() - started, time.process_time() - cpu
        n = len(tally.latencies)
        print(f"{agent_name} in process, {concurrency} at once: {n} turns in {took:.2f} s = {n / took:.1f} turns/s, "
              f"CPU {cpu * 1000 / n:.1f} ms/turn, p50 {pct(tally.latencies, 50) * 1000:.0f} ms, "
              f"p99 {pct(tally.latencies, 99) * 1000:.0f} ms, wrong slots {len(tally.wrong)}")

    asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--sessions", type=int, nargs="+", default=[20, 50, 100])
    parser.add_argument("--rounds", type=int, default=1,
                        help="drive each N this many times against the same server (steady state: the tables grow)")
    parser.add_argument("--pg", default=PG_DEFAULT, help="an admin URL; the bench creates and drops its database")
    parser.add_argument("--in-process", type=int, nargs="*", metavar="CONCURRENCY",
                        help="measure turns through Session.asend without HTTP instead, at these concurrencies")
    args = parser.parse_args()
    if args.in_process is not None:
        sessions = int(os.environ.get("GA_BENCH_SESSIONS", "60"))
        for concurrency in args.in_process or [1, 20]:
            in_process(sessions, concurrency)
            in_process(sessions, concurrency, "bench_floor")  # the baseline: the same runtime, no agent work
        return
    backends = list(args.backends)
    if "postgres" in backends:
        try:
            import psycopg

            psycopg.connect(args.pg, connect_timeout=3).close()
        except Exception as exc:
            print(f"PostgreSQL not reachable at {args.pg} ({type(exc).__name__}): SQLite only")
            backends.remove("postgres")
    print(f"slotfill, 8 turns per session, 127.0.0.1, {os.cpu_count()} CPUs; "
          f"machine speed: {machine_speed():.0f} ms for the fixed workload (lower is faster)")
    rows: list[dict[str, Any]] = []
    for backend in backends:
        for workers in args.workers:
            rows += run_config(backend, workers, args.sessions, args.pg, args.rounds)
    print("\nsummary (ratio: turns/s against the first configuration at the same N)")
    for row in rows:
        base = next(r for r in rows if r["sessions"] == row["sessions"])
        print_row(row, base["turns_per_s"])
    print(f"machine speed at the end: {machine_speed():.0f} ms for the fixed workload")
    largest = [r["p99_ms"] for r in rows if r["sessions"] == max(args.sessions)]
    print(f"\nbest: {max(r['turns_per_s'] for r in rows):.1f} turns/s; "
          f"p99 at the largest N: {statistics.fmean(largest):.0f} ms (mean over configurations)")


if __name__ == "__main__":
    main()
