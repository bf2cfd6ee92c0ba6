"""Provider-side caching of a long system prompt (design note 7.3).

The text2sql system prompt (schema, rules, examples) is long and identical on every call, so paying
for it once per call is waste. Providers offer two mechanisms and this module hides the difference
behind ``prompt_caching_for(model).prepare(messages) -> (messages, invoke_kwargs)``:

- Anthropic caches a prompt prefix marked with ``cache_control``; no state lives on our side.
- Gemini caches explicitly: a "cached content" resource is created with the system instruction and
  referred to by id until it expires, so we must remember the id and recreate it before expiry
  (``ContextCache``).

Provider classes are recognised by name so that no provider package is imported here.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from langchain_core.messages import BaseMessage, SystemMessage

from ..errors import ConfigError, GraphAgentsError, MissingExtraError, ModelOutputError, ModelRequestsBlocked
from . import factory

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

log = logging.getLogger(__name__)

Creator = Callable[[str, int], str]
"""``create(system_prompt, ttl_seconds) -> cache id``; injectable so tests never reach a provider."""


class ContextCache:
    """Provider-side cache of a long system prompt, reused until `refresh_buffer` seconds before expiry.

    The buffer exists because a cache that expires between our check and the provider's use of it
    fails the request; renewing early trades a few extra creations for never sending a dead id.
    Entries are keyed by the prompt's hash, so a changed prompt never reuses a stale cache.
    Creation happens under the lock: concurrent callers wait for one creation instead of each
    paying for (and leaking) their own cache.
    """

    def __init__(
        self,
        create: Creator,
        *,
        ttl: int = 3600,
        refresh_buffer: int = 300,
        clock: Callable[[], float] = time.monotonic,
        max_entries: int = 16,
    ) -> None:
        if ttl <= 0 or not 0 <= refresh_buffer < ttl:
            raise ConfigError(f"context cache needs ttl > refresh_buffer >= 0, got {ttl=!r} {refresh_buffer=!r}")
        self._create, self.ttl, self.refresh_buffer, self._clock = create, ttl, refresh_buffer, clock
        self._max_entries = max_entries
        self._entries: dict[str, tuple[str, float]] = {}  # prompt hash -> (cache id, expires at)
        self._lock = threading.Lock()
        self._hits = self._creates = 0

    def get_or_create(self, system_prompt: str) -> str:
        key = hashlib.sha256(system_prompt.encode("utf-8")).hexdigest()
        with self._lock:
            entry = self._entries.get(key)
            now = self._clock()
            if entry is not None and now + self.refresh_buffer < entry[1]:
                self._hits += 1
                return entry[0]
            # Expiry counts from before the request: the provider's clock starts no later than that.
            cache_id = self._create(system_prompt, self.ttl)
            self._creates += 1
            self._entries = {k: v for k, v in self._entries.items() if v[1] > now and k != key}
            while len(self._entries) >= self._max_entries:
                self._entries.pop(next(iter(self._entries)))
            self._entries[key] = (cache_id, now + self.ttl)
            return cache_id

    @property
    def stats(self) -> tuple[int, int]:
        """(hits, creates): lets the lead's metrics show whether caching pays off."""
        with self._lock:
            return self._hits, self._creates


class PromptCaching(Protocol):
    def prepare(self, messages: list[BaseMessage]) -> tuple[list[BaseMessage], dict[str, Any]]:
        """Return the messages to send and extra kwargs for ``model.invoke``/``model.stream``."""
        ...


def _text_of(content: str | list[Any]) -> str:
    if isinstance(content, str):
        return content
    parts = [b if isinstance(b, str) else str(b.get("text", "")) for b in content]
    return "\n".join(p for p in parts if p)


