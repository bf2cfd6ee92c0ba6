"""Typed artifacts: what a turn produced besides its reply (SQL, tables, charts, citations ...).

An agent hands them to the runtime through ``AgentSpec.artifacts`` (a function of the final graph
state; by default the state key ``"artifacts"``), the runtime puts them on ``FinalEvent.artifacts``
and ``Reply.artifacts``, and the CLI and the web page render each *kind* the same way whichever
agent produced it. Each artifact serialises to ``{"kind": ..., "title": ..., <fields>}``.

    sql                 SqlArtifact(sql, dialect)
    table               TableArtifact(columns, rows, total_rows, truncated)
    intermediate_table  IntermediateTableArtifact(columns, rows, total_rows, truncated, step)
    chart               ChartArtifact(spec)          a small Vega-Lite subset (mark, data.values, x/y)
    citation            CitationArtifact(source, text, url, ref)
    document            DocumentArtifact(id, text, metadata)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

__all__ = [
    "Artifact",
    "ArtifactKind",
    "ChartArtifact",
    "CitationArtifact",
    "DocumentArtifact",
    "IntermediateTableArtifact",
    "SqlArtifact",
    "TableArtifact",
    "artifact_from_dict",
    "artifacts_from_state",
]

ArtifactKind = Literal["sql", "table", "intermediate_table", "chart", "citation", "document"]


@dataclass(frozen=True)
class Artifact:
    kind: ClassVar[ArtifactKind]
    title: str = field(default="", kw_only=True)
    """A short caption shown above the artifact ("월별 주문 건수", "Step 2: join")."""

    def to_dict(self) -> dict[str, Any]:
        from .events import jsonable

        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {"kind": self.kind, **jsonable(data)}


@dataclass(frozen=True)
class SqlArtifact(Artifact):
    kind: ClassVar[ArtifactKind] = "sql"
    sql: str
    dialect: str = ""


@dataclass(frozen=True)
class TableArtifact(Artifact):
    """Rows as lists in column order. When ``rows`` is a prefix of the result: ``truncated`` is true
    and ``total_rows`` is the true count when it was counted (None: "at least this many")."""

    kind: ClassVar[ArtifactKind] = "table"
    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    total_rows: int | None = None
    truncated: bool = False


@dataclass(frozen=True)
class IntermediateTableArtifact(TableArtifact):
    """A table a step produced on the way to the answer (a join, a filter); ``step`` names it."""

    kind: ClassVar[ArtifactKind] = "intermediate_table"
    step: str = ""


@dataclass(frozen=True)
class ChartArtifact(Artifact):
    """A chart as a Vega-Lite spec. The built-in renderers draw the subset ``mark`` in
    ``bar``/``line``, ``data.values`` and ``encoding.x.field`` / ``encoding.y.field``; a full
    Vega-Lite front end can render the same spec."""

    kind: ClassVar[ArtifactKind] = "chart"
    spec: Mapping[str, Any]


@dataclass(frozen=True)
class CitationArtifact(Artifact):
    """A source the reply relies on; ``ref`` is the marker used in the reply text ("[1]")."""

    kind: ClassVar[ArtifactKind] = "citation"
    source: str
    text: str = ""
    url: str | None = None
    ref: str = ""


@dataclass(frozen=True)
class DocumentArtifact(Artifact):
    kind: ClassVar[ArtifactKind] = "document"
    id: str
    text: str
    metadata: Mapping[str, Any] = field(default_factory=dict)


_KINDS: dict[str, type[Artifact]] = {
    cls.kind: cls
    for cls in (SqlArtifact, TableArtifact, IntermediateTableArtifact, ChartArtifact, CitationArtifact,
                DocumentArtifact)
}


def artifact_from_dict(data: Mapping[str, Any]) -> Artifact:
    """The inverse of ``Artifact.to_dict`` (for artifacts kept in graph state as plain dicts)."""
    kind = data.get("kind")
    cls = _KINDS.get(str(kind))
    if cls is None:
        raise ValueError(f"unknown artifact kind {kind!r}; kinds: {', '.join(sorted(_KINDS))}")
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


def artifacts_from_state(values: Mapping[str, Any]) -> list[Artifact]:
    """The default ``AgentSpec.artifacts``: the state key ``"artifacts"``, holding Artifact
    objects or their dicts (dicts survive any checkpointer serialiser)."""
    items = values.get("artifacts") or []
    return [item if isinstance(item, Artifact) else artifact_from_dict(item) for item in items]
