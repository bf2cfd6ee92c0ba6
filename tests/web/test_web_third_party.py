"""The page gives a third-party agent (tests/thirdparty/notes_agent, registered by the live server)
what it gives the built-in five: its page view module draws its state, adds its own control under
the description (through its own route), adds a session option and shapes its reply text; its
artifacts render by kind; a reopened conversation comes back with its messages and last table."""

from __future__ import annotations

from typing import Any

import pytest
from test_web_page_ui import open_agent, say, watch

pytestmark = pytest.mark.browser


def test_the_page_loads_the_agents_own_view_module(browser: Any, server: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = watch(page)
    open_agent(page, server.url, "notes")
    page.wait_for_selector("#agent-extra #notes-add", timeout=20_000)  # the module's intro control
    page.wait_for_selector("#notes-count:has-text('0개 저장됨')")
    page.fill("#notes-text", "빵 사기")
    page.click("#notes-add button")  # POST /api/agents/notes/notes, the agent's own route
    page.wait_for_selector("#notes-count:has-text('1개 저장됨')")

    say(page, "우유 사기")
    reply = page.locator(".msg.agent").last.locator(".reply-text").text_content()
    assert reply == "✎ 메모 2개: 우유 사기"  # the module's replyText
    view = page.locator("#state .notes-view")
    assert view.locator("li.note").all_text_contents() == ["빵 사기", "우유 사기"]  # the module's renderState
    assert "태그 page" in view.inner_text()  # the module's sessionOptions reached the session

    say(page, "shout: hello there")
    table = page.locator(".msg.agent").last.locator(".artifact.table")  # the sub-agent's artifact, by kind
    assert table.locator("thead th").all_text_contents() == ["word", "length"]
    assert table.locator("tbody tr").count() == 2

    page.reload()  # the conversation comes back: its messages (read with user_text) and its last table
    page.wait_for_selector(".msg.user:has-text('shout: hello there')", timeout=20_000)
    assert page.locator(".msg.user").all_text_contents() == ["우유 사기", "shout: hello there"]
    assert page.locator(".msg.agent").last.locator(".artifact.table tbody tr").count() == 2
    page.wait_for_selector("#session-list .session-title:has-text('우유 사기')")
    assert errors == []
