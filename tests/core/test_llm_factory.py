from __future__ import annotations

import builtins

import pytest

from graphagents.errors import MissingExtraError, MissingKeyError, ModelRequestsBlocked, UnknownProviderError
from graphagents.llm import load_chat_model, override_allow_model_requests


def test_offline_means_no_model() -> None:
    assert load_chat_model("offline") is None
    assert load_chat_model(None) is None


@pytest.mark.parametrize("spec", ["gpt-4o", "foo:bar", "openai:", "openai-compatible:http://x/v1"])
def test_unknown_provider_is_one_clear_line(spec: str) -> None:
    with pytest.raises(UnknownProviderError) as info:
        load_chat_model(spec)
    message = str(info.value)
    assert "\n" not in message
    assert repr(spec) in message or "openai-compatible:<base_url>#<model>" in message


def test_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def fake_import(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("langchain_anthropic"):
            raise ImportError("No module named 'langchain_anthropic'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(MissingExtraError, match=r"pip install 'graphagents\[anthropic\]'"):
        load_chat_model("anthropic:claude-sonnet")


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    fake = types.ModuleType("langchain_openai")
    fake.ChatOpenAI = object  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langchain_openai", fake)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(MissingKeyError, match="set OPENAI_API_KEY"):
        load_chat_model("openai:gpt-4o-mini")


def test_real_models_are_blocked_in_tests_but_buildable_when_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    class FakeChat:
        def __init__(self, **kwargs: object) -> None:
            self.kwargs = kwargs

    fake = types.ModuleType("langchain_openai")
    fake.ChatOpenAI = FakeChat  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langchain_openai", fake)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with pytest.raises(ModelRequestsBlocked):
        load_chat_model("openai:gpt-4o-mini")
    with override_allow_model_requests(True):
        model = load_chat_model("openai-compatible:http://127.0.0.1:9/v1#qwen")
    kwargs = model.kwargs  # type: ignore[union-attr]
    assert {k: kwargs[k] for k in ("model", "base_url", "api_key")} == {
        "model": "qwen", "base_url": "http://127.0.0.1:9/v1", "api_key": "sk-test"}
    # issue 24: a request timeout, bounded retries, streamed usage, and a client that counts attempts
    assert kwargs["max_retries"] == 2 and kwargs["stream_usage"] is True
    assert kwargs["timeout"].read == 60.0
    assert kwargs["http_client"] is not None and kwargs["http_async_client"] is not None
