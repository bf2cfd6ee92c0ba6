"""The page on the real-model path (issue 24): a live server whose model is the scripted
OpenAI-compatible server. The responder's answer appears in the bubble while it streams, and a
fallback (the orchestrator's provider returns 500) is shown as a degraded notice and in the trace,
without the provider's text."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphagents.testing.openai_server import OpenAIServer, Reply

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_web_page_ui import open_agent, watch  # noqa: E402

pytestmark = pytest.mark.browser

ANSWER = ("송파구 아파트 매매 시세는 실거래 데이터로 정리했습니다. 대출 가능 금액은 LTV와 DSR 규제로 따져 보았으며, "
          "자세한 수치는 아래 표와 근거를 확인하세요.")
PLAN = json.dumps({"intent": {"intent_type": "market_analysis", "confidence": 0.9, "entities": {}},
                   "teams": [{"team": "search", "reason": "시세", "scopes": ["market"]},
                             {"team": "analysis", "reason": "통계", "uses": ["search"]}],
                   "strategy": "sequential"}, ensure_ascii=False)
SECRET = "upstream exploded secret-4711"


def script(body: dict[str, Any]) -> Reply | str:
    first = str(body["messages"][0].get("content") or "")
    if first.startswith("당신은 부동산 상담 서비스의 계획 담당자"):
        return PLAN
    if first.startswith("당신은 실행 오케스트레이터"):
        return Reply(status=500, text=SECRET)
    if first.startswith("당신은 부동산 상담 도우미"):
        return Reply(text=ANSWER, chunk_chars=6, chunk_delay=0.12)
    return "{}"


@pytest.fixture(scope="module")
def model_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from live_server import LiveServer

    with OpenAIServer(script) as provider:
        patch = pytest.MonkeyPatch()
        patch.setenv("GRAPHAGENTS_LLM", provider.model_spec)
        patch.setenv("GRAPHAGENTS_MODELS", json.dumps({"sql": "offline"}))
        patch.setenv("GRAPHAGENTS_LLM_MAX_RETRIES", "0")
        patch.setenv("GRAPHAGENTS_WARM_AGENTS", "supervisor")
        try:
            with LiveServer(tmp_path_factory.mktemp("web_model"), builtin=True) as live:
                yield live
        finally:
            patch.undo()


def test_the_answer_streams_into_the_bubble_and_a_fallback_is_shown(browser: Any, model_server: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = watch(page)
    open_agent(page, model_server.url, "supervisor")
    page.fill("#input", "송파구 아파트 매매 시세 분석해줘")
    page.press("#input", "Enter")
    # while the final event has not come, the pending bubble already shows part of the answer
    page.wait_for_function(
        """([full]) => {
            const b = document.querySelector('.msg.agent.pending');
            const t = b ? b.textContent.trim() : '';
            return t.length > 0 && t.length < full.length && full.startsWith(t);
        }""", arg=[ANSWER], timeout=90_000)
    page.wait_for_selector("#status[data-done]", timeout=90_000)
    page.wait_for_function("() => !document.querySelector('.msg.pending')", timeout=30_000)
    notice = page.locator(".msg.notice.degraded")
    assert notice.count() == 1 and notice.get_attribute("data-step") == "orchestrate"
    assert notice.get_attribute("data-reason") == "http_error"
    assert ANSWER in page.locator(".msg.agent").last.inner_text()
    body = page.content()
    assert "secret-4711" not in body and "Error code" not in body
    assert page.locator(".trace-item.degraded, [data-type='degraded']").count() >= 1
    assert errors == []
