"""JSON answers from chat models: tolerant extraction plus one repair retry."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from pydantic import BaseModel, ValidationError

from ..errors import ModelOutputError

T = TypeVar("T", bound=BaseModel)

_FENCED = re.compile(r"```(?:json)?\s*(.*?)```", re.S)

REPAIR_PROMPT = (
    "Your previous answer could not be used: {problem}\n"
    "Answer again with ONLY one valid JSON object{schema_hint}, no prose, no code fence."
)


def extract_json(text: str) -> Any:
    """The first JSON value in a model answer: whole text, a fenced block, or a balanced {...}/[...]."""
    candidates = [text.strip(), *(m.strip() for m in _FENCED.findall(text))]
    # The earliest balanced object or array wins, so "[1, {...}]" is not read as its inner object.
    pairs = sorted(((text.find(o), o, c) for o, c in (("{", "}"), ("[", "]"))), key=lambda p: p[0])
    for start, opener, closer in pairs:
        while start != -1:
            end = _balanced_end(text, start, opener, closer)
            if end != -1:
                candidates.append(text[start : end + 1])
                break
            start = text.find(opener, start + 1)
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (json.JSONDecodeError, ValueError):
            continue
    raise ValueError("no JSON value found in the answer")


def _balanced_end(text: str, start: int, opener: str, closer: str) -> int:
    depth, in_str, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return i
    return -1


def _check(text: str, schema: type[T] | None) -> Any:
    value = extract_json(text)
    return schema.model_validate(value) if schema is not None else value


def invoke_json(
    model: BaseChatModel, messages: list[BaseMessage], schema: type[T] | None = None
) -> Any:
    """Ask, parse (and validate against ``schema``), and on failure ask once more to repair.

    Raises ModelOutputError when the second answer is still unusable; callers fall back to
    their offline path on that error.
    """
    answer = str(model.invoke(messages).content)
    try:
        return _check(answer, schema)
    except (ValueError, ValidationError) as exc:
        problem = _one_line(exc)
    hint = f" matching this JSON schema: {json.dumps(schema.model_json_schema())}" if schema else ""
    repair = HumanMessage(REPAIR_PROMPT.format(problem=problem, schema_hint=hint))
    retry = [*messages, HumanMessage(content=answer), repair]
    second = str(model.invoke(retry).content)
    try:
        return _check(second, schema)
    except (ValueError, ValidationError) as exc:
        raise ModelOutputError(f"the model returned unusable JSON twice: {_one_line(exc)}") from None


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]
