"""Size limits on what models send us, and the one way to read a message's text.

A model turn (an XML step, a JSON answer) is a few KB. ``MAX_OUTPUT_CHARS`` is far above that and
far below what would make parsing or resending it costly: longer output is refused as unusable
(the tool loop stops reading a stream at the limit and asks the model to be brief). The parsers
are linear anyway; the cap bounds memory, checkpoint size and the prompts that repeat it.
"""

from __future__ import annotations

from typing import Any

MAX_OUTPUT_CHARS = 32_000
"""Longest model answer we parse, in characters."""


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content if p)
    return str(content)
