"""The web page in real headless Chromium (Debian's), driven by Playwright."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from live_server import LiveServer

pytestmark = pytest.mark.browser


def test_chat_in_the_browser(browser: Any, tmp_path: Path) -> None:
    with LiveServer(tmp_path) as server:
        page = browser.new_page()
        page.goto(f"{server.url}/?agent=example")
        page.wait_for_selector("#session-id:has-text('session')")
        page.fill("#input", "name:Mina")
        page.click("#send")
        page.wait_for_selector(".msg.agent:has-text('Hello Mina! Favourite colour?')", timeout=20_000)
        assert page.locator("#events li.step").count() >= 1
        assert page.locator("#events li.state_update").count() == 1
        assert "Mina" in page.inner_text("#state")
        page.fill("#input", "teal")
        page.press("#input", "Enter")
        page.wait_for_selector(".msg.agent:has-text('Mina likes teal.')", timeout=20_000)
        assert page.inner_text("#status") == "conversation finished"
        # an empty message is never sent; an over-long one shows a one-line error and the page lives on
        page.fill("#input", "x" * 5000)
        page.click("#send")
        page.wait_for_selector(".msg.error:has-text('422')", timeout=20_000)
        assert page.locator(".msg.user").count() == 3
