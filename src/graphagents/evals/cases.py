"""Cases and datasets: what an evaluation asks, and what it expects back.

A :class:`Case` is one question (or one scripted dialog, one cache pair ...) with its expected
answer, kept as JSON-able values so a report can show both. A :class:`Dataset` is a named, ordered
tuple of cases: ``dev`` (what an agent is tuned on), ``heldout`` (questions written and frozen
before tuning) or a file the user passes, in the same schema as the agent's dev file
(docs/evaluation.md lists each agent's schema).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal

from ..errors import InputError

__all__ = ["STATUSES", "Case", "Dataset", "Source", "Status", "read_jsonl", "require"]

Status = Literal["right", "partial", "declined", "wrong"]
"""How a case went, from the user's side: ``right``; ``partial`` (true but incomplete); ``declined``
(the agent said plainly it could not, and nothing false was claimed); ``wrong`` (an answer that is
not the expected one, which a user may not be able to tell from a right one)."""

STATUSES: tuple[Status, ...] = ("right", "partial", "declined", "wrong")

Source = Path | Traversable
"""A dataset file or folder: a path, or a resource inside an installed package."""


@dataclass(frozen=True)
class Case:
    """One evaluated item. ``input`` is what the user sends (usually the question text; a dialog's
    turns for a scripted conversation), ``expected`` the gold (JSON-able), ``metadata`` whatever
    the agent's scorer and figures need (``kind``, ``category``, ``lang`` ...)."""

    id: str
    input: Any
    expected: Any = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """The case's kind when a dataset mixes several (rag: questions, cache pairs, emergencies)."""
        return str(self.metadata.get("kind") or "case")

    @property
    def question(self) -> str:
        """A one-line description of the input for reports."""
        shown = self.metadata.get("question")
        if shown is None:
            shown = self.input if isinstance(self.input, str) else json.dumps(self.input, ensure_ascii=False)
        return " ".join(str(shown).split())


@dataclass(frozen=True)
class Dataset:
    """Named cases. ``sources`` says where they were read from (for the report)."""

    name: str
    cases: tuple[Case, ...]
    sources: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for case in self.cases:
            if case.id in seen:
                raise InputError(f"dataset {self.name!r}: case id {case.id!r} appears twice; ids must be unique")
            seen.add(case.id)

    def __len__(self) -> int:
        return len(self.cases)

    def limit(self, n: int | None) -> Dataset:
        """The first ``n`` cases of each kind (a dataset that mixes questions and cache pairs keeps
        some of both), in their original order."""
        if n is None:
            return self
        if n < 1:
            raise InputError(f"--limit must be at least 1, not {n}")
        taken: dict[str, int] = {}
        kept = []
        for case in self.cases:
            if taken.get(case.kind, 0) < n:
                taken[case.kind] = taken.get(case.kind, 0) + 1
                kept.append(case)
        return Dataset(self.name, tuple(kept), self.sources)

    @staticmethod
    def combine(name: str, parts: Sequence[Dataset]) -> Dataset:
        return Dataset(name, tuple(c for p in parts for c in p.cases), tuple(s for p in parts for s in p.sources))


def read_jsonl(source: Source) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file; a bad line is a one-line :class:`InputError` naming it."""
    name = getattr(source, "name", str(source))
    try:
        text = source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {str(source)!r}: {exc}") from None
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{name} line {n}: invalid JSON: {exc}") from None
        if not isinstance(row, dict):
            raise InputError(f"{name} line {n}: expected a JSON object")
        rows.append(row)
    return rows


def require(row: Mapping[str, Any], keys: Iterable[str], where: str) -> None:
    """Raise a one-line InputError when ``row`` lacks one of ``keys``."""
    missing = [k for k in keys if k not in row]
    if missing:
        raise InputError(f"{where}: missing {', '.join(missing)}")
