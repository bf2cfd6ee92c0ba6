"""Issue 26 item 5: with auth off, the app itself takes X-User-Id from loopback peers only (an app
run by plain uvicorn on 0.0.0.0 never passes through ``serve``'s check); addresses are parsed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from auth_helpers import reset_settings

from graphagents.auth.settings import is_loopback
from graphagents.server import create_app
from graphagents.settings import get_settings


def test_is_loopback_parses_addresses() -> None:
    for host in ("127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost", "LOCALHOST", "::ffff:127.0.0.1"):
        assert is_loopback(host), host
    for host in ("127.attacker.example", "127.0.0.1.nip.io", "0.0.0.0", "::", "192.0.2.2", "10.0.0.1",
                 "::ffff:192.0.2.2", "testclient", "", "localhost.example"):
        assert not is_loopback(host), host


async def _client(peer: str) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(get_settings())
    transport = httpx.ASGITransport(app=app, client=(peer, 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


@pytest.fixture
async def remote(data_dir: Path) -> AsyncIterator[httpx.AsyncClient]:
    async for c in _client("192.0.2.2"):
        yield c


@pytest.fixture
async def local(data_dir: Path) -> AsyncIterator[httpx.AsyncClient]:
    async for c in _client("127.0.0.1"):
        yield c


ALICE = {"X-User-Id": "alice"}


async def test_a_remote_peer_cannot_claim_a_user_with_auth_off(
        example_spec: object, local: httpx.AsyncClient, remote: httpx.AsyncClient) -> None:
    created = await local.post("/api/agents/example/sessions", json={}, headers=ALICE)
    assert created.status_code == 201
    assert (await local.get("/api/me/data", headers=ALICE)).status_code == 200
    sid = created.json()["session_id"]
    for method, path in (("GET", "/api/me/data"), ("GET", "/api/agents/example/sessions"),
                         ("POST", "/api/agents/example/sessions"), ("GET", f"/api/agents/example/sessions/{sid}")):
        res = await remote.request(method, path, headers=ALICE, json={} if method == "POST" else None)
        assert res.status_code == 403, (path, res.text)
        assert "this machine only" in res.json()["error"] and "alice" not in res.text
    res = await remote.get("/api/me/data")  # no header: not "anonymous" either
    assert res.status_code == 403
    assert (await remote.get("/healthz")).status_code == 200  # liveness is not user data


async def test_insecure_lets_remote_peers_name_a_user(data_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                                      example_spec: object) -> None:
    monkeypatch.setenv("GRAPHAGENTS_INSECURE", "true")
    reset_settings()
    try:
        async for remote in _client("192.0.2.2"):
            res = await remote.post("/api/agents/example/sessions", json={}, headers=ALICE)
            assert res.status_code == 201 and res.json()["user_id"] == "alice"
    finally:
        monkeypatch.delenv("GRAPHAGENTS_INSECURE")
        reset_settings()


async def test_an_ipv4_mapped_loopback_peer_is_local(data_dir: Path, example_spec: object) -> None:
    async for mapped in _client("::ffff:127.0.0.1"):
        res = await mapped.post("/api/agents/example/sessions", json={}, headers=ALICE)
        assert res.status_code == 201 and res.json()["user_id"] == "alice"
