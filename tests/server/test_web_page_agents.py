"""The built-in agents through the real server and the web page, in headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from live_server import LiveServer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(tmp_path_factory.mktemp("agents"), builtin=True) as live:
        yield live


def test_slotfill_shows_collected_slots_live(browser: Any, server: LiveServer) -> None:
    page = browser.new_page()
    page.goto(f"{server.url}/?agent=slotfill")
    page.wait_for_selector("#session-id:has-text('session')")
    page.fill("#input", "안녕하세요")
    page.click("#send")
    page.wait_for_selector(".msg.agent:has-text('이 정보가 맞으신가요')", timeout=120_000)
    assert page.locator("#state .current-stage[data-stage='confirm_basic_info']").count() == 1
    page.fill("#input", "번호가 틀렸어요 010-9876-5432")
    page.click("#send")
    page.wait_for_selector("#state li.form-field[data-slot='customer_phone'] >> text=010-9876-5432", timeout=120_000)
    assert page.locator("#events li.state_update").count() >= 2


def test_text2sql_shows_tools_decisions_and_the_result(browser: Any, server: LiveServer) -> None:
    page = browser.new_page()
    page.goto(f"{server.url}/?agent=text2sql")
    page.wait_for_selector("#session-id:has-text('session')")
    page.fill("#input", "2024년 월별 주문 건수")
    page.click("#send")
    page.wait_for_selector(".msg.agent table.result", timeout=120_000)
    assert page.locator(".msg.agent table.result tbody tr").count() == 12
    assert "SELECT" in page.inner_text(".msg.agent pre.sql")
    calls = page.locator("#events li.tool_call")
    assert calls.count() >= 3
    assert "explain" in " ".join(calls.all_text_contents())  # inside collapsed timeline entries
    decisions = " ".join(page.locator("#events li.decision").all_text_contents())
    assert "query_cache" in decisions and "explain_risk" in decisions
