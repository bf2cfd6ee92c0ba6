"""Values across the process boundary without pickle: JSON for plain values, Arrow IPC for tables.

``encode_value`` runs in the sandboxed child and caps what it sends (rows, items, characters);
``decode_value`` runs in the caller on bytes it does not trust, so it parses, validates and
rebuilds, never unpickles. Table bytes are also what the artifact store hashes into ids.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

__all__ = ["Encoded", "decode_value", "encode_value", "frame_from_ipc", "frame_to_ipc", "make_arrow_safe"]

Encoded = tuple[dict[str, Any], list[bytes]]


def frame_to_ipc(frame: pd.DataFrame) -> bytes:
    """Arrow IPC stream bytes of ``frame`` (index kept when it is not a plain range)."""
    table = pa.Table.from_pandas(frame, nthreads=1)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def frame_from_ipc(data: bytes | bytearray | memoryview) -> pd.DataFrame:
    """Rebuild a DataFrame from Arrow IPC bytes, validating them first (they may be hostile)."""
    reader = pa.ipc.open_stream(pa.py_buffer(data))
    table = reader.read_all()
    table.validate(full=True)
    return table.to_pandas(use_threads=False)


def make_arrow_safe(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """A frame Arrow can store: duplicate column names numbered, mixed object columns as text.

    Returns the frame and notes on what changed (shown to the coder, so nothing changes silently).
    """
    notes: list[str] = []
    if frame.columns.has_duplicates:
        seen: dict[Any, int] = {}
        names = []
        for col in frame.columns:
            n = seen.get(col, 0)
            seen[col] = n + 1
            names.append(col if n == 0 else f"{col}.{n}")
        frame = frame.set_axis(names, axis=1)
        notes.append("duplicate column names were numbered")
    for position, col in enumerate(frame.columns):
        series = frame.iloc[:, position]
        if series.dtype != object:
            continue
        try:
            pa.array(series, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
            text = series.map(lambda v: v if v is None or (isinstance(v, float) and math.isnan(v)) else str(v))
            frame = frame.copy(deep=False)
            frame.isetitem(position, text.astype(object))
            notes.append(f"column {col!r} mixed types and was converted to text")
    return frame, notes


def encode_value(
    value: Any, *, max_rows: int, max_items: int, max_chars: int
) -> Encoded:
    """``(header, blobs)`` for a result value; the header has ``kind`` and ``truncated``."""
    if isinstance(value, pd.Series):
        name = value.name
        frame = value.to_frame(name="value" if name is None else name)
        header, blobs = _encode_frame(frame, max_rows)
        header.update(kind="series", series_name=_jsonable(name, max_items, max_chars)[0])
        return header, blobs
    if isinstance(value, pd.DataFrame):
        return _encode_frame(value, max_rows)
    if isinstance(value, pd.Index):
        value = value.tolist()
    elif isinstance(value, np.ndarray):
        value = value.tolist() if value.size <= max_items else value.ravel()[:max_items].tolist()
    data, truncated = _jsonable(value, max_items, max_chars)
    if isinstance(data, dict) and "$repr" in data and len(data) == 1:
        return {"kind": "text", "value": data["$repr"], "truncated": truncated}, []
    kind = "list" if isinstance(data, list) else "dict" if isinstance(data, dict) else "scalar"
    if value is None:
        kind = "none"
    return {"kind": kind, "value": data, "truncated": truncated}, []


def _encode_frame(frame: pd.DataFrame, max_rows: int) -> Encoded:
    rows = len(frame)
    truncated = rows > max_rows
    if truncated:
        frame = frame.iloc[:max_rows]
    frame, notes = make_arrow_safe(frame)
    header = {"kind": "table", "rows_total": rows, "truncated": truncated, "notes": notes}
    return header, [frame_to_ipc(frame)]


def _jsonable(value: Any, max_items: int, max_chars: int) -> tuple[Any, bool]:
    """JSON-safe form with type tags for what JSON lacks; the bool says whether anything was cut."""
    budget = [max_items]
    cut = [False]

    def conv(v: Any, depth: int) -> Any:
        if v is None or isinstance(v, bool | int | str):
            if isinstance(v, str) and len(v) > max_chars:
                cut[0] = True
                return v[:max_chars]
            if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2**63:
                try:
                    return {"$int": str(v)}
                except ValueError:  # more digits than int->str allows
                    cut[0] = True
                    return {"$repr": f"<int of {v.bit_length()} bits>"}
            return v
        if isinstance(v, float):
            return v if math.isfinite(v) else {"$float": repr(v)}
        if isinstance(v, np.generic):
            return conv(v.item(), depth)
        if v is pd.NaT or v is pd.NA:
            return None
        if isinstance(v, pd.Timestamp | dt.datetime):
            return {"$datetime": v.isoformat()}
        if isinstance(v, dt.date):
            return {"$date": v.isoformat()}
        if isinstance(v, pd.Timedelta | dt.timedelta):
            return {"$timedelta": pd.Timedelta(v).isoformat()}
        if isinstance(v, decimal.Decimal):
            return {"$decimal": str(v)}
        if isinstance(v, list | tuple | set | frozenset) and depth < 6:
            items = sorted(v, key=repr) if isinstance(v, set | frozenset) else list(v)
            out = []
            for item in items:
                if budget[0] <= 0:
                    cut[0] = True
                    break
                budget[0] -= 1
                out.append(conv(item, depth + 1))
            return out
        if isinstance(v, dict) and depth < 6:
            out_d: dict[str, Any] = {}
            for key, item in v.items():
                if budget[0] <= 0:
                    cut[0] = True
                    break
                budget[0] -= 1
                out_d[key if isinstance(key, str) else repr(key)] = conv(item, depth + 1)
            return out_d
        text = repr(v)
        if len(text) > max_chars:
            cut[0] = True
            text = text[:max_chars]
        return {"$repr": text}

    return conv(value, 0), cut[0]


def decode_value(header: dict[str, Any], blobs: list[memoryview]) -> Any:
    """The value described by ``header`` (from :func:`encode_value`), rebuilt in the caller."""
    kind = header.get("kind")
    if kind in ("table", "series"):
        if len(blobs) != 1:
            raise ValueError("a table result needs exactly one blob")
        frame = frame_from_ipc(blobs[0])
        if kind == "series":
            if frame.shape[1] != 1:
                raise ValueError("a series result needs exactly one column")
            series = frame.iloc[:, 0]
            return series.rename(_from_json(header.get("series_name")))
        return frame
    return _from_json(header.get("value"))


def _from_json(v: Any) -> Any:
    if isinstance(v, list):
        return [_from_json(x) for x in v]
    if isinstance(v, dict):
        if len(v) == 1:
            (tag, raw), = v.items()
            if tag == "$float":
                return float(raw)
            if tag == "$int":
                return int(raw)
            if tag == "$datetime":
                return pd.Timestamp(raw)
            if tag == "$date":
                return dt.date.fromisoformat(raw)
            if tag == "$timedelta":
                return pd.Timedelta(raw)
            if tag == "$decimal":
                return decimal.Decimal(raw)
            if tag == "$repr":
                return raw
        return {k: _from_json(x) for k, x in v.items()}
    return v
