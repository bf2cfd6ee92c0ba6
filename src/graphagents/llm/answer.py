"""Free-text final answers from a model: streamed as ``token`` events, capped, cleaned.

:func:`stream_answer` is how an agent asks a model for the text the user reads. It streams the
answer (each piece is a ``TokenEvent`` in the ``reply`` section, so the page and the CLI show it as
it comes), stops reading at the output cap (``Settings.max_model_output_chars``; the text then ends
with a note that says it was cut), and replaces lone surrogates (which no store could encode). A
provider failure raises, as ``invoke`` would: the caller falls back (and reports it with
:func:`graphagents.llm.degrade.report_degraded`); an empty answer or one that is only a tool call
comes back as ``""`` for the caller to treat the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage

from ..events import TokenEvent, emit
from .json_output import clean_text
from .limits import content_text

__all__ = ["Answer", "cut_note", "sample_texts", "stream_answer", "stream_message"]


@dataclass(frozen=True)
class Answer:
    text: str
    cut: bool = False
    """True when the model's answer went past the cap and was cut (``text`` ends with the note)."""


def cut_note(limit: int, korean: bool) -> str:
    if korean:
        return f"\n\n(답변이 너무 길어 {limit:,}자에서 잘랐어요.)"
    return f"\n\n(The answer was too long and was cut at {limit:,} characters.)"


def output_limit() -> int:
    from ..settings import get_settings

    return get_settings().max_model_output_chars


def stream_answer(model: Any, messages: Sequence[BaseMessage], *, config: Any = None, limit: int | None = None,
                  korean: bool = True, section: str = "reply", emit_tokens: bool = True) -> Answer:
    """The model's answer, streamed as ``token`` events while it comes, at most ``limit`` characters
    (default: ``Settings.max_model_output_chars``)."""
    cap = limit if limit is not None else output_limit()
    parts: list[str] = []
    size = 0
    cut = False
    stream = model.stream(list(messages), config=config)
    try:
        for chunk in stream:
            piece = clean_text(content_text(getattr(chunk, "content", "")))
            if not piece:
                continue
            if size + len(piece) > cap:
                piece = piece[: cap - size]
                cut = True
            if piece:
                parts.append(piece)
                size += len(piece)
                if emit_tokens:
                    emit(TokenEvent(piece, section))
            if cut:
                break
    finally:
        close = getattr(stream, "close", None)
        if callable(close):
            close()  # stops reading the provider's stream at the cap
    text = "".join(parts).strip()
    if cut and text:
        text += cut_note(cap, korean)
    return Answer(text, cut)


def stream_message(model: Any, messages: Sequence[BaseMessage], *, limit: int | None = None,
                   section: str = "reply", config: Any = None) -> tuple[Answer, list[dict[str, Any]]]:
    """Like :func:`stream_answer`, for a model that may answer with tool calls: the streamed text
    (tokens emitted) and the tool calls of the whole message (``[{"name", "args"}]``)."""
    cap = limit if limit is not None else output_limit()
    whole: Any = None
    parts: list[str] = []
    size = 0
    cut = False
    for chunk in model.stream(list(messages), config=config):
        whole = chunk if whole is None else whole + chunk
        piece = clean_text(content_text(getattr(chunk, "content", "")))
        if not piece or cut:
            continue
        if size + len(piece) > cap:
            piece, cut = piece[: cap - size], True
        parts.append(piece)
        size += len(piece)
        emit(TokenEvent(piece, section))
    calls = [{"name": str(c.get("name") or ""), "args": c.get("args") or {}}
             for c in (getattr(whole, "tool_calls", None) or [])]
    return Answer("".join(parts).strip(), cut), calls


def sample_texts(model: Any, messages: Sequence[BaseMessage], n: int, *, config: Any = None) -> list[str]:
    """``n`` answers to the same messages: one request with ``n`` choices when the model has that
    setting (OpenAI-compatible providers: issue 24, sampling sent N identical requests), else ``n``
    calls. Each text is cleaned of lone surrogates."""
    if n <= 1:
        return [clean_text(content_text(model.invoke(list(messages), config=config).content))]
    fields = getattr(type(model), "model_fields", {})
    if "n" in fields:
        from langchain_core.runnables.config import ensure_config

        run = ensure_config(config)  # inside a graph node: the node's config (the turn's usage callbacks)
        sampler = model.model_copy(update={"n": n})
        result = sampler.generate([list(messages)], callbacks=run.get("callbacks"), tags=run.get("tags"),
                                  metadata=run.get("metadata"))
        texts = [clean_text(content_text(g.message.content)) for g in result.generations[0]]
        if texts:
            return texts[:n] + texts[-1:] * (n - len(texts))
    return [clean_text(content_text(model.invoke(list(messages), config=config).content)) for _ in range(n)]
