"""JSON answers from chat models: tolerant extraction in linear time, and one repair retry.

:func:`extract_json` finds the JSON value in a chatty answer. It used to try every ``{`` as a
start and scan to its end (1.4 s on ``'{' * 8000``, 4x per doubling; issue 8, defect 5); now one
pass pairs every bracket, then at most ``MAX_JSON_CANDIDATES`` spans are handed to ``json.loads``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
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
REPAIR_PROMPT_KO = (
    "앞의 답변은 사용할 수 없었습니다: {problem}\n"
    "설명이나 코드 블록 없이, 올바른 JSON 객체 하나{schema_hint}만 다시 답해 주세요."
)


def extract_json(text: str) -> Any:
    """The JSON value of a model answer: the whole text, a fenced block, or a top-level balanced
    ``{...}``/``[...]``; a trailing comma before ``}``/``]`` is repaired exactly.

    Never a value nested inside a span that failed to parse: salvaging the inner object of a broken
    outer one would silently drop the rest (issue 24: a profile lost to one trailing comma). When
    nothing parses, the ValueError carries the parser's own message for the first candidate."""
    errors: list[tuple[bool, str]] = []  # (the candidate looks like JSON, the parser's message)
    for candidate in _candidates(text):
        for attempt in (candidate, strip_trailing_commas(candidate)):
            try:
                return json.loads(attempt)
            except RecursionError:  # nesting deeper than json accepts
                errors.append((True, "the JSON value is nested too deeply"))
                break
            except ValueError as exc:
                errors.append((candidate[:1] in ("{", "["), str(exc)))
    if not text.strip():
        raise ValueError("the answer is empty")
    json_like = [message for looks, message in errors if looks]
    if not json_like:
        raise ValueError("no JSON value found in the answer")
    raise ValueError(f"invalid JSON: {json_like[0]}")


def _candidates(text: str) -> Iterator[str]:
    stripped = text.strip()
    yield stripped
    for block in _fenced_blocks(text):
        if block != stripped:
            yield block
    outer: list[tuple[int, int]] = []
    for start, end in sorted(_balanced_spans(text)):  # by start: an enclosing span comes first
        if outer and start < outer[-1][1]:
            continue  # inside a top-level span: never a candidate on its own
        outer.append((start, end))
        if len(outer) > MAX_JSON_CANDIDATES:
            return
        span = text[start : end + 1]
        if span != stripped:
            yield span


def strip_trailing_commas(text: str) -> str:
    """``text`` without the commas that stand right before a ``}`` or ``]`` (whitespace between),
    outside strings: the one mistake models make that has a single exact repair. Linear time."""
    out: list[str] = []
    in_str = escaped = False
    pending: int | None = None  # index in ``out`` of a comma that may be trailing
    for ch in text:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
            out.append(ch)
            continue
        if ch in "}]" and pending is not None:
            out[pending] = ""
        if not ch.isspace():
            pending = None
        if ch == '"':
            in_str = True
        elif ch == ",":
            pending = len(out)
        out.append(ch)
    return "".join(out)


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


INT64_MAX = 2**63 - 1
"""Largest integer a model answer may hold: beyond it the checkpointers (msgpack, PostgreSQL
bigint) cannot store the value, and no quantity an agent asks for is that large."""


def bounded(value: Any) -> Any:
    """``value`` as it may be stored (issue 26, item 6): lone surrogates in strings (keys included)
    become U+FFFD; an integer beyond 64 bits or a non-finite number raises ValueError, so the answer
    is unusable like garbage (one repair request, then the fallback). Iterative: any depth."""
    if isinstance(value, str):
        return clean_text(value)
    if not isinstance(value, dict | list):
        _check_number(value)
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            if isinstance(item, dict | list):
                copy: Any = {} if isinstance(item, dict) else []
                stack.append((item, copy))
            else:
                _check_number(item)
                copy = clean_text(item) if isinstance(item, str) else item
            if isinstance(target, dict):
                target[clean_text(str(key))] = copy
            else:
                target.append(copy)
    return root


