"""Two users, every route, each other's ids (real, guessed, malformed): nothing of one reaches the other.

The routes come from the app itself: a route that is not classified in ``ROUTES`` fails the test, so
a new endpoint cannot escape the check, and every route with a path parameter is probed with the
other user's ids."""

from __future__ import annotations

import itertools
import uuid
from typing import Any

import httpx
import pytest
from auth_helpers import User
from fastapi.routing import APIRoute
from sse_client import parse_sse
from starlette.routing import Mount, Route

ROUTES = {
    ("GET", "/healthz"): "public: no user data",
    ("GET", "/readyz"): "public: readiness, no user data",
    ("GET", "/"): "public: the page",
    ("MOUNT", "/static"): "public: static files",
    ("GET", "/openapi.json"): "public: the schema",
    ("GET", "/docs"): "public: the schema viewer",
    ("GET", "/docs/oauth2-redirect"): "public: the schema viewer",
    ("GET", "/redoc"): "public: the schema viewer",
    ("GET", "/api/agents"): "catalog: the same for every user",
    ("POST", "/api/agents/{name}/sessions"): "creates a session owned by the caller",
    ("GET", "/api/agents/{name}/sessions/{session_id}"): "owner only",
    ("POST", "/api/agents/{name}/sessions/{session_id}/messages"): "owner only",
    ("POST", "/api/auth/login"): "public: signing in",
    ("POST", "/api/auth/logout"): "the caller's own sign-in",
    ("GET", "/api/auth/me"): "the caller's own identity",
    ("GET", "/api/me/data"): "the caller's own data",
    ("DELETE", "/api/me/data"): "the caller's own data",
    ("POST", "/api/agents/tableqa/uploads"): "creates an upload owned by the caller",
    ("GET", "/api/agents/tableqa/uploads"): "the caller's own uploads",
    ("DELETE", "/api/agents/tableqa/uploads/{upload_id}"): "owner only",
    ("GET", "/favicon.ico"): "public: the page's icon",
    ("GET", "/views/{name}.js"): "public: an agent's page view module (code, the same for everyone)",
    ("GET", "/api/agents/{name}/view"): "catalog: the same for every user",
    ("GET", "/api/agents/{name}/sessions"): "the caller's own sessions only",
    ("PATCH", "/api/agents/{name}/sessions/{session_id}"): "owner only",
    ("DELETE", "/api/agents/{name}/sessions/{session_id}"): "owner only",
    ("GET", "/api/agents/{name}/sessions/{session_id}/transcript"): "owner only",
    ("GET", "/api/agents/rag/profile"): "the caller's own profile",
    ("DELETE", "/api/agents/rag/profile"): "the caller's own profile",
}

GUESSED = ["1", "0", "0000000000000000", "admin", "anonymous", "ffffffffffffffff", "session"]
MALFORMED = ["..", "a b", "%00", "x" * 65, "ａｂｃ", "' OR 1=1 --", "%2e%2e%2fetc", "\u0663\u0664", "null", "-"]
BODIES: list[Any] = [None, {}, {"text": "probe"}, {"session_id": "probe"}, {"api_key": "ga_probe"}]


def app_routes(app: Any) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for route in app.routes:
        if isinstance(route, Mount):
            found.add(("MOUNT", route.path))
        elif isinstance(route, APIRoute | Route):
            found.update((m, route.path) for m in (route.methods or ()) if m != "HEAD")
    return found


async def create(client: httpx.AsyncClient, user: User, agent: str, **body: Any) -> str:
    res = await client.post(f"/api/agents/{agent}/sessions", json=body, headers=user.headers)
    assert res.status_code == 201, res.text
    return str(res.json()["session_id"])


async def say(client: httpx.AsyncClient, user: User, agent: str, sid: str, text: str) -> list[tuple[str, Any]]:
    res = await client.post(f"/api/agents/{agent}/sessions/{sid}/messages", json={"text": text}, headers=user.headers)
    assert res.status_code == 200, res.text
    return parse_sse(res.text)


@pytest.fixture
async def victim(client: httpx.AsyncClient, alice: User) -> dict[str, Any]:
    """Alice's data in three agents: text, a customer profile with a name and phone, state."""
    secret = f"ALICE-SECRET-{uuid.uuid4().hex[:8]}"
    phone = "010-7319-2468"
    name = "비밀희"
    ids = {
        "memo": await create(client, alice, "memo"),
        "slotfill": await create(client, alice, "slotfill",
                                 options={"profile": {"customer_name": name, "customer_phone": phone}}),
        "example": await create(client, alice, "example"),
    }
    await say(client, alice, "memo", ids["memo"], f"my note {secret}")
    await say(client, alice, "slotfill", ids["slotfill"], "안녕하세요")
    await say(client, alice, "example", ids["example"], f"name:{secret}")
    res = await client.post("/api/agents/tableqa/uploads", files={"file": ("t.csv", f"{secret},x\n1,2\n".encode())},
                            headers=alice.headers)
    assert res.status_code == 201, res.text
    return {"ids": ids, "upload": res.json()["id"], "markers": [secret, phone, name, "7319", alice.user_id, alice.key]}


