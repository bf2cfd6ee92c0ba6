"""The supervisor on the web page, in headless Chromium: the plan, every decision and each team's
output appear in the event list while the turn runs; the answer carries its artifacts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from server.live_server import LiveServer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(tmp_path_factory.mktemp("supervisor"), builtin=True) as live:
        yield live


def test_plan_decisions_and_team_outputs_are_shown(browser: Any, server: LiveServer) -> None:
    page = browser.new_page()
    page.goto(f"{server.url}/?agent=supervisor")
    page.wait_for_selector("#session-id:has-text('session')", timeout=120_000)  # the first session loads the agent
    page.fill("#input", "강남구 30평대 아파트 매매 시세 알려주고 대출 가능 금액과 계약서 주의사항 정리해줘")
    page.click("#send")
    page.wait_for_selector(".msg.agent .artifact.document", timeout=180_000)
    # the trace folds each step: its items are read as text, not as rendered (collapsed) boxes
    decisions = " ".join(page.locator("#events li.decision").all_text_contents())
    assert "plan: search → analysis → document" in decisions
    assert "orchestration: continue" in decisions and "tool_selection" in decisions
    updates = " ".join(page.locator("#events li.state_update").all_text_contents())
    assert "team_result" in updates and "analysis_team" in updates and "document_team" in updates  # each team's own
    answer = page.inner_text(".msg.agent >> nth=-1")
    assert "공인중개사법 제26조" in answer and "합성(가상)" in answer
    assert page.locator(".msg.agent .artifact.citation").count() >= 3
    assert page.locator(".msg.agent .artifact.sql").count() == 1
