"""Requests an attacker or a careless client sends (issue 8 defects 3, 6, 7 and 12), in process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sse_client import parse_sse

from graphagents.server import create_app
from graphagents.settings import Settings

SECRET = "zq-secret-marker-4242"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, warm_on_start=False)


@pytest.fixture
async def client(example_spec: Any, settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


async def new_session(client: httpx.AsyncClient, agent: str = "example", **body: Any) -> str:
    res = await client.post(f"/api/agents/{agent}/sessions", json=body)
    assert res.status_code == 201, res.text
    return str(res.json()["session_id"])


# -- defect 3: the body limit holds on the bytes read; errors never echo input --------------------------


async def test_a_chunked_body_is_cut_at_the_limit_and_never_read_whole(client: httpx.AsyncClient,
                                                                      settings: Settings) -> None:
    sid = await new_session(client)
    sent = 0

    def chunks() -> Iterator[bytes]:
        nonlocal sent
        yield b'{"text": "'
        for _ in range(2000):  # 16 MB if it were all read
            sent += 8192
            yield SECRET.encode() + b"x" * (8192 - len(SECRET))

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks():
            yield chunk

    res = await client.post(f"/api/agents/example/sessions/{sid}/messages", content=body(),
                            headers={"content-type": "application/json"})
    assert "content-length" not in res.request.headers  # really chunked
    assert res.status_code == 413, res.text
    assert res.json()["error"] == f"request body is over the limit of {settings.max_body_bytes} bytes"
    assert sent <= settings.max_body_bytes + 2 * 8192  # reading stopped at the limit
    ok = await client.post(f"/api/agents/example/sessions/{sid}/messages", json={"text": "hi"})
    assert parse_sse(ok.text)[-1][1]["text"] == "What is your name?"


async def test_a_declared_length_over_the_limit_or_malformed_is_refused_unread(client: httpx.AsyncClient) -> None:
    sid = await new_session(client)
    url = f"/api/agents/example/sessions/{sid}/messages"
    big = await client.post(url, content=b"x" * 100_000, headers={"content-type": "application/json"})
    assert big.status_code == 413


@pytest.mark.parametrize("body", [
    b'{"text": "' + SECRET.encode() * 200 + b'"',  # unterminated JSON
    b'{"text": ["' + SECRET.encode() + b'"]}',  # wrong type
    b'{"text": "hi", "' + SECRET.encode() * 20 + b'": 1}',  # an invented key
    b'{"text": "' + SECRET.encode() * 300 + b'"}',  # over the message limit
])
async def test_errors_never_echo_the_input(client: httpx.AsyncClient, body: bytes) -> None:
    sid = await new_session(client)
    res = await client.post(f"/api/agents/example/sessions/{sid}/messages", content=body,
                            headers={"content-type": "application/json"})
    assert res.status_code == 422, res.text
    assert SECRET not in res.text and len(res.json()["error"]) <= 300


# -- defect 6: options are checked at creation; a failure mid-stream is error + final, never empty ---------


async def test_wrong_typed_options_are_refused_when_the_session_is_created(client: httpx.AsyncClient) -> None:
    res = await client.post("/api/agents/slotfill/sessions", json={"options": {"profile": "x"}})
    assert res.status_code == 422 and "profile" in res.json()["error"]
    res = await client.post("/api/agents/example/sessions", json={"session_id": "opt1", "options": {"loop": 3}})
    assert res.status_code == 422
    assert (await client.get("/api/agents/example/sessions/opt1")).status_code == 404  # nothing was stored


async def test_a_failure_after_the_stream_began_is_an_error_and_a_final_event(
        client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphagents import _turn

    sid = await new_session(client)

    def broken(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(SECRET)

    monkeypatch.setattr(_turn.Turn, "final", broken)
    res = await client.post(f"/api/agents/example/sessions/{sid}/messages", json={"text": "hi"})
    assert res.status_code == 200
    frames = parse_sse(res.text)
    kinds = [kind for kind, _ in frames]
    assert kinds[-2:] == ["error", "final"] and frames[-2][1]["code"] == "internal"
    assert SECRET not in res.text  # logged on the server, not sent
    monkeypatch.undo()
    again = await client.post(f"/api/agents/example/sessions/{sid}/messages", json={"text": "Ada"})
    assert parse_sse(again.text)[-1][1]["text"] == "Hello Ada! Favourite colour?"


# -- defect 7: NUL, lone surrogates and non-ASCII ids ----------------------------------------------------


@pytest.mark.parametrize(("raw", "why"), [
    (b'{"text": "\\u0000"}', "NUL"),
    (b'{"text": "\\uc548\\ub155\\u0000"}', "NUL"),
    (b'{"text": "\\ud800"}', "surrogate"),
    (b'{"text": "a\\udfffb"}', "surrogate"),
])
async def test_nul_and_lone_surrogates_are_refused_with_one_line(client: httpx.AsyncClient, raw: bytes,
                                                                 why: str) -> None:
    sid = await new_session(client)
    res = await client.post(f"/api/agents/example/sessions/{sid}/messages", content=raw,
                            headers={"content-type": "application/json"})
    assert res.status_code == 422 and why in res.json()["error"], res.text
    opts = b'{"options": {"traveller": ' + raw.split(b": ", 1)[1].rstrip(b"}") + b"}}"
    res = await client.post("/api/agents/slotfill/sessions", content=opts.replace(b"traveller", b"profile"),
                            headers={"content-type": "application/json"})
    assert res.status_code == 422


@pytest.mark.parametrize("sid", ["%00", "a%00b", "ａｂｃ", "٣٤٥", "abc%C2%A0", "x" * 65, "%F0%9F%98%80"])
async def test_session_ids_are_ascii_and_checked_before_any_lookup(
        client: httpx.AsyncClient, sid: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphagents._sessions import SessionStore

    looked_up: list[str] = []
    real_get = SessionStore.get

    def spy(self: SessionStore, agent: str, session_id: str) -> Any:
        looked_up.append(session_id)
        return real_get(self, agent, session_id)

    monkeypatch.setattr(SessionStore, "get", spy)
    for method, path, body in [("GET", f"/api/agents/example/sessions/{sid}", None),
                               ("POST", f"/api/agents/example/sessions/{sid}/messages", {"text": "hi"})]:
        res = await client.request(method, path, json=body)
        assert res.status_code == 422, (method, sid, res.text)
        assert "ASCII" in res.json()["error"]
    created = await client.post("/api/agents/example/sessions", json={"session_id": httpx.URL(
        "http://x/" + sid).path.lstrip("/")})
    assert created.status_code == 422
    assert looked_up == []


@pytest.mark.postgres
async def test_nul_and_bad_ids_on_postgres_are_422_not_500(example_spec: Any, tmp_path: Path,
                                                           pg_database: str) -> None:
    app = create_app(Settings(data_dir=tmp_path, checkpoint_url=pg_database, warm_on_start=False))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        sid = await new_session(c)
        res = await c.post(f"/api/agents/example/sessions/{sid}/messages", content='{"text": "안녕\\u0000"}',
                           headers={"content-type": "application/json"})
        assert res.status_code == 422 and "안녕" not in res.text
        assert (await c.get("/api/agents/example/sessions/a%00b")).status_code == 422
        res = await c.post("/api/agents/example/sessions", json={"options": {"traveller": "a\u0000"}})
        assert res.status_code == 422
        ok = await c.post(f"/api/agents/example/sessions/{sid}/messages", json={"text": "hi"})
        assert parse_sse(ok.text)[-1][1]["text"] == "What is your name?"


# -- defect 12: the minor ones ----------------------------------------------------------------------------


async def test_405_names_the_allowed_methods(client: httpx.AsyncClient) -> None:
    res = await client.delete("/healthz")
    assert res.status_code == 405 and res.headers["allow"] == "GET"
    res = await client.put("/api/agents/example/sessions")
    assert res.status_code == 405 and "POST" in res.headers["allow"]


async def test_openapi_lists_errors_and_the_sse_content_type(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    send = spec["paths"]["/api/agents/{name}/sessions/{session_id}/messages"]["post"]
    assert "text/event-stream" in send["responses"]["200"]["content"]
    assert {"404", "409", "413", "422", "429", "503"} <= set(send["responses"])
    create = spec["paths"]["/api/agents/{name}/sessions"]["post"]
    assert {"404", "409", "422"} <= set(create["responses"])
    assert "404" in spec["paths"]["/api/agents/{name}/sessions/{session_id}"]["get"]["responses"]


async def test_creating_an_existing_id_is_409_and_keeps_its_options(client: httpx.AsyncClient,
                                                                   trip_spec: Any) -> None:
    first = await client.post("/api/agents/trip/sessions", json={"session_id": "dup-1",
                                                                "options": {"traveller": "Ann"}})
    assert first.status_code == 201
    again = await client.post("/api/agents/trip/sessions", json={"session_id": "dup-1",
                                                                "options": {"traveller": "Bob"}})
    assert again.status_code == 409 and "exists" in again.json()["error"]
    other = await client.post("/api/agents/trip/sessions", json={"session_id": "dup-1"},
                              headers={"X-User-Id": "mallory"})
    assert other.status_code == 404  # someone else's id is never confirmed
    app = client._transport.app  # type: ignore[attr-defined]
    agent = await app.state.pool.get("trip")
    assert agent.get_session("dup-1").options["traveller"] == "Ann"


async def test_the_lock_map_keeps_only_busy_sessions(client: httpx.AsyncClient) -> None:
    from graphagents._locks import SessionLocks

    for _ in range(5):
        sid = await new_session(client)
        await client.post(f"/api/agents/example/sessions/{sid}/messages", json={"text": "hi"})
    assert SessionLocks.active() == 0


def test_the_server_warms_up_at_start_and_readyz_says_so(example_spec: Any, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from graphagents.korean import _analyser

    app = create_app(Settings(data_dir=tmp_path, warm_on_start=True))
    with TestClient(app, client=("127.0.0.1", 50000)) as tc:
        import time

        deadline = time.monotonic() + 120
        while (res := tc.get("/readyz")).status_code != 200 and time.monotonic() < deadline:
            assert res.headers["retry-after"] and res.json()["problems"]
            time.sleep(0.2)
        body = res.json()
        assert res.status_code == 200 and body["status"] == "ready", body
        assert _analyser._kiwi is not None  # the Korean analyser is loaded before any message
        built = {a.name for a in app.state.pool.built()}
        assert {"example", "slotfill"} <= built
