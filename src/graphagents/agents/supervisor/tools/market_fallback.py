"""The market tool's own parameterised query, used only when the text2sql sub-agent declines.

The offline text2sql brain links a region to *whole* stored values, so a user's table whose region
column holds full addresses ("서울특별시 강남구 역삼동") gives it nothing to link "강남구" to. The
supervisor knows what it is looking for (a 구 or a complex name the planner normalised), so it can
ask the database itself: find the transactions table by its columns (amount, area, contract month:
the same aliases the analysis reads), find the column whose stored values contain the region or the
complex, and select the rows with one ``LIKE ?`` parameter. Names come from introspection (quoted by
the core's read-only database layer), the user's words only ever travel as a bound parameter, and
the connection is the read-only one of :mod:`graphagents.sql`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from sqlglot import exp

from ..analysis.market import _ALIASES

_NEEDED = ("amount_manwon", "area_m2", "contract_ym")
_REGION_FIRST = ("sigungu",)
_COMPLEX_FIRST = ("complex",)
MAX_ROWS = 5000

_MAX_OPEN = 8
_open: dict[str, Any] = {}
_open_lock = threading.Lock()


def _database(url: str) -> Any:
    from graphagents.sql import open_database

    with _open_lock:
        db = _open.get(url)
        if db is None:
            db = _open[url] = open_database(url)
            if len(_open) > _MAX_OPEN:  # a bounded number of databases stay open (their pools)
                oldest = next(iter(_open))
                _open.pop(oldest).close()
        return db


def _fields(columns: list[str]) -> dict[str, str]:
    """Our field name -> the table's column name, by the analysis' aliases."""
    lowered = {c.strip().lower(): c for c in columns}
    found: dict[str, str] = {}
    for field, names in _ALIASES.items():
        for name in names:
            if name.lower() in lowered:
                found[field] = lowered[name.lower()]
                break
    return found


def _textish(type_name: str) -> bool:
    t = (type_name or "").lower()
    return not t or any(k in t for k in ("char", "text", "clob", "string"))


def _plain(value: Any) -> Any:
    """A cell as JSON keeps it (Decimal, date ... become text)."""
    return value if value is None or isinstance(value, int | float | str) else str(value)


def _quote(db: Any, *parts: str) -> str:
    return ".".join(exp.to_identifier(p, quoted=True).sql(dialect=db.dialect) for p in parts)


def fallback_query(url: str, entities: Mapping[str, Any]) -> dict[str, Any] | None:
    """Rows of the transactions table whose region (or complex) column contains the place the user
    named; None when no table has the needed columns or no column holds the place."""
    complex_name = entities.get("complex")
    region = (entities.get("region") or {}).get("sigungu")
    term = complex_name or region
    if not term:
        return None
    db = _database(url)
    schema = db.introspect()
    candidates = []
    for table in schema.tables:
        names = [c.name for c in table.columns]
        fields = _fields(names)
        if all(f in fields for f in _NEEDED):
            candidates.append((len(fields), table, fields))
    for _, table, fields in sorted(candidates, key=lambda c: -c[0]):
        preferred = [fields[f] for f in (_COMPLEX_FIRST if complex_name else _REGION_FIRST) if f in fields]
        text_cols = [c.name for c in table.columns if c.name not in preferred and c.name not in fields.values()
                     and _textish(c.type)]
        for column in [*preferred, *text_cols]:
            if not db.search_values(table.name, column, term, limit=1):
                continue
            relation = _quote(db, *([table.schema, table.relation] if table.schema else [table.relation]))
            col = _quote(db, column)
            like = "ILIKE" if db.dialect == "postgres" else "LIKE"
            pattern = "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            sql = (f"SELECT * FROM {relation} WHERE CAST({col} AS TEXT) {like} {db.placeholder} ESCAPE '\\'")
            result = db.fetch(sql, [pattern], max_rows=MAX_ROWS, timeout_s=10.0)
            return {"sql": sql, "params": [pattern], "table_name": table.name, "column": column, "term": term,
                    "table": {"columns": list(result.columns), "rows": [[_plain(v) for v in r] for r in result.rows]},
                    "truncated": result.truncated}
    return None
