"""Logs carry no message text, profile values or keys unless content logging is on: ours at any
level, everyone's (LangGraph, uvicorn, httpx ...) at INFO and above. Some libraries log whole
payloads at DEBUG (sse-starlette logs every SSE chunk): never run them at DEBUG in production."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import httpx
import pytest
from auth_helpers import User, new_user, reset_settings

from graphagents.privacy import loggable, set_log_content
from graphagents.server import create_app
from graphagents.settings import get_settings

NAME, PHONE, NEW_PHONE = "김비밀", "010-4821-7356", "010-6937-2184"


async def conversation(client: httpx.AsyncClient, user: User, secret: str) -> None:
    res = await client.post("/api/agents/slotfill/sessions", headers=user.headers,
                            json={"options": {"profile": {"customer_name": NAME, "customer_phone": PHONE}}})
    sid = res.json()["session_id"]
    for text in ["안녕하세요", f"번호가 틀렸어요 {NEW_PHONE}", "네", "네", "아니요", "네", f"메모 {secret}"]:
        await client.post(f"/api/agents/slotfill/sessions/{sid}/messages", json={"text": text}, headers=user.headers)
    memo = (await client.post("/api/agents/memo/sessions", json={}, headers=user.headers)).json()["session_id"]
    await client.post(f"/api/agents/memo/sessions/{memo}/messages", json={"text": secret}, headers=user.headers)
    await client.post("/api/auth/login", json={"api_key": user.key[:-3] + "abc"})
    await client.get("/api/me/data", headers={"Authorization": f"Bearer {user.key}x"})
    await client.get("/api/me/data", headers=user.headers)


async def logged(caplog: pytest.LogCaptureFixture, memo_spec: Any) -> tuple[str, User, str]:
    user, secret = new_user("logs"), f"SECRET-{uuid.uuid4().hex[:8]}"
    app = create_app(get_settings())
    caplog.clear()
    with caplog.at_level(logging.DEBUG):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
            await conversation(c, user, secret)
    records = [r for r in caplog.records if r.levelno >= logging.INFO or r.name.startswith("graphagents")]
    text = "\n".join(r.getMessage() + (r.exc_text or "") for r in records)
    return text, user, secret


@pytest.mark.parametrize("content", [False, True])
async def test_logs_hold_no_content_unless_asked(auth_on: None, memo_spec: Any, caplog: pytest.LogCaptureFixture,
                                                 monkeypatch: pytest.MonkeyPatch, content: bool) -> None:
    if content:
        monkeypatch.setenv("GRAPHAGENTS_LOG_CONTENT", "true")
        reset_settings()
    text, user, secret = await logged(caplog, memo_spec)
    assert "application SF-" in text and "slot customer_phone set to" in text  # the agent did log its steps
    logged_by_slotfill = [NAME, NEW_PHONE[-4:], "번호가 틀렸어요"]  # a message, a slot value, a profile value
    if content:
        assert [w for w in logged_by_slotfill if w in text] == logged_by_slotfill
    else:
        assert [w for w in [secret, *logged_by_slotfill] if w in text] == []
        assert "<redacted: " in text
    key_secret = user.key[16:]
    assert key_secret[:20] not in text  # keys: never, whatever the setting


def test_loggable_formats_lazily_and_follows_the_switch() -> None:
    value = loggable("안녕하세요")
    try:
        set_log_content(False)
        assert (str(value), repr(value)) == ("<redacted: 5 chars>", "<redacted: 5 chars>")
        assert str(loggable({"a": 1})) == "<redacted: 1 items>" and str(loggable(3)) == "<redacted>"
        set_log_content(True)
        assert (str(value), repr(value)) == ("안녕하세요", "'안녕하세요'")
    finally:
        set_log_content(None)
