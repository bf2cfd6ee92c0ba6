"""Issue 24, defects 1 and 5: every model call has a request timeout and bounded retries (with the
client's backoff, honouring Retry-After); streamed calls ask for usage; retried attempts count."""

from __future__ import annotations

import time
from typing import Any

import openai
import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from graphagents.errors import TurnDeadlineExceeded
from graphagents.llm import ask_json
from graphagents.testing.openai_server import Reply
from graphagents.usage import UsageRecorder

from .conftest import client

HELLO = [HumanMessage("hello")]


def test_a_stalled_provider_times_out_and_the_call_is_retried(openai_server: Any) -> None:
    server = openai_server([Reply(fault="stall", delay=5), "fine"])
    recorder = UsageRecorder()
    answer = client(server, llm_timeout_seconds=0.5).invoke(HELLO, config={"callbacks": [recorder]})
    assert answer.content == "fine"
    assert len(server.requests) == 2
    assert recorder.model_calls == 1 and recorder.retries == 1


def test_a_provider_that_always_stalls_fails_after_the_bounded_retries(openai_server: Any) -> None:
    server = openai_server(lambda body: Reply(fault="stall", delay=5))
    with pytest.raises(openai.APITimeoutError):
        client(server, llm_timeout_seconds=0.3, llm_max_retries=1).invoke(HELLO)
    assert len(server.requests) == 2  # one try + one retry, then the error


def test_a_dropped_connection_is_retried(openai_server: Any) -> None:
    server = openai_server([Reply(fault="drop"), "fine"])
    assert client(server).invoke(HELLO).content == "fine"
    assert len(server.requests) == 2


def test_429_waits_as_retry_after_says(openai_server: Any) -> None:
    arrivals: list[float] = []

    def script(body: dict[str, Any]) -> Reply | str:
        arrivals.append(time.monotonic())
        return Reply(status=429, retry_after=1) if len(arrivals) == 1 else "fine"

    server = openai_server(script)
    assert client(server).invoke(HELLO).content == "fine"
    assert len(arrivals) == 2
    assert arrivals[1] - arrivals[0] >= 0.9  # the header's wait, not the client's 0.5 s first backoff


def test_500_on_every_call_ends_after_max_retries(openai_server: Any) -> None:
    server = openai_server(lambda body: Reply(status=500))
    recorder = UsageRecorder()
    with pytest.raises(openai.InternalServerError):
        client(server, llm_max_retries=2).invoke(HELLO, config={"callbacks": [recorder]})
    assert len(server.requests) == 3
    assert recorder.retries == 2


def test_streamed_calls_ask_for_usage_and_count_it(openai_server: Any) -> None:
    server = openai_server([Reply(text="a streamed answer of some length")])
    recorder = UsageRecorder()
    chunks = list(client(server).stream(HELLO, config={"callbacks": [recorder]}))
    assert "".join(str(c.content) for c in chunks) == "a streamed answer of some length"
    body = server.requests[0]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert recorder.input_tokens > 0 and recorder.output_tokens > 0


def test_async_calls_count_retries_too(openai_server: Any) -> None:
    import asyncio

    server = openai_server([Reply(status=500), "fine"])
    recorder = UsageRecorder()
    answer = asyncio.run(client(server).ainvoke(HELLO, config={"callbacks": [recorder]}))
    assert answer.content == "fine"
    assert recorder.retries == 1


def test_no_model_call_starts_after_the_turn_deadline(openai_server: Any) -> None:
    server = openai_server(["{}"])
    late = UsageRecorder(deadline=time.monotonic() - 1)
    with pytest.raises(TurnDeadlineExceeded):
        client(server).invoke(HELLO, config={"callbacks": [late]})
    assert server.requests == []
    causes: list[Exception] = []
    got = ask_json(client(server), "hello", dict, "offline", config={"callbacks": [late]}, on_error=causes.append)
    assert got == "offline" and isinstance(causes[0], TurnDeadlineExceeded)


def test_a_call_running_when_the_deadline_passes_ends_there(openai_server: Any) -> None:
    """The deadline is hard for a stalled provider: with an hour's request timeout the stalled call would
    wait for the provider's answer (which comes after 20 s); cut to the turn's time left, the attempt
    and its retries time out instead."""
    server = openai_server(lambda body: Reply(text="too late", delay=20))
    recorder = UsageRecorder(deadline=time.monotonic() + 0.5)
    with pytest.raises(openai.APITimeoutError):
        client(server, llm_timeout_seconds=3600, llm_max_retries=1).invoke(HELLO, config={"callbacks": [recorder]})
    # the retry comes after the deadline: it fails at once (its connect may not even reach the server)
    assert 1 <= len(server.requests) <= 2 and recorder.retries == 1


