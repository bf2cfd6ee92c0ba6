"""Our server against the peer a user would pick, LangGraph's own server, in one run; and a mixed load.

**Peer.** The same slotfill graph (``langgraph.json``'s ``slotfill``: the agent's own compiled graph), the
same 8-turn Korean account-opening conversations (``account_opening(i)``: each its own phone number and
limits) and the same aiohttp client, against:

- ``langgraph dev`` (langgraph-cli[inmem] 0.4.40 / langgraph-api 0.16.7 from ``.venv-langgraph``, made by
  ``make langgraph-check``): one process, threads and checkpoints in memory. A turn is
  ``POST /threads/{id}/runs/wait`` (``input`` for the first turn: what our ``make_input`` gives the
  graph, with the demo profile; ``command.resume`` after): request sent -> final state read. As it
  starts, and with ``--allow-blocking --n-jobs-per-worker 100`` (``--langgraph``).
- ``graphagents serve`` with 1 worker process (as theirs), checkpointer ``memory`` (nothing on disk;
  theirs pickles its memory every 10 s), ``sqlite`` (the default) and ``postgres``. A turn is
  ``POST .../messages`` (SSE): request sent -> ``final`` event read.

Every server is started once and kept up; the configurations take turns at each N (theirs, ours ...),
so that the shared machine's drift falls on all of them alike. Prints turns/s, p50/p99, server CPU per
turn, wrong slots and errors, and ours as a ratio of theirs at the same N.

**Mixed.** On our server (1 worker, SQLite) slotfill's N conversations alone, then the same with
tableqa uploads (CSV files posted in a loop by ``--uploaders`` clients) and supervisor questions
(``--askers`` clients, one question per session) running beside them: slotfill's p99 mixed / alone
(goal <= 2.0), and the uploads' and questions' own latencies.

    .venv/bin/python bench/server_vs_langgraph.py [--sessions 20 50 100] [--ours memory sqlite postgres]
    .venv/bin/python bench/server_vs_langgraph.py --mixed-only [--sessions 50]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import (  # noqa: E402  (a sibling bench script, not a package)
    PG_DEFAULT,
    Server,
    Tally,
    create_database,
    drop_database,
    final_of,
    free_port,
    machine_speed,
    one_session,
    pct,
)

from graphagents.agents.slotfill.generated import account_opening  # noqa: E402
from graphagents.agents.slotfill.spec import DEMO_PROFILE  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LG_BIN = ROOT / ".venv-langgraph" / "bin" / "langgraph"


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def group_cpu_seconds(pgid: int) -> float:
    """User + system CPU time so far of every process in the process group ``pgid``."""
    ticks, total = os.sysconf("SC_CLK_TCK"), 0.0
    out = subprocess.run(["pgrep", "-g", str(pgid)], capture_output=True, text=True).stdout
    for pid in out.split():
        with contextlib.suppress(OSError), open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


class LangGraphServer:
    """``langgraph dev`` in the repository root (it reads ``langgraph.json``), 127.0.0.1 only."""

    def __init__(self, extra: list[str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data = Path(tempfile.mkdtemp(prefix="ga-lg-bench-"))
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> LangGraphServer:
        if not LG_BIN.is_file():
            raise SystemExit(f"{LG_BIN} is missing: run `make langgraph-check` once (it installs LangGraph's server)")
        env = {**os.environ, "GRAPHAGENTS_DATA_DIR": str(self.data / "graphagents"), "LANGSMITH_TRACING": "false"}
        env.pop("VIRTUAL_ENV", None)
        log = open(self.data / "server.log", "wb")  # noqa: SIM115  (the child holds it)
        self.proc = subprocess.Popen(
            [str(LG_BIN), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(self.port),
             *self.extra], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"langgraph dev exited: {self.tail()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/ok", timeout=5).status_code == 200:
                    return self
            time.sleep(0.5)
        self.__exit__()
        raise RuntimeError("langgraph dev not ready in time")

    def tail(self) -> str:
        return (self.data / "server.log").read_text(errors="replace")[-2000:]

    def __exit__(self, *exc: Any) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        shutil.rmtree(self.data, ignore_errors=True)

    def cpu_seconds(self) -> float:
        assert self.proc is not None
        return group_cpu_seconds(self.proc.pid)


async def lg_session(client: aiohttp.ClientSession, url: str, i: int, tally: Tally) -> None:
    """One conversation through LangGraph's HTTP API: a thread, then one run per turn."""
    turns, expected = account_opening(i)
    async with client.post(f"{url}/threads", json={}) as res:
        if res.status != 200:
            tally.error(f"create {res.status}")
            return
        thread = (await res.json())["thread_id"]
    out: dict[str, Any] = {}
    for n, text in enumerate(turns):
        body: dict[str, Any] = {"assistant_id": "slotfill"}
        if n == 0:
            # what our server's make_input gives the graph: the text, the session, the demo profile
            body["input"] = {"user_input": text, "session_id": thread, "profile": dict(DEMO_PROFILE),
                             "session_options": {}}
        else:
            body["command"] = {"resume": text}
        started = time.perf_counter()
        async with client.post(f"{url}/threads/{thread}/runs/wait", json=body) as res:
            status, payload = res.status, await res.json(content_type=None)
        if status != 200 or not isinstance(payload, dict) or "__error__" in payload:
            tally.error(f"status {status}" if status != 200 else "run error")
            return
        tally.latencies.append(time.perf_counter() - started)
        out = payload
    if out.get("slots") != expected:
        tally.wrong.append(thread)


