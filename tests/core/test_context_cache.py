"""Provider prompt caching, all with fakes: a fake clock, fake creators, fake provider classes."""

from __future__ import annotations

import sys
import threading
import time
import types
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from graphagents.errors import ConfigError, MissingExtraError, ModelRequestsBlocked
from graphagents.llm import ScriptedChatModel, override_allow_model_requests
from graphagents.llm.context_cache import ContextCache, prompt_caching_for

LONG_PROMPT = "당신은 SQL 전문가입니다. " * 50


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class RecordingCreator:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def __call__(self, prompt: str, ttl: int) -> str:
        self.calls.append((prompt, ttl))
        return f"cachedContents/{len(self.calls)}"


class ChatAnthropic(ScriptedChatModel):
    pass


class ChatGoogleGenerativeAI(ScriptedChatModel):
    model: str = "gemini-2.5-flash"
    client: Any = None


class ChatOpenAI(ScriptedChatModel):
    pass


class ChatOllama(ScriptedChatModel):
    pass


def conversation() -> list[BaseMessage]:
    return [SystemMessage(content=LONG_PROMPT), HumanMessage(content="지난달 매출은?"), AIMessage(content="...")]


def test_reused_until_the_refresh_buffer_then_recreated() -> None:
    clock, create = FakeClock(), RecordingCreator()
    cache = ContextCache(create, ttl=3600, refresh_buffer=300, clock=clock)
    first = cache.get_or_create(LONG_PROMPT)
    clock.now += 3299  # 301 s left: still outside the buffer
    assert cache.get_or_create(LONG_PROMPT) == first
    clock.now += 1  # exactly 300 s left: inside the buffer
    second = cache.get_or_create(LONG_PROMPT)
    assert second != first
    assert create.calls == [(LONG_PROMPT, 3600), (LONG_PROMPT, 3600)]
    assert cache.stats == (1, 2)
    clock.now += 3299  # the new cache's own lifetime counts from its creation
    assert cache.get_or_create(LONG_PROMPT) == second


def test_a_changed_prompt_gets_its_own_cache() -> None:
    create = RecordingCreator()
    cache = ContextCache(create, clock=FakeClock())
    a = cache.get_or_create("prompt A")
    b = cache.get_or_create("prompt B")
    assert a != b
    assert cache.get_or_create("prompt A") == a
    assert [p for p, _ in create.calls] == ["prompt A", "prompt B"]
    assert cache.stats == (1, 2)


def test_concurrent_callers_create_once() -> None:
    create = RecordingCreator()

    def slow_create(prompt: str, ttl: int) -> str:
        time.sleep(0.05)  # widen the window in which a racing caller would also create
        return create(prompt, ttl)

    cache = ContextCache(slow_create)
    start = threading.Barrier(8)
    ids: list[str] = []

    def worker() -> None:
        start.wait()
        ids.append(cache.get_or_create(LONG_PROMPT))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(create.calls) == 1
    assert set(ids) == {"cachedContents/1"}
    assert cache.stats == (7, 1)


@pytest.mark.parametrize(("ttl", "buffer"), [(0, 0), (300, 300), (3600, -1)])
def test_a_buffer_that_eats_the_ttl_is_refused(ttl: int, buffer: int) -> None:
    with pytest.raises(ConfigError, match="ttl > refresh_buffer"):
        ContextCache(RecordingCreator(), ttl=ttl, refresh_buffer=buffer)


def test_anthropic_marks_the_last_system_block() -> None:
    messages = conversation()
    caching = prompt_caching_for(ChatAnthropic())
    assert caching is not None
    sent, kwargs = caching.prepare(messages)
    assert kwargs == {}
    assert sent[0].content == [{"type": "text", "text": LONG_PROMPT, "cache_control": {"type": "ephemeral"}}]
    assert isinstance(sent[0], SystemMessage)
    assert sent[1:] == messages[1:]
    assert messages[0].content == LONG_PROMPT  # the caller's history is not modified


def test_anthropic_block_content_marks_only_the_last_block() -> None:
    system = SystemMessage(content=[{"type": "text", "text": "rules"}, {"type": "text", "text": "schema"}])
    caching = prompt_caching_for(ChatAnthropic())
    assert caching is not None
    sent, _ = caching.prepare([system, HumanMessage(content="q")])
    assert sent[0].content == [
        {"type": "text", "text": "rules"},
        {"type": "text", "text": "schema", "cache_control": {"type": "ephemeral"}},
    ]
    assert "cache_control" not in system.content[1]  # type: ignore[operator]
    no_system = [HumanMessage(content="q")]
    assert caching.prepare(no_system) == (no_system, {})


