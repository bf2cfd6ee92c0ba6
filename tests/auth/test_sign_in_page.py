"""The page's sign-in in real headless Chromium: an API key for an http-only cookie, CSRF, sign-out,
and another user's browser that cannot reach the first user's session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from auth_helpers import new_user, reset_settings
from live_server import LiveServer

pytestmark = pytest.mark.browser


def test_sign_in_chat_reload_and_sign_out(browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("GRAPHAGENTS_DATA_DIR", str(data))
    monkeypatch.setenv("GRAPHAGENTS_AUTH", "true")
    reset_settings()
    alice, bob = new_user("alice"), new_user("bob")
    reset_settings()
    with LiveServer(data) as server:
        context = browser.new_context()
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{server.url}/?agent=example")
        # the first API call of the page is refused: the sign-in form opens
        page.wait_for_selector("#auth-form", timeout=20_000)
        assert page.get_attribute("#auth-key", "type") == "password"
        assert "Sign in with an API key" in page.inner_text("#auth-error")
        page.fill("#auth-key", alice.key[:-4] + "AAAA")
        page.click("#auth-submit")
        page.wait_for_selector("#auth-error:has-text('invalid API key')", timeout=20_000)
        page.fill("#auth-key", alice.key)
        page.press("#auth-key", "Enter")
        page.wait_for_selector(f"#auth-user:has-text('Signed in as {alice.user_id}')", timeout=20_000)
        # the page carries on where it stopped: agents load, a session starts, the chat works
        page.wait_for_selector("#session-id:has-text('session')", timeout=20_000)
        page.fill("#input", "name:Mina")
        page.click("#send")
        page.wait_for_selector(".msg.agent:has-text('Hello Mina! Favourite colour?')", timeout=20_000)
        session_id = page.inner_text("#session-id").split()[-1]
        # the key is kept nowhere on the page; the cookie is out of scripts' reach
        stored = page.evaluate("() => [document.cookie, JSON.stringify(localStorage), JSON.stringify(sessionStorage),"
                               " document.documentElement.outerHTML].join(' ')")
        assert alice.key not in stored and "ga_session" not in stored
        cookie = next(c for c in context.cookies() if c["name"] == "ga_session")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        # a state-changing request without the CSRF token (not through the page's fetch) is refused
        status = page.evaluate("""() => new Promise((resolve) => {
            const x = new XMLHttpRequest(); x.open('POST', '/api/agents/example/sessions');
            x.setRequestHeader('content-type', 'application/json'); x.onload = () => resolve(x.status); x.send('{}');
        })""")
        assert status == 403
        # a reload keeps the sign-in (the cookie), without the form
        page.reload()
        page.wait_for_selector(f"#auth-user:has-text('{alice.user_id}')", timeout=20_000)
        page.wait_for_selector("#session-id:has-text('session')", timeout=20_000)
        assert page.locator("#auth-form").count() == 0

        # another user, in another browser profile, cannot reach alice's session
        other = browser.new_context().new_page()
        other.goto(f"{server.url}/?agent=example")
        other.wait_for_selector("#auth-form", timeout=20_000)
        other.fill("#auth-key", bob.key)
        other.click("#auth-submit")
        other.wait_for_selector(f"#auth-user:has-text('{bob.user_id}')", timeout=20_000)
        probe = other.evaluate(f"""async () => {{
            const read = await fetch('/api/agents/example/sessions/{session_id}');
            const post = await fetch('/api/agents/example/sessions/{session_id}/messages', {{
                method: 'POST', headers: {{'content-type': 'application/json'}},
                body: JSON.stringify({{text: 'teal'}})}});
            return [read.status, post.status, await read.text()];
        }}""")
        assert probe[:2] == [404, 404] and "Mina" not in probe[2]

        # signing out ends the sign-in: the form is back after the reload
        page.click("#auth-sign-out")
        page.wait_for_selector("#auth-form", timeout=20_000)
        assert not [c for c in context.cookies() if c["name"] == "ga_session"]
        assert errors == []
