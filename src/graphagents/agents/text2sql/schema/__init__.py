"""Schema graph for the text2sql tools: table/column search, FK join paths, prompt text.

Import from here; the modules behind it (``model``, ``graph``, ``store``, ``neo4j_backend``) are
internals.
"""

from __future__ import annotations

from .graph import IMPORTANCE_FLOOR, SchemaGraph, importance_from_degrees, load_schema_graph
from .model import (
    ColumnHit,
    ColumnNode,
    JoinEdge,
    SchemaLookupError,
    TableHit,
    TableNode,
    parse_codes,
)
from .store import build_schema_graph

__all__ = [
    "IMPORTANCE_FLOOR",
    "ColumnHit",
    "ColumnNode",
    "JoinEdge",
    "SchemaGraph",
    "SchemaLookupError",
    "TableHit",
    "TableNode",
    "build_schema_graph",
    "importance_from_degrees",
    "load_schema_graph",
    "parse_codes",
]
