"""Prompt templates: package data read with ``importlib.resources``, one template convention.

A template marks each value as ``{{name}}``; everything else is literal, so JSON examples and SQL
keep their braces without escaping. Rendering is strict: a placeholder left without a value, or a
value the template has no place for, is a bug in the caller and raises ``PromptError``. Values are
substituted in one pass, so a value that itself contains ``{{x}}`` is never expanded again.

Templates whose file name ends in ``.xml`` escape every value (``&``, ``<``, ``>``): a table comment
or a user's question can never close an element of the prompt or open a new one (issue 8,
defect 10). Text templates (``.md``, ``.txt``) take values as they are.

    PROMPTS = PromptSet("graphagents.agents.slotfill", "prompts")
    text = PROMPTS.render("extract.md", question=..., text=..., fields=...)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from xml.sax.saxutils import escape

from .errors import UsageError

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class PromptError(UsageError):
    """A template and the values given to it do not match, or the template file is missing."""


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    text: str
    escape_values: bool = False

    @cached_property
    def placeholders(self) -> frozenset[str]:
        return frozenset(PLACEHOLDER.findall(self.text))

    def render(self, values: Mapping[str, object] | None = None, /, **more: object) -> str:
        given = {**(values or {}), **more}
        missing = sorted(self.placeholders - set(given))
        if missing:
            raise PromptError(f"prompt {self.name!r} needs a value for {missing[0]!r}")
        unknown = sorted(set(given) - self.placeholders)
        if unknown:
            raise PromptError(f"prompt {self.name!r} has no placeholder {{{{{unknown[0]}}}}}")
        as_text = {k: escape(str(v)) if self.escape_values else str(v) for k, v in given.items()}
        return PLACEHOLDER.sub(lambda m: as_text[m.group(1)], self.text)


def template(text: str, *, name: str = "<inline>", xml: bool = False) -> PromptTemplate:
    """A template from a string (for small prompts passed as parameters, like a reprint prompt)."""
    return PromptTemplate(name, text, escape_values=xml)


@dataclass(frozen=True)
class PromptSet:
    """The templates of one package folder: ``PromptSet("graphagents.agents.text2sql.prompts")``."""

    package: str
    folder: str = ""

    def get(self, name: str) -> PromptTemplate:
        return _load(self.package, self.folder, name)

    def render(self, name: str, /, **values: object) -> str:
        return self.get(name).render(values)


@cache
def _load(package: str, folder: str, name: str) -> PromptTemplate:
    node = resources.files(package)
    if folder:
        node = node.joinpath(folder)
    try:
        text = node.joinpath(name).read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError):
        where = f"{package}/{folder}" if folder else package
        raise PromptError(f"no prompt {name!r} in {where!r}: is it listed as package data?") from None
    return PromptTemplate(f"{package}:{folder + '/' if folder else ''}{name}", text, name.endswith(".xml"))


__all__ = ["PLACEHOLDER", "PromptError", "PromptSet", "PromptTemplate", "template"]
