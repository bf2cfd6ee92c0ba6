"""Tables that users upload (HTTP ``POST /api/agents/tableqa/uploads``), owned per user.

An upload is read with the same readers as ``--table`` (:mod:`.tables`), stored in the artifact
store (its id is the table's content id, ``tbl_...``) and recorded for its user in
``ga_table_uploads``. A tableqa session names uploads in its ``tables`` option
(``["tbl_...", "name=tbl_..."]``); :func:`resolve_session_tables` accepts only the session user's
own uploads, so another user's id is "not found", exactly as on the HTTP side.

Deleting an upload removes the user's record, and the stored table too when no other user's
record names the same content. A user's uploads are exported and erased with the rest of their
data (a :func:`graphagents.userdata.register_user_data` hook).
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphagents.errors import InputError, UnknownSessionError
from graphagents.sandbox import ArtifactStore, get_store
from graphagents.store import Database, Migration, migrate

from .tables import NamedTable, load_table_source, table_name

__all__ = [
    "UPLOAD_SUFFIXES",
    "UnsupportedUpload",
    "Upload",
    "UploadNotFound",
    "Uploads",
    "resolve_session_tables",
]

UPLOAD_SUFFIXES = (".csv", ".tsv", ".tab", ".json", ".jsonl", ".ndjson", ".xlsx", ".xlsm", ".sqlite", ".sqlite3", ".db")
_ID = re.compile(r"^tbl_[0-9a-f]{32}$")
_NAMED_ID = re.compile(r"^(?:(\w+)=)?(tbl_[0-9a-f]{32})$")
_TABLE = "ga_table_uploads"
MAX_UPLOADS_PER_USER = 200
"""A user's uploads are capped (each is up to the size limit): the 201st is refused until some are deleted."""


class UnsupportedUpload(InputError):
    """The file's kind is not a table format we read (HTTP 415)."""


class UploadNotFound(UnknownSessionError):
    """No upload with this id for this user (HTTP 404; another user's id included)."""


@dataclass(frozen=True)
class Upload:
    id: str
    name: str
    rows: int
    columns: list[str]
    bytes: int
    created_at: float

    def public(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "rows": self.rows, "columns": list(self.columns),
                "bytes": self.bytes, "created_at": self.created_at}


def read_upload(filename: str, data: bytes, table: str | None = None) -> NamedTable:
    """One table from an uploaded file's bytes; ``table`` picks a sheet / SQLite table when the file
    holds several. Unsupported kinds raise :class:`UnsupportedUpload`, unreadable files InputError."""
    suffix = Path(filename or "").suffix.lower()
    if suffix not in UPLOAD_SUFFIXES:
        raise UnsupportedUpload(
            f"unsupported file type {suffix or '(none)'!r}: upload .csv, .tsv, .json, .jsonl, .xlsx or .sqlite")
    if not data:
        raise InputError(f"{filename!r} is empty")
    if table is not None and not re.fullmatch(r"[\w$ .-]{1,128}", table):
        raise InputError(f"bad table name {table[:40]!r}")
    with tempfile.TemporaryDirectory(prefix="ga-upload-") as tmp:
        path = Path(tmp) / f"upload{suffix}"
        path.write_bytes(data)
        source = f"{path}#{table}" if table else str(path)
        try:
            tables = load_table_source(source)
        except InputError as exc:
            raise InputError(str(exc).replace(str(path), filename).replace(tmp, "")) from None
        except Exception as exc:  # a reader's own error on a malformed file (zip, xml, sqlite header)
            first = (str(exc).splitlines() or [type(exc).__name__])[0][:160]
            raise InputError(f"cannot read {filename!r} as a table: {first}") from None
    if len(tables) != 1:
        names = ", ".join(t.source.rpartition("#")[2] for t in tables[:20])
        raise InputError(f"{filename!r} holds {len(tables)} tables ({names}); choose one with ?table=NAME")
    return NamedTable(table_name(table) if table else table_name(filename), tables[0].frame, filename)


_MIGRATIONS: list[Migration] = [
    # 1: one row per user and stored table
    [f"CREATE TABLE IF NOT EXISTS {_TABLE} ("
     " user_id TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, rows INTEGER NOT NULL,"
     " columns TEXT NOT NULL, bytes BIGINT NOT NULL, created_at DOUBLE PRECISION NOT NULL,"
     " PRIMARY KEY (user_id, id))"],
]


