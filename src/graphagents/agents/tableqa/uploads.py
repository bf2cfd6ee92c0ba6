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
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphagents.errors import InputError, UnknownSessionError
from graphagents.isolation import IsolatedRunner, ProcessLimits
from graphagents.sandbox import ArtifactStore, get_store
from graphagents.store import Database, Migration, migrate
from graphagents.userdata import UserScope

from .tables import NamedTable, ReadLimits, TableTooLarge, TooManyTables, load_table_source, table_name

__all__ = [
    "UPLOAD_SUFFIXES",
    "UnsupportedUpload",
    "Upload",
    "UploadNotFound",
    "UploadSettings",
    "Uploads",
    "check_session_tables",
    "resolve_session_tables",
    "upload_runner",
]

UPLOAD_SUFFIXES = (".csv", ".tsv", ".tab", ".json", ".jsonl", ".ndjson", ".xlsx", ".xlsm", ".sqlite", ".sqlite3", ".db")
_ID = re.compile(r"^tbl_[0-9a-f]{32}$")
_NAMED_ID = re.compile(r"^(?:(\w+)=)?(tbl_[0-9a-f]{32})$")
_TABLE = "ga_table_uploads"
MAX_UPLOADS_PER_USER = 200
"""A user's uploads are capped (each is up to the size limit): the 201st is refused until some are deleted."""


class UnsupportedUpload(InputError):
    """The file's kind is not a table format we read (HTTP 415)."""


class UploadSettings(BaseSettings):
    """How much one upload may cost (``GRAPHAGENTS_UPLOAD_*``): what the readers check while they
    read, and the limits of the child process that reads (see :mod:`graphagents.isolation`)."""

    model_config = SettingsConfigDict(env_prefix="GRAPHAGENTS_UPLOAD_", env_file=".env", extra="ignore")

    max_rows: int = Field(1_000_000, ge=1, description="rows of one uploaded table")
    max_columns: int = Field(1_000, ge=1, description="columns of one uploaded table")
    max_cells: int = Field(5_000_000, ge=1, description="rows x columns of one uploaded table")
    max_cell_bytes: int = Field(1_000_000, ge=1000, description="bytes of one SQLite value")
    max_text_mb: int = Field(256, ge=1, description="expanded size: decoded text, an XLSX's unzipped parts, cells")
    seconds: float = Field(30.0, gt=0, le=3600, description="wall-clock seconds to read one upload")
    cpu_seconds: float = Field(30.0, gt=0, le=3600, description="CPU seconds to read one upload")
    memory_mb: int = Field(1536, ge=64, description="memory (MB) the reader may use besides pandas itself")
    workers: int = Field(2, ge=1, le=64, description="uploads read at once per server process")
    queue: int = Field(8, ge=0, le=1000, description="uploads that may wait for a reader (503 beyond)")

    def read_limits(self) -> ReadLimits:
        return ReadLimits(rows=self.max_rows, columns=self.max_columns, cells=self.max_cells,
                          cell_bytes=self.max_cell_bytes, text_bytes=self.max_text_mb << 20, tables=1,
                          seconds=self.seconds)

    def process_limits(self) -> ProcessLimits:
        return ProcessLimits(seconds=self.seconds, cpu_seconds=self.cpu_seconds, memory_mb=self.memory_mb)


_runner: IsolatedRunner | None = None
_runner_lock = threading.Lock()


def upload_runner(settings: UploadSettings | None = None) -> IsolatedRunner:
    """The process's pool of upload readers (its own threads and child processes; turns never use it)."""
    global _runner
    with _runner_lock:
        if _runner is None:
            settings = settings or UploadSettings()
            _runner = IsolatedRunner("uploads", workers=settings.workers, queue=settings.queue,
                                     preload=[__name__],
                                     errors={"TableTooLarge": TableTooLarge, "UnsupportedUpload": UnsupportedUpload})
        return _runner


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


def _check_upload(filename: str, size: int, table: str | None) -> str:
    suffix = Path(filename or "").suffix.lower()
    if suffix not in UPLOAD_SUFFIXES:
        raise UnsupportedUpload(
            f"unsupported file type {suffix or '(none)'!r}: upload .csv, .tsv, .json, .jsonl, .xlsx or .sqlite")
    if not size:
        raise InputError(f"{filename!r} is empty")
    if table is not None and not re.fullmatch(r"[\w$ .-]{1,128}", table):
        raise InputError(f"bad table name {table[:40]!r}")
    return suffix


def read_upload(filename: str, data: bytes, table: str | None = None, limits: ReadLimits | None = None) -> NamedTable:
    """One table from an uploaded file's bytes, in this process; ``table`` picks a sheet / SQLite
    table when the file holds several. Unsupported kinds raise :class:`UnsupportedUpload`, tables
    over ``limits`` :class:`TableTooLarge`, unreadable files InputError. The server reads uploads
    in a child process instead (:meth:`Uploads.add`)."""
    suffix = _check_upload(filename, len(data), table)
    with tempfile.TemporaryDirectory(prefix="ga-upload-") as tmp:
        path = Path(tmp) / f"upload{suffix}"
        path.write_bytes(data)
        return _read_path(path, filename, table, limits or UploadSettings().read_limits())


