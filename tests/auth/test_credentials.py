"""Expired, revoked, malformed and wrongly signed credentials: 401 with one line, every time.

API keys from the key store; bearer JWTs signed with a shared secret (HS256) and with an RSA key
published by a JWKS endpoint (a real HTTP server on 127.0.0.1), found directly or through the
issuer's OpenID configuration."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import jwt
import pytest
from auth_helpers import User, reset_settings
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from graphagents.auth.keys import KeyStore
from graphagents.server import create_app
from graphagents.settings import get_settings
from graphagents.store import database_for

SECRET = "a-shared-secret-of-at-least-32-bytes-for-hs256!"
ISSUER_PATH = "/realms/test"


def keystore() -> KeyStore:
    return KeyStore(database_for(get_settings().resolved_database_url))


async def me(client: httpx.AsyncClient, headers: dict[str, str]) -> httpx.Response:
    return await client.get("/api/auth/me", headers=headers)


def assert_401(res: httpx.Response, words: str) -> None:
    assert res.status_code == 401, res.text
    error = res.json()["error"]
    assert isinstance(error, str) and "\n" not in error and words.lower() in error.lower(), error
    assert res.headers["www-authenticate"].startswith("Bearer")


def token(key: Any, alg: str = "HS256", **claims: Any) -> str:
    now = int(time.time())
    body = {"sub": "carol", "iat": now, "exp": now + 300, **claims}
    return jwt.encode({k: v for k, v in body.items() if v is not None}, key, algorithm=alg,
                      headers={"kid": "k1"} if alg.startswith("RS") else None)


# -- API keys ------------------------------------------------------------------------------------


async def test_a_valid_key_names_its_user(client: httpx.AsyncClient, alice: User) -> None:
    for headers in (alice.headers, {"X-API-Key": alice.key}, {"authorization": f"bearer {alice.key}"}):
        res = await me(client, headers)
        assert res.json() == {"user_id": alice.user_id, "via": "api_key", "auth": True}


async def test_revoked_expired_unknown_and_mistyped_keys_are_401(client: httpx.AsyncClient, alice: User) -> None:
    store = keystore()
    revoked, record = store.create(alice.user_id)
    assert (await me(client, {"Authorization": f"Bearer {revoked}"})).status_code == 200
    store.revoke(record.key_id)
    expired, _ = store.create(alice.user_id, expires_in=1)
    time.sleep(1.1)
    key_id, secret = alice.key[3:15], alice.key[16:]
    cases = {
        "revoked": revoked,
        "expired": expired,
        "wrong secret": f"ga_{key_id}_{'A' * 43}",
        "unknown id": f"ga_000000000000_{secret}",
        "truncated": alice.key[:-1],
        "extended": alice.key + "x",
        "garbage": "ga_!!!",
    }
    for name, key in cases.items():
        res = await me(client, {"Authorization": f"Bearer {key}"})
        assert_401(res, "invalid API key")
        assert key not in res.text and secret not in res.text, name
    assert (await me(client, alice.headers)).status_code == 200


@pytest.mark.parametrize("header", ["Basic YWxpY2U6cHc=", "Bearer", "Bearer    ", "Token abc", "ga_only"])
async def test_malformed_authorization_headers_are_401(client: httpx.AsyncClient, header: str) -> None:
    assert_401(await me(client, {"Authorization": header}), "")


async def test_no_credentials_is_401_on_every_api_route_but_sign_in(client: httpx.AsyncClient) -> None:
    for method, path in [("GET", "/api/agents"), ("POST", "/api/agents/memo/sessions"),
                         ("GET", "/api/agents/memo/sessions/x"), ("GET", "/api/me/data"),
                         ("DELETE", "/api/me/data"), ("POST", "/api/auth/logout")]:
        assert_401(await client.request(method, path), "authentication required")
    assert (await client.get("/healthz")).status_code == 200
    assert (await client.get("/")).status_code == 200


async def test_a_jwt_is_refused_when_jwts_are_not_configured(client: httpx.AsyncClient) -> None:
    assert_401(await me(client, {"Authorization": f"Bearer {token(SECRET)}"}), "bearer JWTs are not configured")


# -- JWTs with a shared secret -----------------------------------------------------------------


@pytest.fixture
async def hs_client(auth_on: None, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[httpx.AsyncClient]:
    monkeypatch.setenv("GRAPHAGENTS_JWT_SECRET", SECRET)
    monkeypatch.setenv("GRAPHAGENTS_JWT_ISSUER", "https://id.example")
    monkeypatch.setenv("GRAPHAGENTS_JWT_AUDIENCE", "graphagents")
    reset_settings()
    app = create_app(get_settings())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


GOOD = {"iss": "https://id.example", "aud": "graphagents"}


async def test_a_valid_hs256_token_names_its_user(hs_client: httpx.AsyncClient) -> None:
    res = await me(hs_client, {"Authorization": f"Bearer {token(SECRET, **GOOD)}"})
    assert res.json() == {"user_id": "carol", "via": "jwt", "auth": True}


@pytest.mark.parametrize(("case", "make", "words"), [
    ("expired", lambda: token(SECRET, **GOOD, exp=int(time.time()) - 120), "expired"),
    ("wrong secret", lambda: token("another-secret-that-is-also-32-bytes-long!!", **GOOD), "signature"),
    ("wrong issuer", lambda: token(SECRET, iss="https://evil.example", aud="graphagents"), "issuer"),
    ("wrong audience", lambda: token(SECRET, iss="https://id.example", aud="other"), "audience"),
    ("no exp", lambda: token(SECRET, **GOOD, exp=None), "exp"),
    ("no user claim", lambda: token(SECRET, **GOOD, sub=None), "sub"),
    ("bad user id", lambda: token(SECRET, **GOOD, sub="has spaces"), "user id"),
    ("alg none", lambda: jwt.encode({"sub": "carol", **GOOD, "exp": int(time.time()) + 60}, None, algorithm="none"),
     "algorithm"),
    ("not a jwt", lambda: "abc.def.ghi", "invalid token"),
    ("one segment", lambda: "eyJhbGciOiJIUzI1NiJ9", "invalid token"),
])
async def test_bad_hs256_tokens_are_401_with_one_line(hs_client: httpx.AsyncClient, case: str, make: Any,
                                                      words: str) -> None:
    assert_401(await me(hs_client, {"Authorization": f"Bearer {make()}"}), words)


async def test_api_keys_still_work_beside_jwts(hs_client: httpx.AsyncClient, alice: User) -> None:
    assert (await me(hs_client, alice.headers)).json()["user_id"] == alice.user_id


# -- JWTs from a JWKS endpoint ---------------------------------------------------------------------


class _Idp(http.server.BaseHTTPRequestHandler):
    documents: dict[str, bytes] = {}

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        body = self.documents.get(self.path)
        self.send_response(200 if body is not None else 404)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(body or b"{}")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def idp() -> Iterator[dict[str, Any]]:
    """An identity provider on 127.0.0.1: an OpenID configuration and a JWKS with one RSA key."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(RSAAlgorithm.to_jwk(private.public_key()))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Idp)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    _Idp.documents = {
        "/jwks.json": json.dumps({"keys": [{**jwk, "kid": "k1", "use": "sig", "alg": "RS256"}]}).encode(),
        f"{ISSUER_PATH}/.well-known/openid-configuration": json.dumps({"jwks_uri": f"{base}/jwks.json"}).encode(),
    }
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield {"private": private, "base": base, "issuer": base + ISSUER_PATH}
    server.shutdown()


