"""The composer's public records: what it needs (context) and what it answers (result)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..db import Database
    from ..schema import SchemaGraph

__all__ = ["ComposeContext", "ComposeResult", "ValueLink"]


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
    confidence: float = 0.0

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
