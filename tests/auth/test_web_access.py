"""The page's sign-in cookie, CSRF, CORS and origins, through the ASGI app."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from auth_helpers import User, reset_settings

from graphagents.auth.keys import KeyStore
from graphagents.server import create_app
from graphagents.settings import get_settings
from graphagents.store import database_for


async def sign_in(client: httpx.AsyncClient, user: User) -> str:
    res = await client.post("/api/auth/login", json={"api_key": user.key})
    assert res.status_code == 200, res.text
    cookie = res.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert user.key not in res.text and user.key not in res.headers["set-cookie"]
    return str(res.json()["csrf_token"])


async def test_cookie_sign_in_needs_the_csrf_token_to_change_anything(client: httpx.AsyncClient,
                                                                       alice: User) -> None:
    csrf = await sign_in(client, alice)
    me = (await client.get("/api/auth/me")).json()
    assert me == {"user_id": alice.user_id, "via": "cookie", "auth": True, "csrf_token": csrf}
    assert (await client.get("/api/agents")).status_code == 200  # reads need no CSRF token
    for headers in ({}, {"X-CSRF-Token": "0" * 40}, {"X-CSRF-Token": ""}):
        res = await client.post("/api/agents/memo/sessions", json={}, headers=headers)
        assert res.status_code == 403 and "CSRF" in res.json()["error"]
    res = await client.post("/api/agents/memo/sessions", json={}, headers={"X-CSRF-Token": csrf})
    assert res.status_code == 201 and res.json()["user_id"] == alice.user_id
    # signing out ends the cookie on the server, not only in the browser
    cookie = client.cookies.get("ga_session")
    assert (await client.post("/api/auth/logout", headers={"X-CSRF-Token": csrf})).json() == {"signed_out": True}
    client.cookies.set("ga_session", cookie)  # a copy kept by whoever stole it
    res = await client.get("/api/auth/me")
    assert res.status_code == 401 and "sign in again" in res.json()["error"]


async def test_revoking_the_key_ends_its_page_sign_ins(client: httpx.AsyncClient, alice: User) -> None:
    await sign_in(client, alice)
    assert (await client.get("/api/auth/me")).status_code == 200
    KeyStore(database_for(get_settings().resolved_database_url)).revoke(alice.key[3:15])
    assert (await client.get("/api/auth/me")).status_code == 401


async def test_bad_sign_ins(client: httpx.AsyncClient, alice: User) -> None:
    for body in ({"api_key": alice.key[:-2] + "zz"}, {"api_key": "nonsense"}, {"api_key": ""}):
        res = await client.post("/api/auth/login", json=body)
        assert res.status_code == 401 and "set-cookie" not in res.headers
    assert (await client.post("/api/auth/login", json={"api_key": "x" * 500})).status_code == 422
    assert (await client.post("/api/auth/login", json={"key": alice.key})).status_code == 422
    client.cookies.set("ga_session", "forged-token")
    assert (await client.get("/api/auth/me")).status_code == 401


async def test_a_cross_site_state_change_is_refused(client: httpx.AsyncClient, alice: User) -> None:
    res = await client.post("/api/agents/memo/sessions", json={}, headers={**alice.headers, "Origin": "https://evil.example"})
    assert res.status_code == 403 and "cross-site" in res.json()["error"]
    res = await client.post("/api/auth/login", json={"api_key": alice.key}, headers={"Origin": "https://evil.example"})
    assert res.status_code == 403
    for origin in ("null", "http://test.evil.example", "http://evil.example/http://test"):
        res = await client.post("/api/agents/memo/sessions", json={}, headers={**alice.headers, "Origin": origin})
        assert res.status_code == 403, origin
    for origin in ("http://test", "https://test"):  # the same host (https when TLS ends at a proxy)
        same = await client.post("/api/agents/memo/sessions", json={}, headers={**alice.headers, "Origin": origin})
        assert same.status_code == 201


async def test_cors_is_closed_by_default(client: httpx.AsyncClient) -> None:
    preflight = await client.options("/api/agents", headers={
        "Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in preflight.headers
    res = await client.get("/healthz", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in res.headers


async def test_cors_opens_only_to_configured_origins(auth_on: None, monkeypatch: pytest.MonkeyPatch,
                                                     memo_spec: Any) -> None:
    monkeypatch.setenv("GRAPHAGENTS_CORS_ORIGINS", "https://app.example, https://admin.example")
    reset_settings()
    app = create_app(get_settings())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        ok = await c.options("/api/agents/memo/sessions", headers={
            "Origin": "https://app.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type"})
        assert ok.status_code == 200 and ok.headers["access-control-allow-origin"] == "https://app.example"
        assert "access-control-allow-credentials" not in ok.headers  # bearer tokens, never cookies
        bad = await c.options("/api/agents", headers={"Origin": "https://evil.example",
                                                      "Access-Control-Request-Method": "GET"})
        assert "access-control-allow-origin" not in bad.headers
        user = User(*_key())
        res = await c.post("/api/agents/memo/sessions", json={}, headers={**user.headers, "Origin": "https://admin.example"})
        assert res.status_code == 201 and res.headers["access-control-allow-origin"] == "https://admin.example"


def _key() -> tuple[str, str]:
    key, record = KeyStore(database_for(get_settings().resolved_database_url)).create("cors-user")
    return record.user_id, key


async def test_with_auth_off_the_header_names_the_user_and_sign_in_says_so(data_dir: Any, memo_spec: Any) -> None:
    app = create_app(get_settings())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        assert (await c.get("/api/auth/me")).json() == {"user_id": "anonymous", "via": "anonymous", "auth": False}
        assert (await c.get("/api/auth/me", headers={"X-User-Id": "gil"})).json()["user_id"] == "gil"
        bad = await c.get("/api/auth/me", headers={"X-User-Id": "no spaces please"})
        assert bad.status_code == 422 and "bad user id" in bad.json()["error"]
        res = await c.post("/api/auth/login", json={"api_key": "ga_x"})
        assert res.status_code == 400 and "authentication is off" in res.json()["error"]
