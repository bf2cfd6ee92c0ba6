"""Chat models for tests and evaluations that never reach a provider.

``FunctionChatModel`` is pydantic-ai's ``FunctionModel`` for LangChain: a Python function of the
messages computes each reply, so a test can answer according to what the agent asked (the
question, the observations so far) instead of queueing replies in advance. It records prompts,
streams in chunks and reports ``usage_metadata`` like :class:`ScriptedChatModel`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from ..llm.scripted import RecordingChatModel

ReplyFunction = Callable[[list[BaseMessage]], "str | AIMessage"]


class FunctionChatModel(RecordingChatModel):
    """``FunctionChatModel(function=lambda messages: "...")``; the function may also return an
    AIMessage (with its own ``usage_metadata``) or raise to simulate a provider failure."""

    function: Callable[[list[BaseMessage]], Any]

    @property
    def _llm_type(self) -> str:
        return "function"

    def _next(self, messages: list[BaseMessage]) -> Any:
        return self.function  # called outside the lock: the function may be slow or re-entrant


__all__ = ["FunctionChatModel", "ReplyFunction"]