def leaked(res: httpx.Response, markers: list[str], sent: str) -> list[str]:
    """Markers in the response that the attacker did not send himself."""
    return [m for m in markers if m in res.text and m not in sent]


async def test_every_route_is_classified(client: httpx.AsyncClient) -> None:
    app = client._transport.app  # type: ignore[attr-defined]
    unknown = app_routes(app) - set(ROUTES)
    assert not unknown, f"classify these routes in ROUTES and make sure the probes cover them: {sorted(unknown)}"


async def test_two_users_every_route_each_others_ids_zero_leaks(
    client: httpx.AsyncClient, alice: User, bob: User, victim: dict[str, Any]
) -> None:
    app = client._transport.app  # type: ignore[attr-defined]
    agents = ["memo", "slotfill", "example", "trip", "no-such-agent"]
    alice_ids = list(victim["ids"].values())
    values = {"name": agents, "session_id": alice_ids + GUESSED + MALFORMED,
              "upload_id": [victim["upload"], *GUESSED, *MALFORMED]}
    await create(client, bob, "memo")  # bob has data of his own too
    as_bob_claiming_alice = {**bob.headers, "X-User-Id": alice.user_id}
    anonymous_claiming_alice = {"X-User-Id": alice.user_id}
    probes = leaks = 0
    failures: list[str] = []
    for method, path in sorted(app_routes(app)):
        if method == "MOUNT" or (method, path) == ("DELETE", "/api/me/data"):
            continue  # static files hold no user data; bob's own erasure is checked below
        params = [p.strip("{}") for p in path.split("/") if p.startswith("{")]
        unknown = [p for p in params if p not in values]
        assert not unknown, f"{method} {path}: give the probes values for {unknown}"
        for combo in itertools.product(*(values[p] for p in params)):
            url = path
            for p, v in zip(params, combo, strict=True):
                url = url.replace("{" + p + "}", v)
            for headers, body in itertools.product((bob.headers, as_bob_claiming_alice, anonymous_claiming_alice),
                                                   BODIES if method in {"POST", "PUT", "PATCH"} else [None]):
                res = await client.request(method, url, json=body, headers=headers)
                probes += 1
                sent = url + repr(body) + repr(headers)
                found = leaked(res, victim["markers"], sent)
                if found:
                    leaks += 1
                    failures.append(f"{method} {url} {body!r}: {res.status_code} leaks {found}")
                if res.status_code >= 500:
                    failures.append(f"{method} {url} {body!r}: {res.status_code} {res.text[:120]}")
                if ("session_id" in params or "upload_id" in params) and res.status_code < 400:
                    failures.append(f"{method} {url} as someone else: {res.status_code}")
                if headers is anonymous_claiming_alice and (method, path) not in {("POST", "/api/auth/login")} \
                        and path.startswith("/api/") and res.status_code != 401:
                    failures.append(f"{method} {url} without credentials: {res.status_code}")
    print(f"{probes} probes, {leaks} leaks")
    assert probes > 1000
    assert (leaks, failures) == (0, []), "\n".join(failures)
    # and Alice's sessions are untouched by all of this
    ids = victim["ids"]
    state = (await client.get(f"/api/agents/memo/sessions/{ids['memo']}", headers=alice.headers)).json()
    assert state["state"]["notes"] == [f"my note {victim['markers'][0]}"]
    uploads = (await client.get("/api/agents/tableqa/uploads", headers=alice.headers)).json()
    assert [u["id"] for u in uploads] == [victim["upload"]]
    frames = await say(client, alice, "example", ids["example"], "teal")
    assert frames[-1][1]["text"] == f"{victim['markers'][0]} likes teal."


async def test_listing_and_export_show_only_ones_own(
    client: httpx.AsyncClient, alice: User, bob: User, victim: dict[str, Any]
) -> None:
    bob_sid = await create(client, bob, "memo")
    await say(client, bob, "memo", bob_sid, "bob's own words")
    mine = (await client.get("/api/me/data", headers=bob.headers)).json()
    assert [s["session_id"] for s in mine["sessions"]] == [bob_sid]
    assert mine["data"]["memo"]["notes"] == [{"session_id": bob_sid, "text": "bob's own words"}]
    assert not [m for m in victim["markers"] if m in str(mine)]
    hers = (await client.get("/api/me/data", headers=alice.headers)).json()
    assert {s["session_id"] for s in hers["sessions"]} == set(victim["ids"].values())
    # bob erasing his data leaves alice's whole
    assert (await client.delete("/api/me/data", headers=bob.headers)).json()["deleted"]["sessions"] == 1
    again = (await client.get("/api/me/data", headers=alice.headers)).json()
    assert again["sessions"] == hers["sessions"] and again["data"] == hers["data"]


async def test_an_existing_id_cannot_be_claimed_by_creating_it(
    client: httpx.AsyncClient, alice: User, bob: User, victim: dict[str, Any]
) -> None:
    sid = victim["ids"]["memo"]
    res = await client.post("/api/agents/memo/sessions", json={"session_id": sid}, headers=bob.headers)
    assert res.status_code == 404 and victim["markers"][0] not in res.text
