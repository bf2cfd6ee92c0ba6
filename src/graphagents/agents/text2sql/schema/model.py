"""Records of the schema graph and how they are derived from :class:`~..db.SchemaInfo`.

A table's ``fingerprint`` covers everything its embedding texts are made of (names, types, keys,
comments), unlike :meth:`Database.fingerprint`, which leaves comments out: a comment edit must
re-embed that table even though the schema's identity (and so the memory/cache keys) is unchanged.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from graphagents.sql import ForeignKey, SchemaInfo, TableInfo

_TEXTISH = ("char", "text", "clob", "string", "citext", "uuid")
_CODE_NAME = re.compile(r"(_code|_cd|_type|_status|^status|_kind|_yn|_flag|^gender|_grade|_level|_class)$")
# "P=결제완료, S=배송중" / "(예: SEL=서울, BSN=부산)": short upper-case codes and their labels.
_CODE_PAIR = re.compile(r"(?<![\w'])([A-Z0-9]{1,8})\s*=\s*([^,;()=]+?)\s*(?=[,;)]|$)")
LOOKUP_TABLE_ROWS = 500  # at most this many rows: a code/lookup table whose text columns are worth sampling


class SchemaLookupError(LookupError):
    """A table or column name the schema does not have; the message lists what exists."""

    def __str__(self) -> str:  # LookupError would repr() the message
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class ColumnNode:
    name: str
    type: str
    comment: str = ""
    nullable: bool = True
    primary_key: bool = False
    samples: tuple[str, ...] = ()  # most frequent values, only for code-ish columns
    codes: tuple[tuple[str, str], ...] = ()  # (code, label) pairs parsed from the comment


@dataclass(frozen=True)
class TableNode:
    name: str
    comment: str
    columns: tuple[ColumnNode, ...]
    primary_key: tuple[str, ...]
    fks_out: tuple[ForeignKey, ...]
    fks_in: tuple[ForeignKey, ...]
    row_estimate: int | None
    kind: str = "table"
    fingerprint: str = ""

    def column(self, name: str) -> ColumnNode:
        for col in self.columns:
            if col.name == name or col.name.lower() == name.lower():
                return col
        known = ", ".join(c.name for c in self.columns)
        raise SchemaLookupError(f"unknown column {name!r} in table {self.name!r}; its columns: {known}")

    def fk_of(self, column: str) -> ForeignKey | None:
        return next((fk for fk in self.fks_out if fk.from_column == column), None)


@dataclass(frozen=True)
class JoinEdge:
    """One FK hop; ``on`` is ready for a JOIN clause."""

    from_table: str
    from_column: str
    to_table: str
    to_column: str

    @property
    def on(self) -> str:
        return f"{self.from_table}.{self.from_column} = {self.to_table}.{self.to_column}"


@dataclass(frozen=True)
class TableHit:
    table: str
    score: float
    similarity: float
    importance: float
    comment: str
    columns: tuple[str, ...]


@dataclass(frozen=True)
class ColumnHit:
    table: str
    column: str
    type: str
    comment: str
    score: float
    samples: tuple[str, ...] = field(default=())


def is_textish(type_name: str) -> bool:
    return not type_name or any(word in type_name.lower() for word in _TEXTISH)


def parse_codes(comment: str) -> tuple[tuple[str, str], ...]:
    """Code/label pairs documented in a comment: "P=결제완료, D=배송완료" -> (("P","결제완료"), ...)."""
    return tuple((code, label.strip()) for code, label in _CODE_PAIR.findall(comment or "") if label.strip())


def is_codeish(table: TableInfo, column_name: str, type_name: str, comment: str) -> bool:
    """Columns whose stored values are codes or lookup names: the ones worth sampling and mapping."""
    if not is_textish(type_name):
        return False
    if _CODE_NAME.search(column_name.lower()) or parse_codes(comment):
        return True
    return table.row_estimate is not None and table.row_estimate <= LOOKUP_TABLE_ROWS and not table.foreign_keys


def humanise(identifier: str) -> str:
    """``order_items`` -> ``order items``: the encoder reads words, not snake case."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", identifier).replace("_", " ").replace(".", " ").strip()


_PHRASE_SPLIT = re.compile(r"[.,;:()\[\]=/·~]|\s[-*+]\s|이며|이다|으로|에서")
MAX_PHRASES = 6


def phrases(comment: str) -> list[str]:
    """Short phrases of a comment, each embedded on its own.

    The encoder matches one word across languages well ("revenue" ~ "매출": 0.68) but scores it
    against a whole comment sentence poorly (0.02), so a table or column is represented by several
    vectors and its similarity is the best of them.
    """
    out: list[str] = []
    for part in _PHRASE_SPLIT.split(comment or ""):
        part = part.strip(" '\"`*")
        if len(part) >= 2 and not part.isdigit() and part not in out:
            out.append(part)
    return out[:MAX_PHRASES]


