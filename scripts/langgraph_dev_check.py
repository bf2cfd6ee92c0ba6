"""Every graph of langgraph.json, run by LangGraph's own in-memory server (``langgraph dev``).

Run by ``make langgraph-check``, in its own environment (``.venv-langgraph``: langgraph-cli[inmem]
and this package; langgraph-api pins jsonschema-rs below what our test extra needs). Starts
``langgraph dev`` on 127.0.0.1, checks that it lists every graph, runs a conversation through each
over its HTTP API (threads, runs, an interrupt answered with ``Command(resume=...)``) and prints one
line per check. Exits 1 if any check fails, with the end of the server's log.

    .venv-langgraph/bin/python scripts/langgraph_dev_check.py [--port 2025]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
GRAPHS = set(json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))["graphs"])


class Failed(Exception):
    pass


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise Failed(what)


class Server:
    """``langgraph dev`` in the repository root, on 127.0.0.1, with its data in a temporary directory."""

    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self.data = Path(tempfile.mkdtemp(prefix="ga-langgraph-"))
        self.log = self.data / "server.log"
        cli = shutil.which("langgraph", path=str(Path(sys.executable).parent)) or "langgraph"
        env = {**os.environ, "GRAPHAGENTS_DATA_DIR": str(self.data / "graphagents"), "LANGSMITH_TRACING": "false"}
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                [cli, "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(port)],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.http = httpx.Client(base_url=self.url, timeout=180)

    def wait_ready(self, seconds: float = 240) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise Failed(f"langgraph dev exited with {self.proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if self.http.get("/ok", timeout=5).status_code == 200:
                    return
            time.sleep(0.5)
        raise Failed(f"langgraph dev not ready in {seconds:.0f} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.http.close()

    def tail(self, lines: int = 60) -> str:
        return "\n".join(self.log.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])

    # -- LangGraph's HTTP API ------------------------------------------------------------------------

    def thread(self) -> str:
        return str(self.http.post("/threads", json={}).json()["thread_id"])

    def run(self, thread: str, graph: str, *, input: dict[str, Any] | None = None,
            resume: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"assistant_id": graph}
        if resume is not None:
            body["command"] = {"resume": resume}
        else:
            body["input"] = input
        res = self.http.post(f"/threads/{thread}/runs/wait", json=body)
        expect(res.status_code == 200, f"{graph}: run answered {res.status_code}: {res.text[:300]}")
        out = res.json()
        expect("__error__" not in out, f"{graph}: the run failed: {out.get('__error__')}")
        return dict(out)


def doc_ids(values: dict[str, Any]) -> list[str]:
    return [str(d.get("id")) for d in values.get("retrieved_docs") or []]


# -- the checks, one per graph -------------------------------------------------------------------------


def check_listed(s: Server) -> str:
    found = {a["graph_id"] for a in s.http.post("/assistants/search", json={"limit": 100}).json()}
    expect(found == GRAPHS, f"the server lists {sorted(found)}, langgraph.json names {sorted(GRAPHS)}")
    return f"{len(found)} graphs listed"


def check_slotfill(s: Server) -> str:
    thread = s.thread()
    out = s.run(thread, "slotfill", input={"user_input": "계좌 개설하고 싶어요"})
    asked = out.get("__interrupt__") or []
    expect(bool(asked) and "입출금통장" in asked[0]["value"]["text"], f"no opening question: {asked}")
    out = s.run(thread, "slotfill", resume="김민수이고 번호는 010-2345-6789입니다")
    expect(out.get("slots") == {"customer_name": "김민수", "customer_phone": "010-2345-6789"},
           f"slots after the answer: {out.get('slots')}")
    asked = out.get("__interrupt__") or []
    expect(bool(asked) and "010-2345-6789" in asked[0]["value"]["text"], f"no confirmation question: {asked}")
    state = s.http.get(f"/threads/{thread}/state").json()
    expect(state.get("next") == ["ask"], f"the thread should wait at ask: {state.get('next')}")
    return "greeting -> answer by Command(resume) -> slots filled, confirmation asked"


def check_rag(s: Server) -> str:
    first, second = "고혈압 약은 언제 먹나요?", "당뇨병 초기 증상은?"
    alone = s.run(s.thread(), "rag", input={"user_text": second})
    thread = s.thread()
    one = s.run(thread, "rag", input={"user_text": first})
    two = s.run(thread, "rag", input={"user_text": second})
    expect(bool(doc_ids(one)) and bool(one.get("citations")), "the first answer cites nothing")
    expect(doc_ids(two) == doc_ids(alone), "the second question's documents differ from a fresh thread's")
    return f"two questions on one thread, each from its own documents ({len(doc_ids(two))} passages)"


def check_text2sql(s: Server) -> str:
    out = s.run(s.thread(), "text2sql", input={"user_input": "고객은 모두 몇 명인가요?"})
    expect(out.get("status") == "submitted", f"status {out.get('status')}: {out.get('reply')}")
    expect("count(" in str(out.get("sql")).lower() and "customers" in str(out.get("sql")), f"sql {out.get('sql')}")
    return f"{out['sql']}"


def check_tableqa(s: Server) -> str:
    question = "Which department has the most employees, and what is its budget?"
    out = s.run(s.thread(), "tableqa", input={"user_input": question})
    expect(out.get("status") == "answered", f"status {out.get('status')}: {out.get('reply')}")
    expect(out.get("answers") == ["Defense", "439.3"], f"answers {out.get('answers')}")
    return "the example tables (langgraph.json env): Defense | 439.3"


def check_supervisor(s: Server) -> str:
    out = s.run(s.thread(), "supervisor", input={"user_input": "강남구 아파트 매매 실거래가 알려줘"})
    reply = str(out.get("reply") or "")
    plan = out.get("execution_plan")
    expect(bool(plan) and "거래" in reply, f"plan {plan}, reply {reply[:200]}")
    return f"plan and reply ({len(reply)} characters)"


def check_chat(s: Server) -> str:
    """The ``<agent>_chat`` graphs: LangGraph's ``messages`` convention, as agent-chat-ui sends it."""
    def say(thread: str, graph: str, text: str) -> dict[str, Any]:
        return s.run(thread, graph, input={"messages": [{"type": "human", "content": text}]})

    thread = s.thread()
    out = say(thread, "slotfill_chat", "계좌 개설하고 싶어요")
    expect(out["messages"][-1]["type"] == "ai" and "입출금통장" in out["messages"][-1]["content"],
           f"slotfill_chat's first reply: {out['messages'][-1]}")
    out = say(thread, "slotfill_chat", "네 맞아요")
    expect([m["type"] for m in out["messages"]] == ["human", "ai", "human", "ai"], f"messages {out['messages']}")
    expect(out["state"].get("stage") == "ask_lifelong_account", f"slotfill_chat stage {out['state'].get('stage')}")
    out = say(s.thread(), "tableqa_chat", "Which department has the most employees, and what is its budget?")
    expect("Defense" in out["messages"][-1]["content"], f"tableqa_chat: {out['messages'][-1]['content'][:200]}")
    for graph, question in (("rag_chat", "고혈압 약은 언제 먹나요?"), ("text2sql_chat", "고객은 모두 몇 명인가요?"),
                            ("supervisor_chat", "강남구 아파트 매매 실거래가 알려줘")):
        out = say(s.thread(), graph, question)
        expect(out["messages"][-1]["type"] == "ai" and bool(out["messages"][-1]["content"].strip()),
               f"{graph}: {out['messages'][-1]}")
    return "messages in, AI message out: slotfill across two runs of a thread, the other four answer"


