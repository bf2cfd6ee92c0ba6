"""Deterministic chat models for tests: a recording base and ``ScriptedChatModel``.

Every LLM code path is tested offline with these: queue the outputs a model might give (good,
malformed, raising), run the agent, then read ``prompts`` to see what it was asked. Replies carry
``usage_metadata`` (a word-and-punctuation count, like pydantic-ai's test models), so token
accounting can be tested too. ``graphagents.testing.FunctionChatModel`` computes each reply with a
Python function of the messages instead of a queue.
"""

from __future__ import annotations

import re
import threading
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

from ..errors import ModelOutputError
from .limits import content_text

Responder = Callable[[list[BaseMessage]], str]
ScriptItem = str | AIMessage | BaseException | Responder

GARBAGE = "\x00<<garbage>> {not json, not xml: </tool_call"
"""A deliberately unusable output, for tests of repair paths."""

_TOKEN = re.compile(r"\w+|[^\w\s]")


def estimate_tokens(text: str) -> int:
    """Words and punctuation marks: deterministic, roughly a tokenizer's count."""
    return len(_TOKEN.findall(text))


def usage_for(messages: Sequence[BaseMessage], reply: str) -> UsageMetadata:
    prompt = sum(estimate_tokens(content_text(m.content)) for m in messages)
    out = estimate_tokens(reply)
    return UsageMetadata(input_tokens=prompt, output_tokens=out, total_tokens=prompt + out)


class ScriptExhaustedError(ModelOutputError):
    """The script ran out: the code under test asked the model more often than expected."""


class RecordingChatModel(BaseChatModel):
    """Base of the deterministic test models: records prompts, streams, reports usage.

    A subclass picks the next reply under a lock (``_next``); the reply may be text, an
    AIMessage (its own ``usage_metadata`` wins), an exception to raise, or a callable of the
    messages. ``chunk_size`` > 0 streams the text in pieces of that many characters.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    chunk_size: int = 0
    prompts: list[list[BaseMessage]] = Field(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @abstractmethod
    def _next(self, messages: list[BaseMessage]) -> Any:
        """The next reply item; called with the lock held, after the prompt was recorded."""

    def _respond(self, messages: list[BaseMessage]) -> AIMessage:
        with self._lock:
            self.prompts.append(list(messages))
            item = self._next(messages)
        if isinstance(item, BaseException):
            raise item
        if callable(item) and not isinstance(item, AIMessage):
            item = item(list(messages))
        # model_name is where LangChain's usage callbacks look for the model a usage belongs to
        meta = {"model_name": self._llm_type}
        if isinstance(item, AIMessage):
            text = content_text(item.content)
            usage = item.usage_metadata or usage_for(messages, text)
            return AIMessage(content=item.content, usage_metadata=usage,
                             response_metadata={**meta, **item.response_metadata})
        text = str(item)
        return AIMessage(content=text, usage_metadata=usage_for(messages, text), response_metadata=meta)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._respond(messages))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._respond(messages)
        text = content_text(reply.content)
        size = self.chunk_size or max(len(text), 1)
        starts = range(0, max(len(text), 1), size)
        for n, start in enumerate(starts, 1):
            piece = text[start : start + size]
            usage = reply.usage_metadata if n == len(starts) else None  # chunks add up their usage
            last = n == len(starts)
            chunk = ChatGenerationChunk(message=AIMessageChunk(
                content=piece, usage_metadata=usage, response_metadata=reply.response_metadata if last else {}))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk

    @property
    def prompt_texts(self) -> list[str]:
        """Each recorded prompt flattened to one string, for simple assertions."""
        return ["\n".join(content_text(m.content) for m in prompt) for prompt in self.prompts]


class ScriptedChatModel(RecordingChatModel):
    """Replays ``responses`` in order; ``default`` answers once the queue is empty (None raises
    ScriptExhaustedError instead)."""

    responses: list[Any] = Field(default_factory=list)
    default: str | None = None

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def push(self, *items: ScriptItem) -> None:
        with self._lock:
            self.responses.extend(items)

    @property
    def remaining(self) -> int:
        return len(self.responses)

    def _next(self, messages: list[BaseMessage]) -> Any:
        if self.responses:
            return self.responses.pop(0)
        if self.default is not None:
            return self.default
        raise ScriptExhaustedError(f"ScriptedChatModel has no response left (call #{len(self.prompts)})")


def scripted(*responses: ScriptItem, chunk_size: int = 0, default: str | None = None) -> ScriptedChatModel:
    return ScriptedChatModel(responses=list(responses), chunk_size=chunk_size, default=default)


__all__: Sequence[str] = [
    "GARBAGE",
    "RecordingChatModel",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "estimate_tokens",
    "scripted",
]
