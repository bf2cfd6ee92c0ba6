"""ScriptedChatModel: a real LangChain chat model that replays a queue of responses.

It is how every LLM code path is tested offline: queue the outputs a model might give
(good, malformed, raising), run the agent, then read ``prompts`` to see what it was asked.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

from ..errors import ModelOutputError

Responder = Callable[[list[BaseMessage]], str]
ScriptItem = str | AIMessage | BaseException | Responder

GARBAGE = "\x00<<garbage>> {not json, not xml: </tool_call"
"""A deliberately unusable output, for tests of repair paths."""


class ScriptExhaustedError(ModelOutputError):
    """The script ran out: the code under test asked the model more often than expected."""


class ScriptedChatModel(BaseChatModel):
    """Replays ``responses`` in order; each may be text, an AIMessage, an exception to raise,
    or a callable that computes the reply from the prompt. ``chunk_size`` > 0 streams the
    text in pieces of that many characters."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    responses: list[Any] = Field(default_factory=list)
    chunk_size: int = 0
    default: str | None = None
    """Returned when the queue is empty; None raises ScriptExhaustedError instead."""

    prompts: list[list[BaseMessage]] = Field(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def push(self, *items: ScriptItem) -> None:
        with self._lock:
            self.responses.extend(items)

    @property
    def remaining(self) -> int:
        return len(self.responses)

    def _next_text(self, messages: list[BaseMessage]) -> str:
        with self._lock:
            self.prompts.append(list(messages))
            if self.responses:
                item = self.responses.pop(0)
            elif self.default is not None:
                item = self.default
            else:
                raise ScriptExhaustedError(
                    f"ScriptedChatModel has no response left (call #{len(self.prompts)})"
                )
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, AIMessage):
            return str(item.content)
        if callable(item):
            return str(item(list(messages)))
        return str(item)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = self._next_text(messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        text = self._next_text(messages)
        size = self.chunk_size or max(len(text), 1)
        for start in range(0, max(len(text), 1), size):
            piece = text[start : start + size]
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk

    @property
    def prompt_texts(self) -> list[str]:
        """Each recorded prompt flattened to one string, for simple assertions."""
        return ["\n".join(str(m.content) for m in prompt) for prompt in self.prompts]


def scripted(*responses: ScriptItem, chunk_size: int = 0, default: str | None = None) -> ScriptedChatModel:
    return ScriptedChatModel(responses=list(responses), chunk_size=chunk_size, default=default)


__all__: Sequence[str] = ["GARBAGE", "ScriptExhaustedError", "ScriptedChatModel", "scripted"]