def test_a_streamed_answer_stops_at_the_deadline(openai_server: Any) -> None:
    server = openai_server([Reply(text="a long answer " * 20)])
    recorder = UsageRecorder(deadline=time.monotonic() + 3600)
    stream = client(server).stream(HELLO, config={"callbacks": [recorder]})
    first = next(stream)
    recorder.deadline = time.monotonic() - 1  # the deadline passes while the answer is coming
    with pytest.raises(TurnDeadlineExceeded):
        for _ in stream:
            pass
    assert str(first.content) != "a long answer " * 20


class Decision(BaseModel):
    action: str
    confidence: float


def test_json_decision_points_ask_for_the_schema_where_the_provider_has_it(openai_server: Any,
                                                                            monkeypatch: Any) -> None:
    """Issue 24: structured output where the provider has it; the answer is still salvaged and
    validated here (a trailing comma from a provider that ignores the schema is repaired)."""
    from graphagents.settings import get_settings

    server = openai_server(['{"action": "continue", "confidence": 0.5,}'])
    monkeypatch.setenv("GRAPHAGENTS_LLM_STRUCTURED_OUTPUT", "on")
    get_settings.cache_clear()
    try:
        got = ask_json(client(server), "decide", Decision, None)
    finally:
        monkeypatch.delenv("GRAPHAGENTS_LLM_STRUCTURED_OUTPUT")
        get_settings.cache_clear()
    assert got == Decision(action="continue", confidence=0.5)
    fmt = server.requests[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"]["required"] == ["action", "confidence"]


def test_auto_leaves_other_openai_compatible_servers_to_the_prompt(openai_server: Any) -> None:
    server = openai_server(['{"action": "stop", "confidence": 1}'])
    assert ask_json(client(server), "decide", Decision, None) == Decision(action="stop", confidence=1)
    assert "response_format" not in server.requests[0]


def test_n_choices_are_one_request_and_their_usage_is_counted_once(openai_server: Any) -> None:
    from graphagents.llm.answer import sample_texts

    server = openai_server(lambda body: Reply(choices=["a", "b", "c"]))
    recorder = UsageRecorder()
    texts = sample_texts(client(server), [HumanMessage("hello " * 40)], 3, config={"callbacks": [recorder]})
    assert texts == ["a", "b", "c"] and server.requests[0]["n"] == 3 and len(server.requests) == 1
    assert recorder.model_calls == 1
    assert recorder.input_tokens == len("hello " * 40) // 4  # the request's prompt, once (not x3)


def test_supervisor_over_http_sends_the_orchestration_temperature_and_counts_every_token(
        openai_server: Any, tmp_path: Any) -> None:
    """Issue 24 defects 5 and 12: the usage of a whole supervisor turn is what was sent (streamed
    responder included), and orchestration decisions go at temperature 0.2."""
    import json as _json

    import graphagents as ga

    from .conftest import fast_settings

    plan = _json.dumps({"intent": {"intent_type": "market_analysis", "confidence": 0.9, "entities": {}},
                        "teams": [{"team": "search", "reason": "시세", "scopes": ["market"]},
                                  {"team": "analysis", "reason": "통계", "uses": ["search"]}],
                        "strategy": "sequential"}, ensure_ascii=False)

    def script(body: dict[str, Any]) -> Reply | str:
        first = str(body["messages"][0].get("content") or "")
        if first.startswith("당신은 부동산 상담 서비스의 계획 담당자"):
            return plan
        if first.startswith("당신은 실행 오케스트레이터"):
            return '{"action": "continue", "reasoning": "충분", "confidence": 0.8}'
        return Reply(text="송파구 시세는 데이터로 정리했습니다. " * 20, chunk_chars=7)

    server = openai_server(script)
    agent = ga.load("supervisor", server.model_spec, settings=fast_settings(tmp_path), models={"sql": "offline"},
                    checkpoint_url="memory")
    reply = agent.session().send("송파구 아파트 매매 시세 분석해줘")
    orchestrate = [b for b in server.requests
                   if str(b["messages"][0]["content"]).startswith("당신은 실행 오케스트레이터")]
    assert orchestrate and all(b.get("temperature") == 0.2 for b in orchestrate)
    sent = sum(max(1, len(str(m.get("content") or "")) // 4) for b in server.requests for m in b["messages"])
    assert reply.usage is not None and reply.usage.model_calls == len(server.requests)
    assert reply.usage.input_tokens == sent  # before: streamed calls reported nothing
