"""Content-addressed table storage, so that graph state holds short ids instead of DataFrames.

LangGraph's checkpointer rewrites the whole state at every step; a state with tables in it
rewrites every table at every step. Here a table is stored once, as Parquet (zstd) under
``DATA_DIR/artifacts/tables``, named by a hash of its Arrow IPC bytes (the same bytes the sandbox
sends to its workers, so a worker that has an id cached never receives the table again). Recently
used tables stay decoded in an in-memory LRU bounded by bytes.

Parquet over pickle: loading a file never runs code; over Feather: smaller on disk and readable
by every data tool a user already has. Both need pyarrow, a dependency of the sandbox anyway.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from cachetools import LRUCache

from ..errors import InputError
from .codec import frame_to_ipc, make_arrow_safe

__all__ = ["ArtifactStore", "TableInfo", "get_store", "table_id_for"]

_ID = re.compile(r"^tbl_[0-9a-f]{32}$")


@dataclass(frozen=True)
class TableInfo:
    """What a planner or a page needs to know about a stored table without loading it."""

    id: str
    rows: int
    columns: tuple[str, ...]
    dtypes: tuple[str, ...]
    nbytes: int


def table_id_for(ipc: bytes) -> str:
    """The content address of a table's Arrow IPC bytes."""
    return "tbl_" + hashlib.blake2b(ipc, digest_size=16).hexdigest()


class ArtifactStore:
    """Tables by content id: Parquet files on disk, decoded frames in a byte-bounded LRU."""

    def __init__(self, root: str | Path | None = None, *, memory_bytes: int = 256 << 20) -> None:
        if root is None:
            from ..settings import get_settings

            root = get_settings().data_dir / "artifacts" / "tables"
        self.root = Path(root)
        self._frames: LRUCache[str, pd.DataFrame] = LRUCache(maxsize=memory_bytes, getsizeof=_frame_bytes)
        self._ipc: LRUCache[str, bytes] = LRUCache(maxsize=memory_bytes, getsizeof=len)
        self._lock = threading.Lock()

    def put(self, frame: pd.DataFrame) -> str:
        """Store ``frame`` (idempotent) and return its id. Mixed-type object columns become text."""
        if not isinstance(frame, pd.DataFrame):
            raise InputError(f"only DataFrames can be stored, not {type(frame).__name__}")
        safe, _ = make_arrow_safe(frame)
        ipc = frame_to_ipc(safe)
        table_id = table_id_for(ipc)
        path = self._path(table_id)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            table = pa.Table.from_pandas(safe, nthreads=1)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            os.close(fd)
            try:
                pq.write_table(table, tmp, compression="zstd")
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        with self._lock:
            self._frames[table_id] = safe
            self._ipc[table_id] = ipc
        return table_id

    def get(self, table_id: str) -> pd.DataFrame:
        """The table (a copy-on-write copy: changing it never changes the stored one)."""
        with self._lock:
            frame = self._frames.get(table_id)
        if frame is None:
            frame = self._load(table_id)
            with self._lock:
                self._frames[table_id] = frame
        return frame.copy(deep=False)

    def ipc(self, table_id: str) -> bytes:
        """Arrow IPC bytes of the table (what the sandbox sends to a worker)."""
        with self._lock:
            data = self._ipc.get(table_id)
        if data is None:
            data = frame_to_ipc(self.get(table_id))
            with self._lock:
                self._ipc[table_id] = data
        return data

    def info(self, table_id: str) -> TableInfo:
        frame = self.get(table_id)
        return TableInfo(
            id=table_id,
            rows=len(frame),
            columns=tuple(str(c) for c in frame.columns),
            dtypes=tuple(str(t) for t in frame.dtypes),
            nbytes=int(frame.memory_usage(deep=False).sum()),
        )

    def delete(self, table_id: str) -> bool:
        """Remove a table (a user deleted what they uploaded); False when it was not stored."""
        if not isinstance(table_id, str) or not _ID.match(table_id):
            return False
        with self._lock:
            self._frames.pop(table_id, None)
            self._ipc.pop(table_id, None)
        path = self._path(table_id)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        return True

    def __contains__(self, table_id: object) -> bool:
        if not isinstance(table_id, str) or not _ID.match(table_id):
            return False
        with self._lock:
            if table_id in self._frames:
                return True
        return self._path(table_id).exists()

    def _load(self, table_id: str) -> pd.DataFrame:
        if not isinstance(table_id, str) or not _ID.match(table_id):
            raise InputError(f"{table_id!r} is not a table id (tbl_ followed by 32 hex digits)")
        path = self._path(table_id)
        if not path.exists():
            raise InputError(f"no stored table {table_id!r} under {self.root}")
        return pq.read_table(path, use_threads=False).to_pandas(use_threads=False)

    def _path(self, table_id: str) -> Path:
        digest = table_id[4:]
        return self.root / digest[:2] / f"{digest}.parquet"


def _frame_bytes(frame: pd.DataFrame) -> int:
    return max(1, int(frame.memory_usage(deep=False, index=True).sum()))


_stores: dict[Path, ArtifactStore] = {}
_stores_lock = threading.Lock()


def get_store() -> ArtifactStore:
    """The process's store under the configured DATA_DIR (one per data dir: settings may change)."""
    from ..settings import get_settings

    root = get_settings().data_dir / "artifacts" / "tables"
    with _stores_lock:
        store = _stores.get(root)
        if store is None:
            store = _stores[root] = ArtifactStore(root)
        return store