def table_text(node: TableNode) -> str:
    return f"{humanise(node.name)}: {node.comment}".strip().rstrip(":")


def column_text(node: TableNode, col: ColumnNode) -> str:
    return f"{humanise(node.name)} {humanise(col.name)}: {col.comment}".strip().rstrip(":")


def table_segments(node: TableNode) -> list[str]:
    """Texts embedded for a table: the full description first, then its name and comment phrases."""
    return list(dict.fromkeys([table_text(node), humanise(node.name), *phrases(node.comment)]))


def column_segments(node: TableNode, col: ColumnNode) -> list[str]:
    return list(dict.fromkeys([column_text(node, col), humanise(col.name), *phrases(col.comment)]))


def segment_texts(nodes: Iterable[TableNode]) -> list[str]:
    """Every distinct text a graph over ``nodes`` needs a vector for."""
    texts: dict[str, None] = {}
    for n in nodes:
        texts.update(dict.fromkeys(table_segments(n)))
        for c in n.columns:
            texts.update(dict.fromkeys(column_segments(n, c)))
    return list(texts)


def _fingerprint(info: TableInfo) -> str:
    blob = json.dumps(
        [info.name, info.kind, info.comment or "",
         [[c.name, c.type, c.nullable, c.primary_key, c.comment or ""] for c in info.columns],
         sorted([fk.from_column, fk.to_table, fk.to_column] for fk in info.foreign_keys)],
        ensure_ascii=False, separators=(",", ":"),
    )  # fmt: skip
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


Sampler = Callable[[str, str], Sequence[Any]]


def nodes_from_schema(
    schema: SchemaInfo,
    *,
    sampler: Sampler | None = None,
    reuse: dict[str, TableNode] | None = None,
) -> list[TableNode]:
    """Table nodes with FKs in both directions; samples come from ``reuse`` when a table is unchanged.

    ``sampler(table, column)`` is called only for code-ish columns of new or changed tables; a
    failing sampler (timeout, permissions) leaves the column without samples instead of failing.
    """
    names = {t.name for t in schema.tables}
    incoming: dict[str, list[ForeignKey]] = {t.name: [] for t in schema.tables}
    for t in schema.tables:
        for fk in t.foreign_keys:
            if fk.to_table in incoming:
                incoming[fk.to_table].append(fk)
    nodes = []
    for info in schema.tables:
        fp = _fingerprint(info)
        old = (reuse or {}).get(info.name)
        fks_out = tuple(fk for fk in info.foreign_keys if fk.to_table in names)
        fks_in = tuple(sorted(incoming[info.name], key=lambda f: (f.from_table, f.from_column)))
        if old is not None and old.fingerprint == fp:
            nodes.append(TableNode(old.name, old.comment, old.columns, old.primary_key, fks_out, fks_in,
                                   info.row_estimate, info.kind, fp))
            continue
        columns = []
        for c in info.columns:
            comment = c.comment or ""
            samples: tuple[str, ...] = ()
            if sampler is not None and is_codeish(info, c.name, c.type, comment):
                try:
                    samples = tuple(str(v) for v in sampler(info.name, c.name))
                except Exception:  # noqa: BLE001 - samples are a hint; the schema is still usable
                    samples = ()
            columns.append(ColumnNode(c.name, c.type, comment, c.nullable, c.primary_key, samples,
                                      parse_codes(comment)))
        nodes.append(TableNode(info.name, info.comment or "", tuple(columns),
                               tuple(c.name for c in info.columns if c.primary_key), fks_out, fks_in,
                               info.row_estimate, info.kind, fp))
    return nodes


def node_to_json(node: TableNode) -> dict[str, Any]:
    return asdict(node)


def node_from_json(data: dict[str, Any]) -> TableNode:
    cols = tuple(
        ColumnNode(c["name"], c["type"], c["comment"], c["nullable"], c["primary_key"], tuple(c["samples"]),
                   tuple((a, b) for a, b in c["codes"]))
        for c in data["columns"]
    )  # fmt: skip
    fks = [tuple(ForeignKey(**fk) for fk in data[key]) for key in ("fks_out", "fks_in")]
    return TableNode(data["name"], data["comment"], cols, tuple(data["primary_key"]), fks[0], fks[1],
                     data["row_estimate"], data["kind"], data["fingerprint"])


def fk_degree(nodes: Iterable[TableNode]) -> dict[str, tuple[int, int]]:
    """(incoming, outgoing) FK counts per table, self-references counted once each way."""
    return {n.name: (len(n.fks_in), len(n.fks_out)) for n in nodes}
