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
        page.wait_for_selector("#status[data-done='true']", timeout=20_000)
        # the end of a dialogue that asked questions is said once, with the turn's cost
        assert page.inner_text("#status").startswith("대화가 끝났어요 · 모델 호출 0회")
        # an empty message is never sent; an over-long one shows a one-line error and the page lives on
        page.fill("#input", "x" * 5000)
        page.click("#send")
        page.wait_for_selector(".msg.error:has-text('422')", timeout=20_000)
        assert page.locator(".msg.user").count() == 3


def test_composite_agent_in_the_browser(browser: Any, tmp_path: Path) -> None:
    """Session options from the schema form, subgraph namespaces in the event log, both pending
    questions, then the artifacts rendered by kind."""
    with LiveServer(tmp_path) as server:
        page = browser.new_page()
        page.goto(f"{server.url}/?agent=trip")
        page.wait_for_selector("#session-id:has-text('session')")
        page.click("#options-panel summary")
        page.fill("#session-options input[name='traveller']", "Yuna")
        page.fill("#session-options input[name='budget']", "70")
        before = page.inner_text("#session-id")  # the old session shows until the new one is created
        page.click("#new-session")
        page.wait_for_function("old => document.querySelector('#session-id').textContent !== old", arg=before)
        page.fill("#input", "plan a trip")
        page.click("#send")
        page.wait_for_selector(".msg.agent:has-text('Where would you like to go?')", timeout=20_000)
        assert page.inner_text(".msg.agent ul.questions li.question") == "When do you travel?"
        research = page.locator("#events li[data-namespace='research']")
        assert research.count() >= 4 and research.first.locator(".ns").first.text_content() == "research"
        assert page.locator("#events li.tool_call[data-namespace='research']").count() == 1
        page.fill("#input", "Jeju")
        page.click("#send")
        page.wait_for_selector(".msg.agent >> nth=1 >> text=When do you travel?", timeout=20_000)
        page.fill("#input", "May")
        page.click("#send")
        page.wait_for_selector(".msg.agent:has-text('Yuna: Jeju, May. Take it slow.')", timeout=20_000)
        last = page.locator(".msg.agent").last
        # the reply text can stream in before the final event's artifacts are drawn
        last.locator(".artifact.table table.result tbody tr").first.wait_for(timeout=20_000)
        assert last.locator(".artifact.table table.result tbody tr").count() == 2
        canvas = last.locator(".artifact.chart canvas")
        assert canvas.count() == 1  # drawn by the bundled Chart.js, one bar per row
        assert canvas.evaluate("c => Chart.getChart(c).data.datasets[0].data.length") == 2
        assert "[1] research" in last.locator(".artifact.citation").inner_text()
        assert page.get_attribute("#status", "data-done") == "true"
        assert "단계" in page.inner_text("#status")
        # a bad option value is refused with a one-line error and no session is created
        page.fill("#session-options input[name='traveller']", "")
        page.fill("#session-options input[name='budget']", "-3")
        page.click("#new-session")
        page.wait_for_selector(".msg.error:has-text('422')", timeout=20_000)
        assert "budget" in page.inner_text(".msg.error")