class Uploads:
    """The per-user upload records in the application database, plus the tables in the store."""

    def __init__(self, db: Database, store: ArtifactStore | None = None) -> None:
        self.db = db
        self.store = store or get_store()
        migrate(self.db, "tableqa.uploads", _MIGRATIONS)

    def add(self, user_id: str, filename: str, data: bytes, *, name: str | None = None,
            table: str | None = None) -> Upload:
        """Read, store and record one uploaded table (the same content again updates its name)."""
        parsed = read_upload(filename, data, table)
        return self.add_frame(user_id, table_name(name) if name else parsed.name, parsed.frame, nbytes=len(data))

    def add_frame(self, user_id: str, name: str, frame: Any, *, nbytes: int | None = None) -> Upload:
        """Record a DataFrame as one of the user's uploads (the library's and the eval's way in)."""
        count = self.db.fetchall(f"SELECT COUNT(*) FROM {_TABLE} WHERE user_id = ?", (user_id,))[0][0]
        if int(count) >= MAX_UPLOADS_PER_USER:
            raise InputError(f"you have {MAX_UPLOADS_PER_USER} uploaded tables, the most kept per user; "
                             "delete some (DELETE /api/agents/tableqa/uploads/{id}) first")
        table_id = self.store.put(frame)
        stored = self.store.get(table_id)
        size = nbytes if nbytes is not None else int(stored.memory_usage(deep=True).sum())
        upload = Upload(table_id, table_name(name), len(stored), [str(c) for c in stored.columns], size, time.time())
        self.db.execute(
            f"INSERT INTO {_TABLE} (user_id, id, name, rows, columns, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (user_id, id) DO UPDATE SET name = excluded.name, bytes = excluded.bytes,"
            " created_at = excluded.created_at",
            (user_id, upload.id, upload.name, upload.rows, json.dumps(upload.columns, ensure_ascii=False),
             upload.bytes, upload.created_at),
        )
        return upload

    def list(self, user_id: str) -> list[Upload]:
        rows = self.db.fetchall(
            f"SELECT id, name, rows, columns, bytes, created_at FROM {_TABLE} WHERE user_id = ?"
            " ORDER BY created_at, id", (user_id,))
        return [_upload(r) for r in rows]

    def get(self, user_id: str, upload_id: str) -> Upload:
        if not isinstance(upload_id, str) or not _ID.match(upload_id):
            raise UploadNotFound(f"no upload {str(upload_id)[:60]!r}")
        rows = self.db.fetchall(
            f"SELECT id, name, rows, columns, bytes, created_at FROM {_TABLE} WHERE user_id = ? AND id = ?",
            (user_id, upload_id))
        if not rows:
            raise UploadNotFound(f"no upload {upload_id!r}")
        return _upload(rows[0])

    def delete(self, user_id: str, upload_id: str) -> Upload:
        upload = self.get(user_id, upload_id)
        self.db.execute(f"DELETE FROM {_TABLE} WHERE user_id = ? AND id = ?", (user_id, upload_id))
        if not self.db.fetchall(f"SELECT 1 FROM {_TABLE} WHERE id = ?", (upload_id,)):
            self.store.delete(upload_id)
        return upload

    def forget(self, user_id: str, upload_id: str) -> None:
        """Remove the user's record only (the stored table stays for whoever else uses it)."""
        self.db.execute(f"DELETE FROM {_TABLE} WHERE user_id = ? AND id = ?", (user_id, upload_id))

    def delete_user(self, user_id: str) -> int:
        uploads = self.list(user_id)
        for upload in uploads:
            self.delete(user_id, upload.id)
        return len(uploads)


def _upload(row: tuple[Any, ...]) -> Upload:
    return Upload(str(row[0]), str(row[1]), int(row[2]), list(json.loads(row[3])), int(row[4]), float(row[5]))


def resolve_session_tables(uploads: Uploads, user_id: str, sources: list[str]) -> list[NamedTable]:
    """A session's ``tables`` option as tables: each entry is one of the user's uploads
    (``tbl_...``, named as uploaded, or ``name=tbl_...``). Anything else is an InputError."""
    out: list[NamedTable] = []
    seen: dict[str, int] = {}
    for raw in sources:
        match = _NAMED_ID.match(str(raw).strip())
        if match is None:
            raise InputError(f"session tables must be uploaded table ids (tbl_... or name=tbl_...), not "
                             f"{str(raw)[:80]!r}; files and URLs are agent options")
        label, table_id = match.groups()
        try:
            upload = uploads.get(user_id, table_id)
        except UploadNotFound:
            raise InputError(f"no uploaded table {table_id!r} for this user "
                             "(upload one with POST /api/agents/tableqa/uploads)") from None
        if table_id not in uploads.store:
            raise InputError(f"uploaded table {table_id!r} is no longer stored; upload it again")
        name = table_name(label) if label else upload.name
        n = seen.get(name, 0) + 1
        seen[name] = n
        out.append(NamedTable(name if n == 1 else f"{name}_{n}", uploads.store.get(table_id), table_id))
    return out
