"""Prompt files of the tableqa agent (package data, read with importlib.resources)."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def render(name: str, **values: object) -> str:
    """Fill ``{{key}}`` markers; plain replacement because code examples hold braces."""
    text = load(name)
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", str(value))
    return text