CHECKS: list[tuple[str, Callable[[Server], str]]] = [
    ("listed", check_listed), ("slotfill", check_slotfill), ("rag", check_rag), ("text2sql", check_text2sql),
    ("tableqa", check_tableqa), ("supervisor", check_supervisor), ("chat", check_chat),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0, help="0: a free one")
    args = parser.parse_args()
    server = Server(args.port or free_port())
    failed = 0
    try:
        started = time.monotonic()
        server.wait_ready()
        print(f"langgraph dev ready in {time.monotonic() - started:.1f} s on {server.url}", flush=True)
        for name, check in CHECKS:
            try:
                print(f"ok    {name:10} {check(server)}", flush=True)
            except (Failed, httpx.HTTPError, KeyError, ValueError) as exc:
                failed += 1
                print(f"FAIL  {name:10} {type(exc).__name__}: {exc}", flush=True)
        blocking = "BlockingError" in server.log.read_text(encoding="utf-8", errors="replace")
        if blocking:
            failed += 1
            print("FAIL  log        a graph blocked the server's event loop (BlockingError)", flush=True)
    except Failed as exc:
        failed += 1
        print(f"FAIL  server     {exc}", flush=True)
    finally:
        server.stop()
        if failed:
            print(f"\nthe end of langgraph dev's log:\n{server.tail()}", file=sys.stderr)
        shutil.rmtree(server.data, ignore_errors=True)
    print(f"{failed} check(s) failed" if failed else f"all {len(CHECKS)} checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
