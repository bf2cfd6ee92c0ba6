"""Prompt files of the text2sql agent (package data; ``{{name}}`` placeholders, see graphagents.prompts).

``system.xml`` is an XML template, so every value put into it (table names, database comments) is
escaped: a comment cannot close ``<database>`` or inject a ``<system>`` of its own.
"""

from __future__ import annotations

from graphagents.prompts import PromptSet

PROMPTS = PromptSet(__name__)


def render(name: str, **values: object) -> str:
    return PROMPTS.render(name, **values)


def text(name: str) -> str:
    """A prompt's template text, surrounding whitespace removed (for templates passed on as
    parameters, such as the reprint prompt, whose ``{{response}}`` the protocol fills)."""
    return PROMPTS.get(name).text.strip()
