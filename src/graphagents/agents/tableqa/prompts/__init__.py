"""Prompt files of the tableqa agent (package data, read with importlib.resources)."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources


@cache
def load(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


_MARKER = re.compile(r"\{\{(\w+)\}\}")


def render(name: str, **values: object) -> str:
    """Fill the template's ``{{key}}`` markers in one pass over the template: a value is inserted
    as it is and never read again, so ``{{question}}`` inside table data or a question stays text
    (braces of code examples, and markers without a value, are left alone)."""
    return _MARKER.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), load(name))
