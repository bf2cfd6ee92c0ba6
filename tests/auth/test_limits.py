"""Per-user limits: requests and model tokens per minute, 429 with Retry-After; one count per user
shared by every server process when Redis holds it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from auth_helpers import User, new_user, reset_settings
from sse_client import parse_sse

from graphagents.auth.ratelimit import UserLimiter
from graphagents.server import create_app
from graphagents.settings import get_settings


async def app_client(**agent_options: Any) -> httpx.AsyncClient:
    app = create_app(get_settings(), agent_options)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")


def assert_429(res: httpx.Response, what: str) -> int:
    assert res.status_code == 429, res.text
    assert what in res.json()["error"] and "\n" not in res.json()["error"]
    retry = int(res.headers["retry-after"])
    assert 1 <= retry <= 60
    return retry


@pytest.fixture
async def limited(auth_on: None, memo_spec: Any, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[httpx.AsyncClient]:
    monkeypatch.setenv("GRAPHAGENTS_RATE_REQUESTS_PER_MINUTE", "5")
    monkeypatch.setenv("GRAPHAGENTS_RATE_TOKENS_PER_MINUTE", "20")
    reset_settings()
    async with await app_client(memo={"reply_words": 10}) as c:
        yield c


async def test_requests_per_minute_per_user(limited: httpx.AsyncClient) -> None:
    alice, bob = new_user("alice"), new_user("bob")
    for _ in range(5):
        assert (await limited.get("/api/auth/me", headers=alice.headers)).status_code == 200
    assert_429(await limited.get("/api/agents", headers=alice.headers), "too many requests")
    assert (await limited.get("/api/auth/me", headers=bob.headers)).status_code == 200  # bob has his own count
    assert (await limited.get("/healthz")).status_code == 200  # not an API call


async def test_model_tokens_per_minute_per_user(limited: httpx.AsyncClient) -> None:
    alice, bob = new_user("alice"), new_user("bob")

    async def turn(user: User, sid: str) -> httpx.Response:
        return await limited.post(f"/api/agents/memo/sessions/{sid}/messages", json={"text": "hi"},
                                  headers=user.headers)

    sid = (await limited.post("/api/agents/memo/sessions", json={}, headers=alice.headers)).json()["session_id"]
    first = parse_sse((await turn(alice, sid)).text)[-1][1]
    used = first["usage"]["input_tokens"] + first["usage"]["output_tokens"]
    assert first["usage"]["output_tokens"] == 10 and 10 < used < 20
    assert (await turn(alice, sid)).status_code == 200  # still under the limit when it starts; spent after
    assert_429(await turn(alice, sid), "too many model tokens")
    bob_sid = (await limited.post("/api/agents/memo/sessions", json={}, headers=bob.headers)).json()["session_id"]
    assert (await turn(bob, bob_sid)).status_code == 200


async def test_sign_in_attempts_are_limited_per_client(auth_on: None) -> None:
    async with await app_client() as c:
        codes = [(await c.post("/api/auth/login", json={"api_key": f"ga_{i:012x}_{'x' * 43}"})).status_code
                 for i in range(21)]
    assert codes[:20] == [401] * 20
    assert codes[20] == 429


async def test_limits_are_off_by_default_with_auth_off(data_dir: Any, memo_spec: Any) -> None:
    async with await app_client() as c:
        codes = {(await c.get("/api/agents")).status_code for _ in range(320)}
    assert codes == {200}


async def test_a_redis_count_is_shared_by_two_processes(redis_url: str) -> None:
    """Two limiters (as two server processes would hold) on one Redis count one user together."""
    prefix = f"graphagents-test:{uuid.uuid4().hex[:8]}"
    one = UserLimiter(redis_url, requests=3, tokens=100, prefix=prefix)
    two = UserLimiter(redis_url, requests=3, tokens=100, prefix=prefix)
    try:
        results = [await lim.hit_request("erin") is None for lim in (one, two, one, two)]
        assert results == [True, True, True, False]
        await one.add_tokens("erin", 250)
        refused = await two.check_tokens("erin")
        assert refused is not None and refused.what == "model tokens" and 1 <= refused.retry_after <= 60
        assert await two.check_tokens("frank") is None
    finally:
        import redis

        client = redis.Redis.from_url(redis_url)
        for key in client.scan_iter(match=f"{prefix}*"):
            client.delete(key)
