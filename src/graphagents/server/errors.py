"""One-line messages for requests FastAPI rejects before a route runs (bad JSON, wrong fields).

Kept apart from ``app.py``'s handlers so that the wording is one small, tested function: a client
that sent ``{"text": "hi",}`` is told ``invalid JSON at line 1, column 14: Expecting property name
enclosed in double quotes``, not FastAPI's ``1: JSON decode error``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fastapi.exceptions import RequestValidationError


def _line_column(doc: str, pos: int) -> tuple[int, int]:
    pos = max(0, min(pos, len(doc)))
    line = doc.count("\n", 0, pos) + 1
    return line, pos - (doc.rfind("\n", 0, pos) + 1) + 1


def _as_text(body: Any) -> str | None:
    if isinstance(body, bytes | bytearray):
        return bytes(body).decode("utf-8", errors="replace")
    return body if isinstance(body, str) else None


def describe_json_error(error: Mapping[str, Any], body: Any) -> str:
    """``invalid JSON at line L, column C: <what the parser expected>`` for a ``json_invalid`` error."""
    loc: Sequence[Any] = error.get("loc") or ()
    reason = str((error.get("ctx") or {}).get("error") or "not valid JSON")
    pos = loc[-1] if loc and isinstance(loc[-1], int) else None
    doc = _as_text(body)
    if pos is None or doc is None:
        return f"invalid JSON in the request body: {reason}"
    if not doc.strip():
        return "the request body is empty: send a JSON object"
    line, column = _line_column(doc, pos)
    return f"invalid JSON at line {line}, column {column}: {reason}"


def describe_validation_error(exc: RequestValidationError) -> str:
    """The first problem of a rejected request, in one line: where, then what."""
    errors = exc.errors()
    if not errors:
        return "body: invalid request"
    first = errors[0]
    if first.get("type") == "json_invalid":
        return describe_json_error(first, getattr(exc, "body", None))
    return f"{field_path(first.get('loc')) or 'body'}: {first.get('msg', 'invalid')}"


def field_path(loc: Sequence[Any] | None) -> str:
    """The field an error is about, from names only: keys the client invented are shown short, so
    an error never echoes the input back."""
    parts = []
    for part in loc or ():
        if part == "body":
            continue
        text = str(part)
        parts.append(text if len(text) <= 40 and text.isprintable() else "<field>")
    return ".".join(parts)


__all__ = ["describe_json_error", "describe_validation_error", "field_path"]