def test_gemini_sends_the_cache_id_instead_of_the_system_prompt() -> None:
    create = RecordingCreator()
    model = ChatGoogleGenerativeAI(responses=["첫 답", "둘째 답"])
    caching = prompt_caching_for(model, create=create)
    assert caching is not None
    sent, kwargs = caching.prepare(conversation())
    assert not any(isinstance(m, SystemMessage) for m in sent)
    assert sent == conversation()[1:]
    assert kwargs == {"cached_content": "cachedContents/1"}
    assert model.invoke(sent, **kwargs).content == "첫 답"
    assert model.prompts[0] == sent

    sent2, kwargs2 = caching.prepare(conversation())
    assert kwargs2 == kwargs
    assert create.calls == [(LONG_PROMPT, 3600)]


def test_gemini_refusal_falls_back_to_uncached_once() -> None:
    attempts: list[str] = []

    def refuse(prompt: str, ttl: int) -> str:
        attempts.append(prompt)
        raise ValueError("400 Cached content is too small")

    caching = prompt_caching_for(ChatGoogleGenerativeAI(), create=refuse)
    assert caching is not None
    for _ in range(2):
        sent, kwargs = caching.prepare(conversation())
        assert (sent, kwargs) == (conversation(), {})
    assert len(attempts) == 1


def test_gemini_without_a_system_prompt_needs_no_cache() -> None:
    create = RecordingCreator()
    caching = prompt_caching_for(ChatGoogleGenerativeAI(), create=create)
    assert caching is not None
    messages: list[BaseMessage] = [HumanMessage(content="q")]
    assert caching.prepare(messages) == (messages, {})
    assert create.calls == []


@pytest.mark.parametrize("model", [ScriptedChatModel(), ChatOpenAI(), ChatOllama()])
def test_unsupported_models_get_no_caching(model: ScriptedChatModel) -> None:
    assert prompt_caching_for(model) is None


def test_real_gemini_creator_names_the_extra_when_google_genai_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "google.genai", None)  # makes the import fail even if installed
    caching = prompt_caching_for(ChatGoogleGenerativeAI())
    assert caching is not None
    with pytest.raises(MissingExtraError, match=r"pip install 'graphagents\[google\]'"):
        caching.prepare(conversation())


def _fake_google_genai(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    genai = types.ModuleType("google.genai")
    genai_types = types.ModuleType("google.genai.types")
    genai_types.CreateCachedContentConfig = lambda **kw: kw  # type: ignore[attr-defined]
    genai.types = genai_types  # type: ignore[attr-defined]
    google = types.ModuleType("google")
    google.genai = genai  # type: ignore[attr-defined]
    for name, module in [("google", google), ("google.genai", genai), ("google.genai.types", genai_types)]:
        monkeypatch.setitem(sys.modules, name, module)
    return calls


class FakeCaches:
    def __init__(self, calls: list[dict[str, Any]]) -> None:
        self.calls = calls

    def create(self, *, model: str, config: dict[str, Any]) -> Any:
        self.calls.append({"model": model, "config": config})
        return types.SimpleNamespace(name="cachedContents/real-shape")


def test_real_gemini_creator_calls_caches_create(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _fake_google_genai(monkeypatch)
    model = ChatGoogleGenerativeAI(client=types.SimpleNamespace(caches=FakeCaches(calls)))
    caching = prompt_caching_for(model, ttl=600)
    assert caching is not None
    with override_allow_model_requests(True):
        _, kwargs = caching.prepare(conversation())
    assert kwargs == {"cached_content": "cachedContents/real-shape"}
    assert calls == [
        {"model": "gemini-2.5-flash", "config": {"system_instruction": LONG_PROMPT, "ttl": "600s"}}
    ]


def test_real_gemini_creator_respects_the_request_block(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _fake_google_genai(monkeypatch)
    model = ChatGoogleGenerativeAI(client=types.SimpleNamespace(caches=FakeCaches(calls)))
    caching = prompt_caching_for(model)
    assert caching is not None
    with override_allow_model_requests(False), pytest.raises(ModelRequestsBlocked):
        caching.prepare(conversation())
    assert calls == []