def _check_number(value: Any) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, int) and abs(value) > INT64_MAX:
        raise ValueError(f"a number has {len(str(abs(value)))} digits; the largest allowed is {INT64_MAX}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("a number is not finite (NaN or Infinity)")


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate (``"\\ud800"`` from a model's JSON) replaced by U+FFFD:
    such a string cannot be encoded as UTF-8, so no store, cache or response could hold it."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


_SURROGATE = re.compile("[\ud800-\udfff]")


def check_json(text: str, schema: Any = None) -> Any:
    """Parse, bound (:func:`bounded`) and validate against ``schema`` one answer;
    ValueError/ValidationError when unusable."""
    if len(text) > MAX_OUTPUT_CHARS:
        raise ValueError(f"the answer is {len(text):,} characters long; the limit is {MAX_OUTPUT_CHARS:,}")
    value = bounded(extract_json(text))
    return _adapter(schema).validate_python(value) if schema is not None else value


def _is_korean(messages: list[BaseMessage]) -> bool:
    """True when the prompt is written in Korean (Hangul in the last message the model was sent)."""
    for message in reversed(messages):
        text = content_text(message.content)
        if text:
            return any("\uac00" <= ch <= "\ud7a3" for ch in text)
    return False


def repair_messages(messages: list[BaseMessage], answer: str, problem: str, schema: Any) -> list[BaseMessage]:
    """The conversation that asks for a repair: the model's own answer as its (assistant) turn, then
    the parser's real error, in the prompt's language."""
    korean = _is_korean(messages)
    schema_json = json.dumps(_adapter(schema).json_schema(), ensure_ascii=False) if schema is not None else ""
    if korean:
        hint = f"(다음 JSON 스키마를 따르는 것: {schema_json})" if schema_json else ""
        repair = HumanMessage(REPAIR_PROMPT_KO.format(problem=problem, schema_hint=hint))
    else:
        hint = f" matching this JSON schema: {schema_json}" if schema_json else ""
        repair = HumanMessage(REPAIR_PROMPT.format(problem=problem, schema_hint=hint))
    said = answer[:MAX_OUTPUT_CHARS] or ("(빈 답변)" if korean else "(empty answer)")
    return [*messages, AIMessage(content=said), repair]


def constrained(model: BaseChatModel, schema: Any) -> Runnable[Any, BaseMessage]:
    """The model told the answer's JSON schema, when it can decode under one: ``local``'s grammars,
    or the provider's structured output (:func:`provider_format`). The answer is still parsed,
    bounded and validated here, with the same repair and fallback, so a provider that ignores the
    schema costs nothing."""
    bind = getattr(model, "bind_json_schema", None)
    if callable(bind):
        return bind(_adapter(schema).json_schema() if schema is not None else None)  # type: ignore[no-any-return]
    extra = provider_format(model, schema)
    return model.bind(**extra) if extra else model


def structured_output_mode() -> str:
    from ..settings import get_settings

    return get_settings().llm_structured_output


def provider_format(model: Any, schema: Any, mode: str | None = None) -> dict[str, Any]:
    """The request field that makes a provider decode under ``schema``: OpenAI's ``response_format``
    (``json_schema``, not strict, so any pydantic schema fits) and Ollama's ``format``. Empty for
    other providers, for openai-compatible servers unless ``llm_structured_output`` is ``on`` (many
    reject the field), and when it is ``off``."""
    mode = mode or structured_output_mode()
    if mode == "off" or schema is None:
        return {}
    kind = type(model).__name__
    json_schema = _adapter(schema).json_schema()
    if kind == "ChatOpenAI":
        base = str(getattr(model, "openai_api_base", None) or "")
        if mode == "auto" and base and "api.openai.com" not in base:
            return {}
        name = "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in getattr(schema, "__name__", "answer"))
        return {"response_format": {"type": "json_schema",
                                    "json_schema": {"name": name[:64] or "answer", "schema": json_schema,
                                                    "strict": False}}}
    if kind == "ChatOllama":
        return {"format": json_schema}
    return {}


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


_TOOL_PROVIDERS = frozenset({"ChatOpenAI", "ChatAnthropic", "ChatGoogleGenerativeAI", "ChatOllama"})


def native_tools(model: Any, mode: str | None = None) -> bool:
    """True when a tool loop may bind its tools to ``model`` (``bind_tools``): a provider model of
    OpenAI (itself), Anthropic, Google or Ollama under ``llm_structured_output=auto``, any
    openai-compatible server too under ``on``; never under ``off`` nor for scripted or local models
    (the text protocols stay theirs)."""
    mode = mode or structured_output_mode()
    kind = type(model).__name__
    if mode == "off" or kind not in _TOOL_PROVIDERS or not callable(getattr(model, "bind_tools", None)):
        return False
    if kind == "ChatOpenAI" and mode == "auto":
        base = str(getattr(model, "openai_api_base", None) or "")
        return not base or "api.openai.com" in base
    return True
