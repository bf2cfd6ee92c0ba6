"""tableqa's HTTP routes (``AgentSpec.routes``), under ``/api/agents/tableqa``: table uploads for
its sessions, ``POST /uploads``, ``GET /uploads``, ``DELETE /uploads/{id}``.

``POST`` takes one multipart field ``file`` (CSV, TSV, JSON, JSONL, XLSX or SQLite; optional form
field ``name`` to rename it, query ``?table=NAME`` to pick a sheet or SQLite table) and answers
201 ``{"id": "tbl_...", "name": ..., "rows": N, "columns": [...], "bytes": N}``. The body is limited
by ``GRAPHAGENTS_MAX_UPLOAD_BYTES`` (413 over it, checked on the header and again while reading);
an unsupported kind is 415, an unreadable file 422, a table over the upload limits 413 (rows,
columns, cells, expanded size, or the reader's CPU, memory and time: ``GRAPHAGENTS_UPLOAD_*``), a full
upload queue 503 with Retry-After; each with a one-line message (in ``error``, the app's key, and
``detail``). Files are read in child processes of their own pool (:mod:`graphagents.isolation`).
Uploads belong to the caller: another user's id is a 404, and so is a new session that names one.
A tableqa session uses them through its ``tables`` option: ``{"tables": ["tbl_...", "name=tbl_..."]}``.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.datastructures import UploadFile
from starlette.requests import ClientDisconnect
from starlette.types import Message

from graphagents.errors import BusyError, InputError
from graphagents.isolation import LimitExceeded
from graphagents.routes import AgentRoutes, AppSettings, CurrentUser
from graphagents.settings import Settings
from graphagents.store import database_for

from .tables import TableTooLarge
from .uploads import UnsupportedUpload, UploadNotFound, Uploads, UploadSettings, upload_runner

__all__ = ["PATH", "make_routes", "upload_body_limit", "uploads_for"]

PATH = "/uploads"
_FORM_OVERHEAD = 64 * 1024  # multipart boundaries, part headers and the small text fields

router = APIRouter(tags=["uploads"])


def make_routes() -> AgentRoutes:
    """The upload routes, with their own body limit (``GRAPHAGENTS_MAX_UPLOAD_BYTES`` plus framing).
    The upload readers' fork server starts now, in the background, so the first upload does not wait."""
    runner = upload_runner(UploadSettings())
    threading.Thread(target=runner.warm, name="ga-uploads-warm", daemon=True).start()
    return AgentRoutes(router, body_limits={PATH: upload_body_limit})


def _error(status: int, message: str) -> JSONResponse:
    line = " ".join(message.split())
    return JSONResponse({"error": line, "detail": line}, status_code=status)


def uploads_for(settings: Settings) -> Uploads:
    return Uploads(database_for(settings.resolved_database_url))


async def _read_body(request: Request, limit: int) -> bytes | None:
    """The whole body, or None as soon as it passes ``limit`` bytes (chunked bodies included)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(limit: int) -> JSONResponse:
    return _error(413, f"the upload is larger than the limit of {limit:,} bytes (GRAPHAGENTS_MAX_UPLOAD_BYTES)")


def upload_body_limit(settings: Settings) -> int:
    """The most bytes an upload request may carry: the file limit plus the multipart framing."""
    return settings.max_upload_bytes + _FORM_OVERHEAD


@router.post(PATH, status_code=201,
             responses={415: {"description": "not multipart/form-data, or a file of a format no reader takes"}},
             summary="Upload a table (CSV/TSV/JSON/JSONL/XLSX/SQLite) for tableqa sessions")
async def upload_table(request: Request, user_id: CurrentUser, settings: AppSettings, table: str | None = None) -> Any:
    limit = settings.max_upload_bytes
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit + _FORM_OVERHEAD:
        return _too_large(limit)
    if "multipart/form-data" not in request.headers.get("content-type", ""):
        return _error(415, "send the table as multipart/form-data with the file in the field 'file'")
    try:
        body = await _read_body(request, limit + _FORM_OVERHEAD)
    except ClientDisconnect:
        return _error(400, "the upload was interrupted")
    if body is None:
        return _too_large(limit)

    async def replay() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    form_request = Request(request.scope, replay)
    try:
        form = await form_request.form(max_files=1, max_fields=4, max_part_size=4096)
    except Exception as exc:  # starlette's MultiPartException and parser errors: a malformed body
        return _error(422, f"malformed multipart body: {str(exc).splitlines()[0][:160] if str(exc) else 'unreadable'}")
    try:
        file = form.get("file")
        if not isinstance(file, UploadFile):
            return _error(422, "no file: send the table in the multipart field 'file'")
        data = await file.read()
        if len(data) > limit:
            return _too_large(limit)
        name = form.get("name")
        filename = file.filename or ""
    finally:
        await form.close()
    uploads = uploads_for(settings)
    upload_settings = UploadSettings()
    try:
        upload = await upload_runner(upload_settings).acall(
            uploads.add, user_id, filename, data, name=name if isinstance(name, str) and name.strip() else None,
            table=table, settings=upload_settings)
    except UnsupportedUpload as exc:
        return _error(415, str(exc))
    except (TableTooLarge, LimitExceeded) as exc:
        return _error(413, str(exc))
    except InputError as exc:
        return _error(422, str(exc))
    except BusyError as exc:
        response = _error(503, str(exc))
        response.headers["Retry-After"] = str(exc.retry_after)
        return response
    out = upload.public()
    out.pop("created_at", None)
    return JSONResponse(out, status_code=201)


@router.get(PATH, summary="The caller's uploaded tables")
async def list_uploads(user_id: CurrentUser, settings: AppSettings) -> list[dict[str, Any]]:
    uploads = uploads_for(settings)
    return [u.public() for u in await asyncio.to_thread(uploads.list, user_id)]


@router.delete(PATH + "/{upload_id}", summary="Delete one of the caller's uploaded tables")
async def delete_upload(upload_id: str, user_id: CurrentUser, settings: AppSettings) -> Any:
    uploads = uploads_for(settings)
    try:
        upload = await asyncio.to_thread(uploads.delete, user_id, upload_id)
    except UploadNotFound as exc:
        return _error(404, str(exc))
    return {"deleted": upload.id, "name": upload.name}
