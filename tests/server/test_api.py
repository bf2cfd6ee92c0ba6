from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sse_client import parse_sse

from graphagents.server import create_app
from graphagents.settings import get_settings


@pytest.fixture
async def client(example_spec: Any) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(get_settings())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


async def new_session(client: httpx.AsyncClient, **body: Any) -> str:
    res = await client.post("/api/agents/example/sessions", json=body)
    assert res.status_code == 201, res.text
    return str(res.json()["session_id"])


async def test_health_agents_and_openapi(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json()["status"] == "ok"
    agents = (await client.get("/api/agents")).json()
    example = next(a for a in agents if a["name"] == "example")
    assert example["samples"] == [["hi", "Ada", "blue"]]
    spec = (await client.get("/openapi.json")).json()
    assert "/api/agents/{name}/sessions/{session_id}/messages" in spec["paths"]


async def test_conversation_over_sse(client: httpx.AsyncClient) -> None:
    sid = await new_session(client)
    res = await client.post(f"/api/agents/example/sessions/{sid}/messages", json={"text": "name:Ann"})
    assert res.status_code == 200
    assert res.headers["content-type"].startswith("text/event-stream")
    frames = parse_sse(res.text)
    kinds = [k for k, _ in frames]
    assert "step" in kinds and "state_update" in kinds and kinds[-1] == "final"
    assert frames[-1][1]["text"] == "Hello Ann! Favourite colour?"
    assert all(data["type"] == kind for kind, data in frames)
    state = (await client.get(f"/api/agents/example/sessions/{sid}")).json()
    assert state["pending"] == "Hello Ann! Favourite colour?" and state["state"]["name"] == "Ann"


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("post", "/api/agents/nope/sessions", {}, 404),
        ("get", "/api/agents/example/sessions/missing", None, 404),
        ("post", "/api/agents/example/sessions/missing/messages", {"text": "hi"}, 404),
        ("post", "/api/agents/example/sessions", {"session_id": "bad id!"}, 422),
        ("post", "/api/agents/example/sessions", {"options": {"unknown": 1}}, 400),
        ("post", "/api/agents/example/sessions", {"bogus": 1}, 422),
    ],
)
async def test_bad_requests_get_json_errors(client: httpx.AsyncClient, method: str, path: str, body: Any,
                                            status: int) -> None:
    res = await client.request(method.upper(), path, json=body)
    assert res.status_code == status, res.text
    assert isinstance(res.json()["error"], str) and "\n" not in res.json()["error"]


@pytest.mark.parametrize("payload", [{"text": ""}, {"text": "   "}, {"text": "x" * 4001}, {"txt": "hi"}, {}])
async def test_bad_messages_are_422_and_lose_nothing(client: httpx.AsyncClient, payload: Any) -> None:
    sid = await new_session(client)
    res = await client.post(f"/api/agents/example/sessions/{sid}/messages", json=payload)
    assert res.status_code == 422 and res.json()["error"]
    ok = await client.post(f"/api/agents/example/sessions/{sid}/messages", json={"text": "hi"})
    assert parse_sse(ok.text)[-1][1]["text"] == "What is your name?"


async def test_malformed_json_and_huge_body(client: httpx.AsyncClient) -> None:
    sid = await new_session(client)
    url = f"/api/agents/example/sessions/{sid}/messages"
    bad = await client.post(url, content=b"{not json", headers={"content-type": "application/json"})
    assert bad.status_code == 422
    huge = await client.post(url, content=b"x" * 100_000, headers={"content-type": "application/json"})
    assert huge.status_code == 413
    assert (await client.get("/healthz")).status_code == 200


async def test_web_page_is_served(client: httpx.AsyncClient) -> None:
    page = await client.get("/")
    assert page.status_code == 200 and "<select id=\"agent-select\"" in page.text
    js = await client.get("/static/app.js")
    assert js.status_code == 200 and "readSSE" in js.text