@pytest.fixture(params=["jwks_url", "issuer_discovery"])
async def rs_client(request: pytest.FixtureRequest, idp: dict[str, Any], auth_on: None, memo_spec: Any,
                    monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[httpx.AsyncClient]:
    monkeypatch.setenv("GRAPHAGENTS_JWT_ISSUER", idp["issuer"])
    monkeypatch.setenv("GRAPHAGENTS_JWT_USER_CLAIM", "preferred_username")
    if request.param == "jwks_url":
        monkeypatch.setenv("GRAPHAGENTS_JWT_JWKS_URL", idp["base"] + "/jwks.json")
    reset_settings()
    app = create_app(get_settings())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


async def test_rs256_tokens_from_the_identity_provider(rs_client: httpx.AsyncClient, idp: dict[str, Any]) -> None:
    def rs(**claims: Any) -> dict[str, str]:
        body = {"iss": idp["issuer"], "preferred_username": "dave@example.com", **claims}
        return {"Authorization": f"Bearer {token(idp['private'], 'RS256', **body)}"}

    assert (await me(rs_client, rs())).json() == {"user_id": "dave@example.com", "via": "jwt", "auth": True}
    sid = (await rs_client.post("/api/agents/memo/sessions", json={}, headers=rs())).json()["session_id"]
    assert (await rs_client.get(f"/api/agents/memo/sessions/{sid}", headers=rs())).status_code == 200
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    forged = token(other, "RS256", iss=idp["issuer"], preferred_username="dave@example.com")
    assert_401(await me(rs_client, {"Authorization": f"Bearer {forged}"}), "signature")
    assert_401(await me(rs_client, rs(exp=int(time.time()) - 120)), "expired")
    assert_401(await me(rs_client, rs(iss="https://elsewhere")), "issuer")
    assert_401(await me(rs_client, rs(preferred_username=None)), "preferred_username")
    hs = token(SECRET, iss=idp["issuer"], preferred_username="dave@example.com")  # HS256 with a guessed secret
    assert_401(await me(rs_client, {"Authorization": f"Bearer {hs}"}), "algorithm")
    unknown_kid = jwt.encode({"iss": idp["issuer"], "preferred_username": "x", "exp": int(time.time()) + 60},
                             idp["private"], algorithm="RS256", headers={"kid": "nope"})
    assert_401(await me(rs_client, {"Authorization": f"Bearer {unknown_kid}"}), "signing key")