Session = Callable[[aiohttp.ClientSession, str, int, Tally], Awaitable[None]]


async def drive(url: str, sessions: int, session: Session, offset: int = 0) -> tuple[Tally, float]:
    tally = Tally()
    connector = aiohttp.TCPConnector(limit=sessions + 10, keepalive_timeout=3)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=300)) as client:
        started = time.perf_counter()
        await asyncio.gather(*(session(client, url, offset + i, tally) for i in range(sessions)))
        return tally, time.perf_counter() - started


# -- the peer comparison ---------------------------------------------------------------------------------


def row(name: str, n: int, tally: Tally, seconds: float, cpu: float) -> dict[str, Any]:
    turns = len(tally.latencies)
    return {"config": name, "sessions": n, "turns": turns, "seconds": seconds,
            "turns_per_s": turns / seconds if seconds else 0.0,
            "p50_ms": pct(tally.latencies, 50) * 1000, "p99_ms": pct(tally.latencies, 99) * 1000,
            "cpu_ms_per_turn": cpu * 1000 / max(turns, 1), "wrong": len(tally.wrong), "errors": dict(tally.errors)}


def show(r: dict[str, Any], base: dict[str, Any] | None) -> None:
    ratio = ""
    if base is not None and base is not r:
        ratio = (f"  turns/s x{r['turns_per_s'] / base['turns_per_s']:.2f}  "
                 f"p99 x{r['p99_ms'] / base['p99_ms']:.2f} (of {base['config']})")
    errors = ", ".join(f"{k}: {v}" for k, v in r["errors"].items()) or "none"
    print(f"{r['config']:20} N={r['sessions']:3}  {r['turns']:4} turns in {r['seconds']:5.1f} s = "
          f"{r['turns_per_s']:6.1f} turns/s  p50 {r['p50_ms']:6.0f} ms  p99 {r['p99_ms']:6.0f} ms  "
          f"server CPU {r['cpu_ms_per_turn']:5.1f} ms/turn  wrong slots {r['wrong']}  errors: {errors}{ratio}",
          flush=True)


def peer(counts: list[int], ours: list[str], pg: str, lg_variants: list[str], workers: int) -> None:
    with contextlib.ExitStack() as stack:
        servers: list[tuple[str, str, Session, Callable[[], float]]] = []
        for k, extra in enumerate(lg_variants):
            lg = stack.enter_context(LangGraphServer(extra.split()))
            servers.append((f"langgraph dev{'' if not extra else f' ({k})'}", lg.url, lg_session, lg.cpu_seconds))
            if extra:
                print(f"langgraph dev ({k}): langgraph dev {extra}", flush=True)
        for backend in ours:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ga-peer-")))
            env: dict[str, str] = {"GRAPHAGENTS_CHECKPOINT_URL": "memory"} if backend == "memory" else {}
            if backend == "postgres":
                dbname, url = create_database(pg)
                stack.callback(drop_database, pg, dbname)
                env = {"GRAPHAGENTS_CHECKPOINT_URL": url}
            server = stack.enter_context(Server(workers, env, tmp))
            servers.append((f"graphagents ({backend})", server.url, one_session, server.cpu_seconds))
        for _name, url, session, _cpu in servers:  # first turns everywhere, not measured
            asyncio.run(drive(url, 4, session, offset=10_000))
        rows: list[dict[str, Any]] = []
        for n in counts:
            print(f"-- N={n}, load average {load_average()}", flush=True)
            for name, url, session, cpu_seconds in servers:
                cpu = cpu_seconds()
                tally, seconds = asyncio.run(drive(url, n, session))
                rows.append(row(name, n, tally, seconds, cpu_seconds() - cpu))
                show(rows[-1], None)
    print("\nsummary: each configuration against the best langgraph dev at the same N (turns/s)")
    for r in rows:
        theirs = [b for b in rows if b["sessions"] == r["sessions"] and b["config"].startswith("langgraph")]
        show(r, max(theirs, key=lambda b: b["turns_per_s"]))


