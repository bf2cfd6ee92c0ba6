"""``load_chat_model("provider:model")``: LangChain chat models behind lazy imports.

A missing optional dependency names the extra to install; a missing key names the variable.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

from ..errors import MissingExtraError, MissingKeyError, ModelRequestsBlocked, UnknownProviderError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from langchain_core.language_models import BaseChatModel

    from ..settings import Settings

OFFLINE = "offline"
LOCAL = "local"
"""llama.cpp in this process (``llm/local.py``): ``local`` = the bundled model, ``local:<file.gguf>``."""

ALLOW_MODEL_REQUESTS = True
"""Set to False (the test suite does) to refuse building any real provider's model."""


@contextmanager
def override_allow_model_requests(allow: bool) -> Iterator[None]:
    global ALLOW_MODEL_REQUESTS
    old, ALLOW_MODEL_REQUESTS = ALLOW_MODEL_REQUESTS, allow
    try:
        yield
    finally:
        ALLOW_MODEL_REQUESTS = old


@dataclass(frozen=True)
class Provider:
    module: str
    cls: str
    extra: str
    key_vars: tuple[str, ...]
    kwargs: Callable[[str], dict[str, Any]]


PROVIDERS: dict[str, Provider] = {
    "openai": Provider("langchain_openai", "ChatOpenAI", "openai", ("OPENAI_API_KEY",), lambda m: {"model": m}),
    "anthropic": Provider(
        "langchain_anthropic", "ChatAnthropic", "anthropic", ("ANTHROPIC_API_KEY",), lambda m: {"model": m}
    ),
    "google": Provider(
        "langchain_google_genai",
        "ChatGoogleGenerativeAI",
        "google",
        ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
        lambda m: {"model": m},
    ),
    "ollama": Provider("langchain_ollama", "ChatOllama", "ollama", (), lambda m: {"model": m}),
}


def _openai_compatible(rest: str) -> tuple[Provider, dict[str, Any]]:
    base_url, sep, model = rest.rpartition("#")
    if not sep or not base_url or not model:
        raise UnknownProviderError(
            f"bad model {('openai-compatible:' + rest)!r}: write openai-compatible:<base_url>#<model>, "
            "e.g. openai-compatible:http://127.0.0.1:8080/v1#qwen2.5"
        )
    provider = PROVIDERS["openai"]
    # Local servers rarely check the key, but the client insists on one.
    key = os.environ.get("OPENAI_API_KEY") or "not-needed"
    return provider, {"model": model, "base_url": base_url, "api_key": key}


def request_options(provider: str, settings: Settings) -> dict[str, Any]:
    """The client options that bound a provider's requests: a request timeout, bounded retries with
    the client's exponential backoff (OpenAI's and Anthropic's clients wait as a 429/503's
    ``Retry-After`` says), streamed usage, and an HTTP hook that counts every attempt in the turn's
    usage (``Usage.retries``)."""
    timeout, retries = settings.llm_timeout_seconds, settings.llm_max_retries
    if provider == "openai":
        import httpx

        from ..usage import acount_http_request, count_http_request

        limit = httpx.Timeout(timeout, connect=min(timeout, 10.0))
        return {"timeout": limit, "max_retries": retries, "stream_usage": True,
                "http_client": httpx.Client(timeout=limit, event_hooks={"request": [count_http_request]}),
                "http_async_client": httpx.AsyncClient(timeout=limit,
                                                       event_hooks={"request": [acount_http_request]})}
    if provider == "anthropic":
        return {"default_request_timeout": timeout, "max_retries": retries, "stream_usage": True}
    if provider == "google":
        return {"timeout": timeout, "max_retries": retries}
    if provider == "ollama":
        return {"client_kwargs": {"timeout": timeout}}
    return {}


def load_chat_model(spec: str | BaseChatModel | None, *, settings: Settings | None = None,
                    **kwargs: Any) -> BaseChatModel | None:
    """Turn ``"offline"``, ``"provider:model"`` or a model instance into a chat model (None = offline).

    A provider's model gets :func:`request_options` from ``settings`` (the process settings when
    None); ``kwargs`` override them."""
    if spec is None or spec == OFFLINE:
        return None
    if not isinstance(spec, str):
        return spec
    provider_name, sep, model = spec.partition(":")
    if provider_name == LOCAL:
        return _local(spec, model, **kwargs)
    if provider_name == "openai-compatible" and sep:
        provider, model_kwargs = _openai_compatible(model)
        key_needed: tuple[str, ...] = ()
    elif provider_name in PROVIDERS and sep and model:
        provider = PROVIDERS[provider_name]
        model_kwargs = provider.kwargs(model)
        key_needed = provider.key_vars
    else:
        known = ", ".join([OFFLINE, *(f"{p}:<model>" for p in PROVIDERS), "openai-compatible:<url>#<model>",
                           LOCAL, f"{LOCAL}:<file.gguf>"])
        raise UnknownProviderError(f"unknown model {spec!r}; use one of: {known}")
    try:
        module = import_module(provider.module)
    except ImportError:
        raise MissingExtraError(
            f"model {spec!r} needs the {provider.extra!r} extra: pip install 'graphagents[{provider.extra}]'"
        ) from None
    if key_needed and not any(os.environ.get(var) for var in key_needed):
        raise MissingKeyError(f"model {spec!r} needs an API key: set {' or '.join(key_needed)}")
    if not ALLOW_MODEL_REQUESTS:
        raise ModelRequestsBlocked(
            f"real model requests are disabled here (tests); use ScriptedChatModel instead of {spec!r}"
        )
    if settings is None:
        from ..settings import get_settings

        settings = get_settings()
    options = {**request_options(provider.extra, settings), **model_kwargs, **kwargs}
    cls = getattr(module, provider.cls)
    return cls(**options)  # type: ignore[no-any-return]


def _local(spec: str, path: str, **kwargs: Any) -> BaseChatModel:
    from .local import load_local_model

    model = load_local_model(path, **kwargs)  # one-line errors: runtime or parts missing, file refused
    if not ALLOW_MODEL_REQUESTS:
        raise ModelRequestsBlocked(
            f"real model requests are disabled here (tests); use ScriptedChatModel instead of {spec!r}"
        )
    return model
