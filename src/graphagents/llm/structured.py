"""Typed structured output: ``ask_json(model, prompt, schema, fallback) -> T``.

The one way an agent asks a model for a value it then trusts: the answer is parsed and validated
against ``schema`` (a pydantic model or any type pydantic can validate), a bad answer gets one
repair request naming the problem, and if the model still fails (garbage twice, a provider
outage, an answer over ``MAX_OUTPUT_CHARS``) the caller gets ``fallback``: agents keep their
offline result rather than end a conversation because a model misbehaved.

Both calls go through ``model.invoke`` with the caller's run config, so the callbacks that count
usage (model calls, ``usage_metadata`` tokens) see the repair request too.

Two failures are never swallowed: a real model request while requests are blocked (tests), and
LangGraph's interrupts (``GraphBubbleUp``), which are control flow, not errors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphBubbleUp

from ..errors import ModelRequestsBlocked
from .degrade import report_degraded
from .json_output import ainvoke_json, invoke_json

T = TypeVar("T")
F = TypeVar("F")

Prompt = str | Sequence[BaseMessage]


def _messages(prompt: Prompt) -> list[BaseMessage]:
    return [HumanMessage(prompt)] if isinstance(prompt, str) else list(prompt)


def _fallback(schema: object, exc: Exception, fallback: F, on_error: Callable[[Exception], None] | None,
              step: str | None) -> F:
    """Every fallback is reported the same way: the log gets the exception (provider text included),
    the user a ``degraded`` event naming the step and a reason (a provider outage must not end the
    conversation, nor stay silent)."""
    if on_error is not None:
        on_error(exc)
    report_degraded(step or str(getattr(schema, "__name__", schema)), exc)
    return fallback


def ask_json(model: BaseChatModel, prompt: Prompt, schema: type[T], fallback: F, *,
             config: RunnableConfig | None = None, on_error: Callable[[Exception], None] | None = None,
             step: str | None = None) -> T | F:
    """The model's answer as a ``schema`` value, or ``fallback`` when it cannot give one.

    ``on_error`` sees the exception behind a fallback (agents that log their decisions record it);
    ``step`` names the decision point in the ``degraded`` event (default: the schema's name)."""
    try:
        return invoke_json(model, _messages(prompt), schema, config=config)  # type: ignore[no-any-return]
    except (ModelRequestsBlocked, GraphBubbleUp):
        raise
    except Exception as exc:
        return _fallback(schema, exc, fallback, on_error, step)


async def aask_json(model: BaseChatModel, prompt: Prompt, schema: type[T], fallback: F, *,
                    config: RunnableConfig | None = None,
                    on_error: Callable[[Exception], None] | None = None, step: str | None = None) -> T | F:
    """The async twin of :func:`ask_json`."""
    try:
        return await ainvoke_json(model, _messages(prompt), schema, config=config)  # type: ignore[no-any-return]
    except (ModelRequestsBlocked, GraphBubbleUp):
        raise
    except Exception as exc:
        return _fallback(schema, exc, fallback, on_error, step)