# -- the mixed load --------------------------------------------------------------------------------------


def upload_csv(rows: int = 5000) -> bytes:
    """A plain table of the size people upload (5,000 rows x 8 columns, about 300 KB)."""
    lines = ["id,name,dept,city,joined,salary,score,active"]
    depts, cities = ["Sales", "IT", "HR", "Ops"], ["Seoul", "Busan", "Incheon", "Daegu", "Gwangju"]
    lines += [f"{i},name{i},{depts[i % 4]},{cities[i % 5]},2024-{1 + i % 12:02d}-{1 + i % 28:02d},"
              f"{30000 + (i * 37) % 50000},{(i * 13) % 100 / 10},{'yes' if i % 3 else 'no'}" for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


async def uploader(client: aiohttp.ClientSession, url: str, k: int, data: bytes, stop: asyncio.Event,
                   tally: Tally) -> None:
    headers = {"X-User-Id": f"bench-uploader-{k}"}
    n = 0
    while not stop.is_set():
        form = aiohttp.FormData()
        form.add_field("file", data + f"{k},{n},x,y,2024-01-01,1,1,yes\n".encode(), filename=f"t{k}_{n}.csv",
                       content_type="text/csv")
        n += 1
        started = time.perf_counter()
        async with client.post(f"{url}/api/agents/tableqa/uploads", data=form, headers=headers) as res:
            status, body = res.status, await res.json(content_type=None)
        if status != 201:
            tally.error(f"upload {status}")
            await asyncio.sleep(1)
            continue
        tally.latencies.append(time.perf_counter() - started)
        async with client.delete(f"{url}/api/agents/tableqa/uploads/{body['id']}", headers=headers) as res:
            await res.read()


SUPERVISOR_QUESTIONS = ["강남구 아파트 매매 실거래가 알려줘", "전세 사기를 당하면 어떤 법으로 보호받나요?",
                        "연봉 5천만원이면 주택담보대출 얼마까지 되나요?", "마포구 오피스텔 전세 시세는?"]


async def asker(client: aiohttp.ClientSession, url: str, k: int, stop: asyncio.Event, tally: Tally) -> None:
    n = 0
    while not stop.is_set():
        async with client.post(f"{url}/api/agents/supervisor/sessions", json={}) as res:
            if res.status != 201:
                tally.error(f"create {res.status}")
                await asyncio.sleep(1)
                continue
            sid = (await res.json())["session_id"]
        question = SUPERVISOR_QUESTIONS[(k + n) % len(SUPERVISOR_QUESTIONS)]
        n += 1
        started = time.perf_counter()
        async with client.post(f"{url}/api/agents/supervisor/sessions/{sid}/messages", json={"text": question}) as res:
            status, body = res.status, await res.text()
        if status in (409, 429, 503):
            tally.error(f"retried {status}")
            await asyncio.sleep(float(res.headers.get("retry-after", "1")))
            continue
        if status != 200 or final_of(body) is None:
            tally.error(f"status {status}" if status != 200 else "no final event")
            continue
        tally.latencies.append(time.perf_counter() - started)


async def warm_side(url: str) -> None:
    """Every supervisor question and one upload once, not measured: what is left lazy in a turn
    (text2sql's schema vectors behind the market question: about 2 s of CPU) is paid before."""
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=300)) as client:
        for question in SUPERVISOR_QUESTIONS:
            async with client.post(f"{url}/api/agents/supervisor/sessions", json={}) as res:
                sid = (await res.json())["session_id"]
            async with client.post(f"{url}/api/agents/supervisor/sessions/{sid}/messages",
                                   json={"text": question}) as res:
                await res.read()
        form = aiohttp.FormData()
        form.add_field("file", upload_csv(), filename="warm.csv", content_type="text/csv")
        headers = {"X-User-Id": "bench-uploader-warm"}
        async with client.post(f"{url}/api/agents/tableqa/uploads", data=form, headers=headers) as res:
            await res.read()


