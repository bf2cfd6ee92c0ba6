"""The page's session routes: a user's sessions listed with titles and times, renamed, deleted, read
back as a transcript; other users get 404s; the slot-filling view; the favicon."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sse_client import parse_sse

from graphagents.server import create_app
from graphagents.settings import get_settings

ANN = {"X-User-Id": "ann"}
BEN = {"X-User-Id": "ben"}


@pytest.fixture
async def client(example_spec: Any, trip_spec: Any) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(get_settings())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


async def session(client: httpx.AsyncClient, agent: str, headers: dict[str, str], *texts: str) -> str:
    res = await client.post(f"/api/agents/{agent}/sessions", json={}, headers=headers)
    assert res.status_code == 201, res.text
    sid = str(res.json()["session_id"])
    for text in texts:
        sent = await client.post(f"/api/agents/{agent}/sessions/{sid}/messages", json={"text": text}, headers=headers)
        assert parse_sse(sent.text)[-1][0] == "final"
    return sid


async def test_list_rename_delete_and_transcript(client: httpx.AsyncClient) -> None:
    first = await session(client, "example", ANN, "name:Mina", "teal")
    second = await session(client, "example", ANN, "name:Joon")
    await session(client, "example", BEN, "name:Ben")
    listed = (await client.get("/api/agents/example/sessions", headers=ANN)).json()["sessions"]
    assert [s["session_id"] for s in listed] == [second, first]  # newest activity first, only Ann's
    assert [s["title"] for s in listed] == ["name:Joon", "name:Mina"]  # the first message
    assert all(s["updated_at"] >= s["created_at"] for s in listed)

    transcript = (await client.get(f"/api/agents/example/sessions/{first}/transcript", headers=ANN)).json()
    assert [(m["role"], m["text"]) for m in transcript["messages"]] == [
        ("user", "name:Mina"), ("agent", "Hello Mina! Favourite colour?"),
        ("user", "teal"), ("agent", "Mina likes teal."),
    ]

    renamed = await client.patch(f"/api/agents/example/sessions/{first}", json={"title": "  Mina's   colours "},
                                 headers=ANN)
    assert renamed.status_code == 200 and renamed.json()["title"] == "Mina's colours"
    titles = {s["session_id"]: s["title"] for s in (await client.get("/api/agents/example/sessions",
                                                                      headers=ANN)).json()["sessions"]}
    assert titles[first] == "Mina's colours"
    bad = await client.patch(f"/api/agents/example/sessions/{first}", json={"title": "   "}, headers=ANN)
    assert bad.status_code == 422 and "title" in bad.json()["error"]

    # another user cannot see, rename, read or delete it: the same 404 as an unknown id
    for method, url, body in (("PATCH", f"/api/agents/example/sessions/{first}", {"title": "x"}),
                              ("DELETE", f"/api/agents/example/sessions/{first}", None),
                              ("GET", f"/api/agents/example/sessions/{first}/transcript", None)):
        res = await client.request(method, url, json=body, headers=BEN)
        assert res.status_code == 404 and "Mina" not in res.text
    assert [s["title"] for s in (await client.get("/api/agents/example/sessions", headers=BEN)).json()["sessions"]] \
        == ["name:Ben"]

    gone = await client.delete(f"/api/agents/example/sessions/{first}", headers=ANN)
    assert gone.status_code == 200 and gone.json()["deleted"] is True
    assert (await client.get(f"/api/agents/example/sessions/{first}", headers=ANN)).status_code == 404
    assert (await client.delete(f"/api/agents/example/sessions/{first}", headers=ANN)).status_code == 404
    left = (await client.get("/api/agents/example/sessions", headers=ANN)).json()["sessions"]
    assert [s["session_id"] for s in left] == [second]
    assert (await client.get("/api/agents/no-such-agent/sessions", headers=ANN)).status_code == 404

    # titles hold the user's words: exported and erased with the rest of the user's data
    memory = (await client.get("/api/me/data", headers=ANN)).json()["memory"]
    assert [(m["key"], m["value"]["title"]) for m in memory if m["namespace"][-1] == "session_titles"] \
        == [(f"example:{second}", "name:Joon")]
    assert (await client.delete("/api/me/data", headers=ANN)).status_code == 200
    assert (await client.get("/api/me/data", headers=ANN)).json()["memory"] == []
    assert (await client.get("/api/agents/example/sessions", headers=ANN)).json()["sessions"] == []
    bens = (await client.get("/api/me/data", headers=BEN)).json()["memory"]
    assert [m["value"]["title"] for m in bens] == ["name:Ben"]


async def test_a_subgraph_question_and_an_untitled_session(client: httpx.AsyncClient) -> None:
    empty = await session(client, "trip", ANN)
    asked = await session(client, "trip", ANN, "plan a trip")
    res = await client.get("/api/agents/trip/sessions", headers=ANN)
    listed = {s["session_id"]: s for s in res.json()["sessions"]}
    assert listed[empty]["title"] == "" and listed[asked]["title"] == "plan a trip"
    messages = (await client.get(f"/api/agents/trip/sessions/{asked}/transcript", headers=ANN)).json()["messages"]
    assert messages[0] == {"role": "user", "text": "plan a trip", "at": messages[0]["at"]}
    assert [m["role"] for m in messages] == ["user", "agent", "agent"]  # both pending questions


async def test_slotfill_view_has_groups_and_korean_labels(client: httpx.AsyncClient) -> None:
    view = (await client.get("/api/agents/slotfill/view")).json()["scenario"]
    assert [g["id"] for g in view["groups"]][:2] == ["basic_info", "account_settings"]
    assert view["slots"]["transfer_limit_per_day"] == {"label": "1일 이체한도", "type": "amount", "display": {}}
    assert view["stages"]["confirm_basic_info"]["group"] == "basic_info"
    assert view["stages"]["ask_lifelong_account"]["group"] == "account_settings"
    assert (await client.get("/api/agents/example/view")).json() == {"agent": "example"}
    assert (await client.get("/api/agents/nope/view")).status_code == 404


async def test_favicon(client: httpx.AsyncClient) -> None:
    res = await client.get("/favicon.ico")
    assert res.status_code == 200 and res.headers["content-type"] == "image/x-icon"
    assert res.content[:4] == b"\x00\x00\x01\x00"  # an ICO header
    page = (await client.get("/")).text
    assert 'rel="icon"' in page and "/static/favicon.svg" in page
    assert (await client.get("/static/favicon.svg")).status_code == 200