def _read_path(path: Path, filename: str, table: str | None, limits: ReadLimits) -> NamedTable:
    source = f"{path}#{table}" if table else str(path)
    tmp = str(path.parent)
    try:
        tables = load_table_source(source, limits)
    except TableTooLarge as exc:
        raise TableTooLarge(_hide(str(exc), path, tmp, filename)) from None
    except TooManyTables as exc:
        names = ", ".join(exc.names[:20]) + (", ..." if len(exc.names) > 20 else "")
        count = f"{len(exc.names)}" if len(exc.names) <= 20 else "more than 20"  # the reader lists up to 21
        raise InputError(f"{filename!r} holds {count} tables ({names}); choose one with ?table=NAME") from None
    except InputError as exc:
        raise InputError(_hide(str(exc), path, tmp, filename)) from None
    except Exception as exc:  # a reader's own error on a malformed file (zip, xml, sqlite header)
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:160]
        raise InputError(f"cannot read {filename!r} as a table: {_hide(first, path, tmp, filename)}") from None
    if len(tables) != 1:
        names = ", ".join(t.source.rpartition("#")[2] for t in tables[:20])
        raise InputError(f"{filename!r} holds {len(tables)} tables ({names}); choose one with ?table=NAME")
    return NamedTable(table_name(table) if table else table_name(filename), tables[0].frame, filename)


def _hide(text: str, path: Path, tmp: str, filename: str) -> str:
    """The server's temporary path never reaches the user: the file is called by its own name."""
    return text.replace(str(path), filename).replace(path.name, filename).replace(tmp, "")


def parse_stored(path: str, filename: str, table: str | None, store_root: str,
                 limits: dict[str, Any]) -> dict[str, Any]:
    """The child's side of :meth:`Uploads.add`: read the file under ``limits`` and store the table
    (the server's process never holds the frame); the answer is the table's id and shape."""
    parsed = _read_path(Path(path), filename, table, ReadLimits(**limits))
    store = ArtifactStore(store_root)
    table_id = store.put(parsed.frame)
    return {"id": table_id, "name": parsed.name, "rows": len(parsed.frame),
            "columns": [str(c) for c in parsed.frame.columns]}


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
            table: str | None = None, settings: UploadSettings | None = None) -> Upload:
        """Read, store and record one uploaded table (the same content again updates its name).

        The file is read in a child process of :func:`upload_runner` under ``settings``' limits
        (``GRAPHAGENTS_UPLOAD_*``): a file over them is :class:`TableTooLarge` or
        :class:`~graphagents.isolation.LimitExceeded` (HTTP 413) within seconds, and the memory its
        reading took goes back with the child."""
        settings = settings or UploadSettings()
        suffix = _check_upload(filename, len(data), table)
        self._check_quota(user_id)
        with tempfile.TemporaryDirectory(prefix="ga-upload-") as tmp:
            path = Path(tmp) / f"upload{suffix}"
            path.write_bytes(data)
            parsed = upload_runner(settings).run(
                f"{__name__}:parse_stored", str(path), filename, table, str(self.store.root),
                asdict(settings.read_limits()), limits=settings.process_limits())
        upload = Upload(str(parsed["id"]), table_name(name) if name else str(parsed["name"]), int(parsed["rows"]),
                        [str(c) for c in parsed["columns"]], len(data), time.time())
        return self._record(user_id, upload)

    def add_frame(self, user_id: str, name: str, frame: Any, *, nbytes: int | None = None) -> Upload:
        """Record a DataFrame as one of the user's uploads (the library's and the eval's way in)."""
        self._check_quota(user_id)
        table_id = self.store.put(frame)
        stored = self.store.get(table_id)
        size = nbytes if nbytes is not None else int(stored.memory_usage(deep=True).sum())
        upload = Upload(table_id, table_name(name), len(stored), [str(c) for c in stored.columns], size, time.time())
        return self._record(user_id, upload)

    def _check_quota(self, user_id: str) -> None:
        count = self.db.fetchall(f"SELECT COUNT(*) FROM {_TABLE} WHERE user_id = ?", (user_id,))[0][0]
        if int(count) >= MAX_UPLOADS_PER_USER:
            raise InputError(f"you have {MAX_UPLOADS_PER_USER} uploaded tables, the most kept per user; "
                             "delete some (DELETE /api/agents/tableqa/uploads/{id}) first")

    def _record(self, user_id: str, upload: Upload) -> Upload:
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


def check_session_tables(scope: UserScope, options: Mapping[str, Any]) -> None:
    """``AgentSpec.check_session``: every upload a new session names is one of its user's and is
    still stored; another user's id is "not found" (404), as on the upload routes."""
    sources = [str(s) for s in options.get("tables") or []]
    if not sources:
        return
    uploads = Uploads(scope.database)
    for raw in sources:
        match = _NAMED_ID.match(raw.strip())
        if match is None:
            raise InputError(f"session tables must be uploaded table ids (tbl_... or name=tbl_...), not {raw[:80]!r}")
        table_id = match.group(2)
        try:
            uploads.get(scope.user_id, table_id)
        except UploadNotFound:
            raise UploadNotFound(f"no uploaded table {table_id!r} for this user "
                                 "(upload one with POST /api/agents/tableqa/uploads)") from None
        if table_id not in uploads.store:
            raise UploadNotFound(f"uploaded table {table_id!r} is no longer stored; upload it again")


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
