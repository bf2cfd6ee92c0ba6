from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sse_client import parse_sse

from graphagents.server import create_app
from graphagents.settings import get_settings


@pytest.fixture
async def client(example_spec: Any, trip_spec: Any) -> AsyncIterator[httpx.AsyncClient]:
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
    assert [q["text"] for q in state["questions"]] == ["Hello Ann! Favourite colour?"]
    assert state["user_id"] == "anonymous"


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("post", "/api/agents/nope/sessions", {}, 404),
        ("get", "/api/agents/example/sessions/missing", None, 404),
        ("post", "/api/agents/example/sessions/missing/messages", {"text": "hi"}, 404),
        ("post", "/api/agents/example/sessions", {"session_id": "bad id!"}, 422),
        ("post", "/api/agents/example/sessions", {"options": {"unknown": 1}}, 422),
        ("post", "/api/agents/trip/sessions", {"options": {"budget": "lots"}}, 422),
        ("post", "/api/agents/trip/sessions", {"options": {"traveller": ""}}, 422),
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


async def send(client: httpx.AsyncClient, agent: str, sid: str, text: str,
               headers: dict[str, str] | None = None) -> list[tuple[str, dict[str, Any]]]:
    res = await client.post(f"/api/agents/{agent}/sessions/{sid}/messages", json={"text": text}, headers=headers)
    assert res.status_code == 200, res.text
    return parse_sse(res.text)


async def test_composite_agent_over_sse(client: httpx.AsyncClient) -> None:
    res = await client.post("/api/agents/trip/sessions", json={"options": {"traveller": "Min", "budget": 50}})
    sid = res.json()["session_id"]
    frames = await send(client, "trip", sid, "plan a trip")
    inside = [data for kind, data in frames if data["namespace"] == ["research"]]
    assert {d["type"] for d in inside} >= {"step", "tool_call", "tool_result", "decision"}
    final = frames[-1][1]
    assert final["text"] == "Where would you like to go?"
    assert [(q["text"], q["path"]) for q in final["questions"]] == [
        ("Where would you like to go?", ["ask_destination"]), ("When do you travel?", ["ask_dates"])]
    assert final["usage"]["steps"] == 5 and final["usage"]["model_calls"] == 0
    state = (await client.get(f"/api/agents/trip/sessions/{sid}")).json()
    assert [q["text"] for q in state["questions"]] == ["Where would you like to go?", "When do you travel?"]
    assert (await send(client, "trip", sid, "Jeju"))[-1][1]["text"] == "When do you travel?"
    final = (await send(client, "trip", sid, "May"))[-1][1]
    assert final["done"] and final["text"] == "Min: Jeju, May. Take it slow."
    assert [a["kind"] for a in final["artifacts"]] == ["table", "chart", "citation"]
    assert final["artifacts"][1]["spec"]["data"]["values"][0]["cost"] == 50


async def test_sessions_belong_to_the_user_in_the_header(client: httpx.AsyncClient) -> None:
    res = await client.post("/api/agents/example/sessions", json={}, headers={"X-User-Id": "alice"})
    assert res.status_code == 201 and res.json()["user_id"] == "alice"
    sid = res.json()["session_id"]
    url = f"/api/agents/example/sessions/{sid}"
    assert (await client.get(url, headers={"X-User-Id": "bob"})).status_code == 404
    assert (await client.post(f"{url}/messages", json={"text": "hi"}, headers={"X-User-Id": "bob"})).status_code == 404
    assert (await client.get(url)).status_code == 404  # no header: "anonymous", who does not own it
    assert (await client.get(url, headers={"X-User-Id": "alice"})).json()["user_id"] == "alice"
    frames = await send(client, "example", sid, "hi", {"X-User-Id": "alice"})
    assert frames[-1][1]["text"] == "What is your name?"
    bad = await client.post("/api/agents/example/sessions", json={}, headers={"X-User-Id": "not ok"})
    assert bad.status_code == 422 and "bad user id" in bad.json()["error"]


async def test_agents_list_their_options_as_json_schema(client: httpx.AsyncClient) -> None:
    agents = {a["name"]: a for a in (await client.get("/api/agents")).json()}
    trip = agents["trip"]["session_options"]
    assert trip["additionalProperties"] is False
    assert trip["properties"]["budget"] == {"default": 100, "description": "budget per day", "minimum": 0,
                                            "title": "Budget", "type": "integer"}
    assert agents["example"]["options"]["properties"]["loop"]["enum"] == ["off", "guarded", "raw"]
    assert agents["example"]["session_options"]["properties"] == {}
    error = (await client.post("/api/agents/trip/sessions", json={"options": {"budget": "lots"}})).json()["error"]
    assert error == ("agent 'trip' session option 'budget': "
                     "Input should be a valid integer, unable to parse string as an integer")


async def test_a_failure_after_the_stream_started_becomes_error_and_final_frames() -> None:
    from graphagents.events import TokenEvent
    from graphagents.server.sse import encode_frames

    async def broken() -> AsyncIterator[Any]:
        yield [TokenEvent("partial")]
        raise RuntimeError("saver vanished")

    chunks = [item async for item in encode_frames(broken())]
    assert [final for _, final in chunks] == [False, True]  # the error and final frames end the stream
    body = b"".join(chunk for chunk, _ in chunks).decode()
    frames = [line.split(":", 1)[1].strip() for line in body.splitlines() if line.startswith("event:")]
    assert frames == ["token", "error", "final"]


async def test_the_event_stream_ends_with_the_final_chunk_and_pings_while_a_turn_is_quiet() -> None:
    import asyncio

    from graphagents.events import FinalEvent, TokenEvent
    from graphagents.server.sse import EventStream

    async def turn() -> AsyncIterator[Any]:
        yield [TokenEvent("a"), TokenEvent("b")]
        await asyncio.sleep(0.25)  # a slow model: the stream must not look dead meanwhile
        yield [FinalEvent("끝", True)]

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    await EventStream(turn(), ping=0.1)({"type": "http"}, receive, send)
    start, *bodies = sent
    headers = dict(start["headers"])
    assert headers[b"content-type"].startswith(b"text/event-stream")
    assert b"content-length" not in headers  # a stream: chunked, never "content-length: 0"
    assert bodies[0]["body"].count(b"event: token") == 2 and bodies[0]["more_body"]  # one burst, one write
    pings = [b for b in bodies if b["body"] == b": ping\r\n\r\n"]
    assert len(pings) >= 1 and all(b["more_body"] for b in pings)
    assert bodies[-1]["body"].startswith(b"event: final") and bodies[-1]["more_body"] is False  # no extra write
    assert len(bodies) == 2 + len(pings)
