"""JSON answers from chat models: tolerant extraction in linear time, and one repair retry.

:func:`extract_json` finds the JSON value in a chatty answer. It used to try every ``{`` as a
start and scan to its end (1.4 s on ``'{' * 8000``, 4x per doubling; issue 8, defect 5); now one
pass pairs every bracket, then at most ``MAX_JSON_CANDIDATES`` spans are handed to ``json.loads``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import TypeAdapter, ValidationError

from ..errors import ModelOutputError
from .limits import MAX_OUTPUT_CHARS, content_text

MAX_JSON_CANDIDATES = 16
"""Balanced spans tried with ``json.loads``, earliest first: bounds the work on adversarial text."""

REPAIR_PROMPT = (
    "Your previous answer could not be used: {problem}\n"
    "Answer again with ONLY one valid JSON object{schema_hint}, no prose, no code fence."
)


def extract_json(text: str) -> Any:
    """The first JSON value in a model answer: whole text, a fenced block, or a balanced {...}/[...]."""
    for candidate in _candidates(text):
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):  # RecursionError: nesting deeper than json accepts
            continue
    raise ValueError("no JSON value found in the answer")


def _candidates(text: str) -> Iterator[str]:
    yield text.strip()
    yield from _fenced_blocks(text)
    spans = sorted(_balanced_spans(text))
    for start, end in spans[:MAX_JSON_CANDIDATES]:
        yield text[start : end + 1]


def _fenced_blocks(text: str) -> Iterator[str]:
    """Bodies of ```...``` blocks (an optional ``json`` tag dropped), fences paired in order."""
    pos = 0
    while (start := text.find("```", pos)) != -1:
        end = text.find("```", start + 3)
        if end == -1:
            return
        body = text[start + 3 : end]
        if body.startswith("json"):
            body = body[4:]
        yield body.strip()
        pos = end + 3


def _balanced_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every balanced ``{...}`` and ``[...]``, in one pass.

    Each bracket kind is paired on its own stack (a stray ``]`` does not end an object), and
    quotes only count inside a bracket: prose around the JSON may hold an odd number of them.
    """
    spans: list[tuple[int, int]] = []
    stacks: dict[str, list[int]] = {"{": [], "[": []}
    closers = {"}": "{", "]": "["}
    in_str = escaped = False
    for i, ch in enumerate(text):
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch in stacks:
            stacks[ch].append(i)
        elif ch in closers:
            stack = stacks[closers[ch]]
            if stack:
                spans.append((stack.pop(), i))
        elif ch == '"' and (stacks["{"] or stacks["["]):
            in_str = True
    return spans


def _adapter(schema: Any) -> TypeAdapter[Any]:
    return TypeAdapter(schema)


def check_json(text: str, schema: Any = None) -> Any:
    """Parse (and validate against ``schema``) one answer; ValueError/ValidationError when unusable."""
    if len(text) > MAX_OUTPUT_CHARS:
        raise ValueError(f"the answer is {len(text):,} characters long; the limit is {MAX_OUTPUT_CHARS:,}")
    value = extract_json(text)
    return _adapter(schema).validate_python(value) if schema is not None else value


def repair_messages(messages: list[BaseMessage], answer: str, problem: str, schema: Any) -> list[BaseMessage]:
    hint = f" matching this JSON schema: {json.dumps(_adapter(schema).json_schema())}" if schema is not None else ""
    repair = HumanMessage(REPAIR_PROMPT.format(problem=problem, schema_hint=hint))
    return [*messages, HumanMessage(content=answer[:MAX_OUTPUT_CHARS]), repair]


def constrained(model: BaseChatModel, schema: Any) -> Runnable[Any, BaseMessage]:
    """The model told the answer's JSON schema, when it can decode under one (``local``'s grammars)."""
    bind = getattr(model, "bind_json_schema", None)
    if not callable(bind):
        return model
    return bind(_adapter(schema).json_schema() if schema is not None else None)  # type: ignore[no-any-return]


def invoke_json(
    model: BaseChatModel, messages: list[BaseMessage], schema: Any = None, *, config: RunnableConfig | None = None
) -> Any:
    """Ask, parse (and validate against ``schema``), and on failure ask once more to repair.

    Raises ModelOutputError when the second answer is still unusable. Most callers want
    :func:`graphagents.llm.ask_json`, which returns a fallback instead.
    """
    asked = constrained(model, schema)
    answer = content_text(asked.invoke(messages, config=config).content)
    try:
        return check_json(answer, schema)
    except (ValueError, ValidationError) as exc:
        problem = one_line(exc)
    second = content_text(asked.invoke(repair_messages(messages, answer, problem, schema), config=config).content)
    try:
        return check_json(second, schema)
    except (ValueError, ValidationError) as exc:
        raise ModelOutputError(f"the model returned unusable JSON twice: {one_line(exc)}") from None


async def ainvoke_json(
    model: BaseChatModel, messages: list[BaseMessage], schema: Any = None, *, config: RunnableConfig | None = None
) -> Any:
    """The async twin of :func:`invoke_json`."""
    asked = constrained(model, schema)
    answer = content_text((await asked.ainvoke(messages, config=config)).content)
    try:
        return check_json(answer, schema)
    except (ValueError, ValidationError) as exc:
        problem = one_line(exc)
    retry = repair_messages(messages, answer, problem, schema)
    second = content_text((await asked.ainvoke(retry, config=config)).content)
    try:
        return check_json(second, schema)
    except (ValueError, ValidationError) as exc:
        raise ModelOutputError(f"the model returned unusable JSON twice: {one_line(exc)}") from None


def one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]