async def mixed_drive(url: str, sessions: int, uploaders: int, askers: int) -> tuple[Tally, float, Tally, Tally]:
    stop = asyncio.Event()
    uploads, questions = Tally(), Tally()
    data = upload_csv()
    connector = aiohttp.TCPConnector(limit=uploaders + askers + 10, keepalive_timeout=3)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=300)) as client:
        side = [asyncio.create_task(uploader(client, url, k, data, stop, uploads)) for k in range(uploaders)]
        side += [asyncio.create_task(asker(client, url, k, stop, questions)) for k in range(askers)]
        await asyncio.sleep(2)  # the side load is under way before the first slotfill turn
        try:
            tally, seconds = await drive(url, sessions, one_session)
        finally:
            stop.set()
            await asyncio.gather(*side, return_exceptions=True)
    return tally, seconds, uploads, questions


def mixed(counts: list[int], uploaders: int, askers: int, workers: int, rounds: int) -> None:
    print(f"mixed load on graphagents serve ({workers} worker, SQLite): slotfill alone, then beside "
          f"{uploaders} uploaders (CSV, {len(upload_csv()) // 1024} KB) and {askers} supervisor askers", flush=True)
    with tempfile.TemporaryDirectory(prefix="ga-mixed-") as tmp:
        env = {"GRAPHAGENTS_WARM_AGENTS": '["slotfill", "supervisor", "tableqa"]'}
        with Server(workers, env, Path(tmp)) as server:
            asyncio.run(drive(server.url, 4, one_session, offset=10_000))
            asyncio.run(warm_side(server.url))  # steady state: each question and an upload once
            for n in counts:
                for lap in range(rounds):
                    print(f"-- N={n} #{lap + 1}, load average {load_average()}", flush=True)
                    cpu = server.cpu_seconds()
                    alone, seconds = asyncio.run(drive(server.url, n, one_session))
                    a = row("slotfill alone", n, alone, seconds, server.cpu_seconds() - cpu)
                    show(a, None)
                    cpu = server.cpu_seconds()  # mixed: the side load's CPU too, per slotfill turn
                    tally, seconds, uploads, questions = asyncio.run(mixed_drive(server.url, n, uploaders, askers))
                    m = row("slotfill mixed", n, tally, seconds, server.cpu_seconds() - cpu)
                    show(m, a)
                    for name, side in (("uploads", uploads), ("supervisor", questions)):
                        errors = ", ".join(f"{k}: {v}" for k, v in side.errors.items()) or "none"
                        print(f"   {name:10} {len(side.latencies):4} done  p50 {pct(side.latencies, 50) * 1000:6.0f} ms"
                              f"  p99 {pct(side.latencies, 99) * 1000:6.0f} ms  errors: {errors}", flush=True)
                    print(f"   slotfill p99 mixed / alone: x{m['p99_ms'] / a['p99_ms']:.2f} (goal <= 2.0)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, nargs="+", default=[20, 50, 100])
    parser.add_argument("--ours", nargs="+", default=["memory", "sqlite", "postgres"],
                        choices=["memory", "sqlite", "postgres"])
    parser.add_argument("--workers", type=int, default=1, help="our worker processes (theirs: one process)")
    parser.add_argument("--pg", default=PG_DEFAULT, help="an admin URL; the bench creates and drops its database")
    parser.add_argument("--langgraph", nargs="+", default=["", "--allow-blocking --n-jobs-per-worker 100"],
                        help="`langgraph dev` configurations, each a string of extra flags ('' is its default)")
    parser.add_argument("--mixed-only", action="store_true", help="only the mixed load")
    parser.add_argument("--no-mixed", action="store_true", help="only the peer comparison")
    parser.add_argument("--mixed-sessions", type=int, nargs="+", default=[50])
    parser.add_argument("--uploaders", type=int, default=2)
    parser.add_argument("--askers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1, help="mixed: alone/mixed pairs per N")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {load_average()}; machine speed {machine_speed():.0f} ms "
          f"for the fixed workload (lower is faster); run {uuid.uuid4().hex[:6]}", flush=True)
    if not args.mixed_only and not LG_BIN.is_file():
        print(f"peer comparison skipped: {LG_BIN} is missing (`make langgraph-check` installs LangGraph's server)")
    elif not args.mixed_only:
        peer(args.sessions, args.ours, args.pg, args.langgraph, args.workers)
    if not args.no_mixed:
        mixed(args.mixed_sessions, args.uploaders, args.askers, args.workers, args.rounds)
    print(f"machine speed at the end: {machine_speed():.0f} ms; load average {load_average()}")


if __name__ == "__main__":
    main()
