"""The composer's public records: what it needs (context) and what it answers (result)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from graphagents.sql import Database

    from ..schema import SchemaGraph

__all__ = ["ComposeContext", "ComposeResult", "ValueLink", "confidence_line", "stated_confidence"]


@dataclass(frozen=True)
class ValueLink:
    """A word of the question tied to a stored value: 서울 -> customers.region_code = 'SEL'."""

    natural: str
    table: str
    column: str
    value: Any

    def __str__(self) -> str:
        return f"{self.natural} → {self.table}.{self.column} = {self.value!r}"


@dataclass(frozen=True)
class ComposeResult:
    sql: str | None  # None when the question could not be turned into SQL
    reason: str  # what was understood (Korean with English names), or why it could not answer
    tables: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()  # "table.column" of every column the SQL reads
    value_links: tuple[ValueLink, ...] = ()
    shape: str = "unknown"  # lookup | filter | aggregate | group_by | top_n | join | date_range | ratio | ...
    confidence: float = 0.0  # 0 when declined; otherwise how sure the composer is (see compose._confidence)
    language: Literal["ko", "en"] = "ko"  # the question's language, which ``reason`` is written in

    @property
    def ok(self) -> bool:
        return self.sql is not None


@dataclass
class ComposeContext:
    """``mapper`` is optional: the composer finds values on its own from comments and lookup tables."""

    graph: SchemaGraph
    db: Database
    mapper: Any | None = None
    dialect: str = "sqlite"


_LEVELS = {"ko": ("높음", "보통", "낮음"), "en": ("high", "medium", "low")}
_LINE = {"ko": "확신도: {level} ({value:.2f})", "en": "Confidence: {level} ({value:.2f})"}
_STATED = re.compile(r"(?:확신도|Confidence):\s*\S+\s*\((\d(?:\.\d+)?)\)")


def confidence_line(value: float, lang: str) -> str:
    """The sentence every composed answer ends with: '확신도: 높음 (0.90)' / 'Confidence: high (0.90)'."""
    high, medium, low = _LEVELS["ko" if lang == "ko" else "en"]
    level = high if value >= 0.85 else medium if value >= 0.6 else low
    return _LINE["ko" if lang == "ko" else "en"].format(level=level, value=value)


def stated_confidence(reply: str | None) -> float | None:
    """The confidence a reply states (the last one, written by :func:`confidence_line`), if any."""
    found = _STATED.findall(reply or "")
    return float(found[-1]) if found else None
