"""A third-party agent gets the powers of the built-in five: its routes, page view, view data, user
text, user data, doctor checks, CLI commands and a sub-agent handle, through the CLI (a real process),
the server and LangGraph's graphs. The agent lives in its own package (tests/thirdparty/notes_agent);
the browser side is in tests/web/test_web_third_party.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

THIRDPARTY = Path(__file__).resolve().parents[1] / "thirdparty"
sys.path.insert(0, str(THIRDPARTY))

from notes_agent import NOTES, SHOUT  # noqa: E402

ALICE = {"X-User-Id": "alice-np"}
BOB = {"X-User-Id": "bob-np"}


@pytest.fixture
def plugins() -> Iterator[None]:
    import graphagents as ga
    from graphagents.registry import unregister

    ga.register(NOTES)
    ga.register(SHOUT)
    yield
    unregister(NOTES.name)
    unregister(SHOUT.name)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    from graphagents import _connections
    from graphagents.settings import get_settings

    monkeypatch.setenv("GRAPHAGENTS_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    _connections.reset()
    yield tmp_path / "data"
    get_settings.cache_clear()
    _connections.reset()


@pytest.fixture
async def client(plugins: None, data_dir: Path) -> AsyncIterator[httpx.AsyncClient]:
    from graphagents.server import create_app
    from graphagents.settings import get_settings

    app = create_app(get_settings(), agent_options={"notes": {"label": "할 일"}})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test", timeout=60) as c:
        yield c


def _final(sse: str) -> dict[str, Any]:
    frames = [json.loads(line[5:]) for line in sse.splitlines() if line.startswith("data:")]
    return next(f for f in reversed(frames) if f.get("type") == "final")


async def _say(client: httpx.AsyncClient, headers: dict[str, str], sid: str, text: str) -> dict[str, Any]:
    res = await client.post(f"/api/agents/notes/sessions/{sid}/messages", json={"text": text}, headers=headers)
    assert res.status_code == 200, res.text
    return _final(res.text)


# -- the server --------------------------------------------------------------------------------

async def test_the_server_mounts_its_routes_serves_its_page_view_and_its_view_data(client: httpx.AsyncClient) -> None:
    listed = {a["name"]: a for a in (await client.get("/api/agents")).json()}
    assert listed["notes"]["page_view"] == "/views/notes.js" and listed["shout"]["page_view"] is None
    js = await client.get("/views/notes.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert "export function renderState" in js.text
    assert (await client.get("/views/shout.js")).status_code == 404
    assert (await client.get("/api/agents/notes/view")).json() == {"agent": "notes", "label": "할 일"}
    assert (await client.get("/api/agents/shout/view")).json() == {"agent": "shout"}

    assert (await client.post("/api/agents/notes/notes", json={"text": "우유 사기"}, headers=ALICE)).status_code == 201
    assert (await client.get("/api/agents/notes/notes", headers=ALICE)).json()["notes"] == ["우유 사기"]
    assert (await client.get("/api/agents/notes/notes", headers=BOB)).json()["notes"] == []  # the caller's own
    empty = await client.post("/api/agents/notes/notes", json={"text": "   "}, headers=ALICE)
    assert empty.status_code == 422 and empty.json() == {"error": "the note is empty: write something"}
    big = await client.post("/api/agents/notes/notes", json={"text": "x" * 600}, headers=ALICE)
    assert big.status_code == 413 and "512 bytes" in big.json()["error"]  # the route's own body limit
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert "/api/agents/notes/notes" in paths


async def test_a_session_its_transcript_title_artifacts_and_sub_agent(client: httpx.AsyncClient) -> None:
    sid = (await client.post("/api/agents/notes/sessions", json={"options": {"tag": "집"}}, headers=ALICE)).json()[
        "session_id"]
    first = await _say(client, ALICE, sid, "우유 사기")
    assert first["text"] == "할 일 1개: 우유 사기" and first["state"]["tag"] == "집"
    loud = await _say(client, ALICE, sid, "shout: hello there")  # through the registry's sub-agent handle
    assert loud["text"] == "HELLO THERE!"
    assert loud["artifacts"] == [{"kind": "table", "title": "words", "columns": ["word", "length"],
                                  "rows": [["hello", 5], ["there", 5]], "total_rows": None, "truncated": False}]
    transcript = (await client.get(f"/api/agents/notes/sessions/{sid}/transcript", headers=ALICE)).json()
    assert [(m["role"], m["text"]) for m in transcript["messages"]] == [
        ("user", "우유 사기"), ("agent", "할 일 1개: 우유 사기"), ("user", "shout: hello there"),
        ("agent", "HELLO THERE!")]  # read with the agent's user_text: its input key is "said"
    listed = (await client.get("/api/agents/notes/sessions", headers=ALICE)).json()["sessions"]
    assert [s["title"] for s in listed] == ["우유 사기"]
    reopened = (await client.get(f"/api/agents/notes/sessions/{sid}", headers=ALICE)).json()
    assert reopened["artifacts"][0]["rows"] == [["hello", 5], ["there", 5]]  # the last answer's, for the page


async def test_the_users_data_is_exported_and_erased_with_the_agents_hook_and_store(
        client: httpx.AsyncClient) -> None:
    sid = (await client.post("/api/agents/notes/sessions", json={}, headers=ALICE)).json()["session_id"]
    await _say(client, ALICE, sid, "비밀 메모 7731")
    bob = (await client.post("/api/agents/notes/sessions", json={}, headers=BOB)).json()["session_id"]
    await _say(client, BOB, bob, "밥의 메모")
    exported = (await client.get("/api/me/data", headers=ALICE)).json()
    assert exported["data"]["notes"] == {"last": "비밀 메모 7731"}  # the agent's user_data hook
    notes = [m for m in exported["memory"] if m["namespace"][2:] == ["notes", "notes"]]
    assert [m["value"]["text"] for m in notes] == ["비밀 메모 7731"]  # its store namespace, by the core
    removed = (await client.request("DELETE", "/api/me/data", headers=ALICE)).json()
    assert removed["deleted"]["notes"] == 1 and removed["deleted"]["memory"] >= 1
    assert "7731" not in json.dumps((await client.get("/api/me/data", headers=ALICE)).json(), ensure_ascii=False)
    assert (await client.get("/api/agents/notes/notes", headers=BOB)).json()["notes"] == ["밥의 메모"]


def test_a_route_that_would_shadow_the_servers_own_is_refused(plugins: None, data_dir: Path) -> None:
    from fastapi import APIRouter

    import graphagents as ga
    from graphagents.errors import ConfigError
    from graphagents.registry import AgentSpec, unregister
    from graphagents.routes import AgentRoutes
    from graphagents.server import create_app

    def routes() -> AgentRoutes:
        router = APIRouter()
        router.add_api_route("/sessions/all", lambda: {}, methods=["GET"])
        return AgentRoutes(router)

    ga.register(AgentSpec(name="greedy", title="g", description="g", build=NOTES.build, routes=routes))
    try:
        with pytest.raises(ConfigError, match="agent 'greedy': route '/sessions/all' is not allowed"):
            create_app()
    finally:
        unregister("greedy")


def test_langgraph_gets_its_graph_and_chat_graph(plugins: None, data_dir: Path) -> None:
    from langchain_core.messages import HumanMessage

    from graphagents.langgraph_graphs import build_graph, chat_graph

    graph = build_graph("notes")
    assert graph.checkpointer is None and "answer" in graph.get_graph().nodes
    out = chat_graph("notes").invoke({"messages": [HumanMessage("shout: hi")]},
                                     {"configurable": {"thread_id": "lg-notes-1"}})
    assert out["messages"][-1].content == "HI!"


# -- the CLI, a real process -------------------------------------------------------------------

def _cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GRAPHAGENTS_DATA_DIR": str(data_dir), "COLUMNS": "200"}
    return subprocess.run([sys.executable, str(THIRDPARTY / "cli_with_plugins.py"), *args], env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_cli_lists_asks_checks_and_runs_its_commands(tmp_path: Path) -> None:
    listed = _cli(tmp_path, "agents", "--json")
    assert listed.returncode == 0, listed.stderr
    notes = next(a for a in json.loads(listed.stdout) if a["name"] == "notes")
    assert notes["options"] == {"label": "what the page calls a note"}
    asked = _cli(tmp_path, "ask", "notes", "우유 사기", "--user", "u1", "-o", "label=할 일")
    assert asked.returncode == 0, asked.stderr
    assert "할 일 1개: 우유 사기" in asked.stdout
    loud = _cli(tmp_path, "ask", "notes", "shout: hello there", "--user", "u1")
    assert "HELLO THERE!" in loud.stdout and "hello" in loud.stdout and "length" in loud.stdout  # its table
    assert _cli(tmp_path, "notes", "count", "--user", "u1").stdout.strip() == "1"  # its own command
    doctor = _cli(tmp_path, "doctor")
    assert "ok   notes store: the store answers; notes are called '메모'" in doctor.stdout, doctor.stdout
    assert "notes" in _cli(tmp_path, "agents", "--names", "--evaluable").stdout.split()
    evaluated = _cli(tmp_path, "eval", "notes", "--report", str(tmp_path / "report"))  # its evaluation
    assert evaluated.returncode == 0, evaluated.stderr
    report = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    assert (report["agent"], report["n"], report["right"], report["wrong"]) == ("notes", 3, 3, 0)


def test_its_scorer_tells_right_from_wrong() -> None:
    from notes_agent.evaluation import EVALUATION

    from graphagents.evals import Case, CaseResult, Output, assert_measuring_stick, expect, score_case

    case = Case("s1", "shout: hello there", "HELLO THERE!")
    right = Output(answer="HELLO THERE!")
    wrong = [Output(answer="HELLO THERE"), Output(answer="hello there!"), Output(answer="")]
    results = [CaseResult(case, right, score_case(EVALUATION.scorer, case, right))]
    mistakes = [CaseResult(case, out, score_case(EVALUATION.scorer, case, out)) for out in wrong]
    assert_measuring_stick(EVALUATION.scorer, [*expect(results, "right"), *expect(mistakes, "wrong")])