class AnthropicPromptCaching:
    """Marks the last system block with ``cache_control`` so Anthropic caches the prefix up to it.

    Anthropic keeps the cache for about five minutes after each hit, so there is nothing to renew.
    Messages are copied, never changed in place: the caller's history stays provider-neutral.
    """

    def prepare(self, messages: list[BaseMessage]) -> tuple[list[BaseMessage], dict[str, Any]]:
        last = max((i for i, m in enumerate(messages) if isinstance(m, SystemMessage)), default=None)
        if last is None:
            return list(messages), {}
        system = messages[last]
        content = system.content
        items = [content] if isinstance(content, str) else content
        blocks: list[dict[str, Any]] = [
            dict(b) if isinstance(b, dict) else {"type": "text", "text": str(b)} for b in items
        ]
        if not blocks:
            return list(messages), {}
        blocks[-1] = {**blocks[-1], "cache_control": {"type": "ephemeral"}}
        out = list(messages)
        out[last] = system.model_copy(update={"content": blocks})
        return out, {}


class GeminiPromptCaching:
    """Moves the system prompt into a Gemini cached content and sends its id as ``cached_content``.

    Gemini rejects a request that carries both ``cached_content`` and a system instruction, so the
    system messages are removed. Creation can fail for reasons that should not fail the turn (the
    prompt is below the model's minimum cacheable size, quota): then the messages go out unchanged
    and that prompt is not tried again, since it would fail the same way on every call.
    """

    def __init__(self, cache: ContextCache) -> None:
        self.cache = cache
        self._uncacheable: set[str] = set()

    def prepare(self, messages: list[BaseMessage]) -> tuple[list[BaseMessage], dict[str, Any]]:
        systems = [m for m in messages if isinstance(m, SystemMessage)]
        prompt = "\n\n".join(_text_of(m.content) for m in systems)
        if not prompt or prompt in self._uncacheable:
            return list(messages), {}
        try:
            cache_id = self.cache.get_or_create(prompt)
        except GraphAgentsError:
            raise  # setup problems (missing extra, requests blocked) must be fixed, not hidden
        except Exception as exc:  # provider refusal: run uncached rather than fail the turn
            log.warning("Gemini context cache not created, sending the prompt uncached: %s", exc)
            self._uncacheable.add(prompt)
            return list(messages), {}
        return [m for m in messages if not isinstance(m, SystemMessage)], {"cached_content": cache_id}


def gemini_creator(model: Any) -> Creator:
    """The real creator: ``client.caches.create`` through google-genai, imported only when called."""

    def create(system_prompt: str, ttl: int) -> str:
        try:
            from google import genai
            from google.genai import types
        except ImportError:
            raise MissingExtraError(
                "Gemini context caching needs google-genai: pip install 'graphagents[google]'"
            ) from None
        if not factory.ALLOW_MODEL_REQUESTS:
            raise ModelRequestsBlocked("real model requests are disabled here (tests); inject a fake creator")
        client: Any = getattr(model, "client", None)
        if not hasattr(client, "caches"):  # older langchain-google-genai wrapped another SDK
            key = getattr(model, "google_api_key", None)
            client = genai.Client(api_key=key.get_secret_value() if key is not None else None)
        config = types.CreateCachedContentConfig(system_instruction=system_prompt, ttl=f"{ttl}s")
        cached = client.caches.create(model=model.model, config=config)
        if not cached.name:
            raise ModelOutputError("Gemini created a context cache without a name; retry later")
        return str(cached.name)

    return create


def _class_names(model: object) -> set[str]:
    return {cls.__name__ for cls in type(model).__mro__}


def prompt_caching_for(
    model: BaseChatModel, *, ttl: int = 3600, create: Creator | None = None
) -> PromptCaching | None:
    """The prompt-caching strategy for ``model``, or None when there is nothing to do.

    None for ScriptedChatModel, Ollama (local, no provider cache), and OpenAI, which caches long
    prompt prefixes automatically with no request changes. ``ttl`` only matters for Gemini, where it
    is the life of the cached content; ``create`` replaces the real Gemini creator (tests).
    """
    names = _class_names(model)
    if "ChatAnthropic" in names:
        return AnthropicPromptCaching()
    if "ChatGoogleGenerativeAI" in names:
        # The 300 s buffer of the design note, but never most of a short ttl.
        buffer = min(300, ttl // 5)
        return GeminiPromptCaching(ContextCache(create or gemini_creator(model), ttl=ttl, refresh_buffer=buffer))
    return None


__all__ = [
    "AnthropicPromptCaching",
    "ContextCache",
    "GeminiPromptCaching",
    "PromptCaching",
    "gemini_creator",
    "prompt_caching_for",
]
