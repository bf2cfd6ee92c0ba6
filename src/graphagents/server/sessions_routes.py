"""The signed-in user's past sessions, for the web page: list, rename, delete, read back.

* ``GET    /api/agents/{name}/sessions``                          the caller's sessions of one agent,
  newest first, each with a title (the name given, or the first message) and the last activity;
* ``PATCH  /api/agents/{name}/sessions/{session_id}``             rename (``{"title": "..."}``);
* ``DELETE /api/agents/{name}/sessions/{session_id}``             delete the record, then the thread;
* ``GET    /api/agents/{name}/sessions/{session_id}/transcript``  the conversation so far, read back
  from the checkpointer (what the user said, what the agent answered or asked);
* ``GET    /api/agents/{name}/view``                              what the page needs to draw an agent's
  state for people (``AgentSpec.view_data``); the same for every user;
* ``GET    /favicon.ico``                                         the page's icon.

Every session route answers only the session's owner: another user's id is a 404, as everywhere.
Titles live in the user's long-term store namespace (exported and erased with the user's data).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Mapping
from importlib import resources as importlib_resources
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from langgraph.store.base import BaseStore
from pydantic import BaseModel, ConfigDict, Field, field_validator

from .. import _connections
from .._sessions import SessionRecord
from .._turn import interrupt_text
from ..errors import UnknownSessionError
from ..registry import get_spec
from ..settings import Settings
from ..userdata import user_namespace
from .auth import CurrentUser

__all__ = ["SessionTitles", "router", "transcript_of"]

router = APIRouter(tags=["sessions"])

TITLE_CHARS = 80
LIST_LIMIT = 200


class Rename(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str = Field(..., min_length=1, max_length=TITLE_CHARS, description="the session's new name")

    @field_validator("title")
    @classmethod
    def _one_line(cls, value: str) -> str:
        clean = " ".join(value.split())
        if not clean:
            raise ValueError("the title is empty")
        return clean


class SessionTitles:
    """``(agent, session_id) -> title`` of one user: the name they gave it (``named``), or the first
    message, kept once so that the list does not read every thread's history each time. Kept in the
    user's long-term store namespace, so a title (the user's words) is exported and erased with the
    rest of the user's data."""

    LABEL = "session_titles"

    def __init__(self, store: BaseStore) -> None:
        self.store = store

    def _ns(self, user_id: str) -> tuple[str, ...]:
        return user_namespace(user_id, self.LABEL)

    def get_all(self, agent: str, user_id: str) -> dict[str, tuple[str, bool]]:
        out: dict[str, tuple[str, bool]] = {}
        offset = 0
        while True:
            page = self.store.search(self._ns(user_id), limit=500, offset=offset)
            for item in page:
                owner, _, sid = item.key.partition(":")
                if owner == agent:
                    out[sid] = (str(item.value.get("title", "")), bool(item.value.get("named")))
            if len(page) < 500:
                return out
            offset += len(page)

    def put(self, agent: str, session_id: str, user_id: str, title: str, *, named: bool) -> None:
        self.store.put(self._ns(user_id), f"{agent}:{session_id}", {"title": title, "named": named})

    def delete(self, agent: str, session_id: str, user_id: str) -> None:
        self.store.delete(self._ns(user_id), f"{agent}:{session_id}")


def _titles_for(settings: Settings) -> SessionTitles:
    return SessionTitles(_connections.store_for(settings.resolved_store_url))


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.pool.settings
    return settings


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat(timespec="seconds")


def _thread(agent: str, session_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": f"{agent}:{session_id}", "checkpoint_ns": ""}}


def _owned(settings: Settings, agent: str, session_id: str, user_id: str) -> SessionRecord:
    get_spec(agent)  # an unknown agent is a 404 of its own
    record = _connections.session_store_for(settings.resolved_database_url).get(agent, session_id)
    if record is None or record.user_id != user_id:
        raise UnknownSessionError(f"agent {agent!r} has no session {session_id!r}")
    return record


# -- the transcript, read back from the checkpoints ---------------------------------------------------

def _user_text(agent: str, start: Any) -> str:
    """The user's words in a graph input: the agent's ``AgentSpec.user_text`` reads ``make_input``'s
    dict (``user_input`` unless the agent says otherwise)."""
    if isinstance(start, Mapping):
        text = get_spec(agent).user_text(start)
        return text if isinstance(text, str) and text.strip() else ""
    return start if isinstance(start, str) else ""


def transcript_of(saver: Any, agent: str, session_id: str) -> list[dict[str, Any]]:
    """``[{"role": "user"|"agent", "text": ..., "at": iso}]`` in order. A turn begins with a graph
    input (a new run) or a resume (the answer to a question); the agent's side is the question it
    asked (an interrupt) or the ``reply`` left in the state when the run ended."""
    checkpoints = [c for c in saver.list(_thread(agent, session_id))
                   if (c.config.get("configurable") or {}).get("checkpoint_ns", "") == ""]
    checkpoints.reverse()  # oldest first
    out: list[dict[str, Any]] = []
    last_values: Mapping[str, Any] = {}
    last_at = ""

    def close_turn() -> None:
        reply = last_values.get("reply")
        if out and out[-1]["role"] == "user" and isinstance(reply, str) and reply.strip():
            out.append({"role": "agent", "text": reply, "at": last_at})

    for c in checkpoints:
        values = c.checkpoint.get("channel_values") or {}
        at = str(c.checkpoint.get("ts", ""))
        if (c.metadata or {}).get("source") == "input":
            close_turn()
            text = _user_text(agent, values.get("__start__"))
            if text:
                out.append({"role": "user", "text": text, "at": at})
        writes = list(c.pending_writes or [])
        for _task, channel, value in writes:
            if channel == "__interrupt__":
                for intr in value if isinstance(value, list | tuple) else [value]:
                    text = interrupt_text(getattr(intr, "value", intr))
                    if text:
                        out.append({"role": "agent", "text": text, "at": at})
        answers = [value for _task, channel, value in writes if channel == "__resume__" and isinstance(value, str)]
        if answers:
            out.append({"role": "user", "text": answers[0], "at": at})
        last_values, last_at = values, at
    close_turn()
    return out


def _first_user_text(saver: Any, agent: str, session_id: str) -> str:
    for message in transcript_of(saver, agent, session_id):
        if message["role"] == "user":
            return " ".join(str(message["text"]).split())[:TITLE_CHARS]
    return ""


def _updated_at(saver: Any, agent: str, session_id: str, created: float) -> str:
    latest = saver.get_tuple(_thread(agent, session_id))
    if latest is not None and latest.checkpoint.get("ts"):
        return str(latest.checkpoint["ts"])
    return _iso(created)


def _summary(record: SessionRecord, title: str, named: bool, updated_at: str) -> dict[str, Any]:
    return {"agent": record.agent, "session_id": record.session_id, "title": title, "named": named,
            "created_at": _iso(record.created_at), "updated_at": updated_at}


def list_sessions(settings: Settings, agent: str, user_id: str) -> list[dict[str, Any]]:
    get_spec(agent)
    records = [r for r in _connections.session_store_for(settings.resolved_database_url).for_user(user_id)
               if r.agent == agent]
    saver = _connections.checkpointer_for(settings.resolved_checkpoint_url)
    titles = _titles_for(settings)
    known = titles.get_all(agent, user_id)
    out = []
    for r in records:
        updated = _updated_at(saver, agent, r.session_id, r.created_at)
        title, named = known.get(r.session_id, ("", False))
        if not title:
            title = _first_user_text(saver, agent, r.session_id)
            if title:  # the first message never changes: remember it
                titles.put(agent, r.session_id, user_id, title, named=False)
        out.append(_summary(r, title, named, updated))
    out.sort(key=lambda s: s["updated_at"], reverse=True)
    return out[:LIST_LIMIT]


# -- routes -----------------------------------------------------------------------------------------

@router.get("/api/agents/{name}/sessions", summary="The caller's sessions of one agent, newest first")
async def list_my_sessions(name: str, request: Request, user_id: CurrentUser) -> dict[str, Any]:
    sessions = await asyncio.to_thread(list_sessions, _settings(request), name, user_id)
    return {"agent": name, "sessions": sessions}


@router.patch("/api/agents/{name}/sessions/{session_id}", summary="Rename one of the caller's sessions")
async def rename_session(name: str, session_id: str, body: Rename, request: Request,
                         user_id: CurrentUser) -> dict[str, Any]:
    settings = _settings(request)

    def run() -> dict[str, Any]:
        record = _owned(settings, name, session_id, user_id)
        _titles_for(settings).put(name, session_id, user_id, body.title, named=True)
        saver = _connections.checkpointer_for(settings.resolved_checkpoint_url)
        return _summary(record, body.title, True, _updated_at(saver, name, session_id, record.created_at))

    return await asyncio.to_thread(run)


@router.delete("/api/agents/{name}/sessions/{session_id}", summary="Delete one of the caller's sessions")
async def delete_session(name: str, session_id: str, request: Request, user_id: CurrentUser) -> dict[str, Any]:
    settings = _settings(request)

    def run() -> dict[str, Any]:
        _owned(settings, name, session_id, user_id)
        # the record first, so that no new turn starts on the session; then its thread and title
        _connections.session_store_for(settings.resolved_database_url).delete(name, session_id)
        _connections.checkpointer_for(settings.resolved_checkpoint_url).delete_thread(f"{name}:{session_id}")
        _titles_for(settings).delete(name, session_id, user_id)
        return {"agent": name, "session_id": session_id, "deleted": True, "at": _iso(time.time())}

    return await asyncio.to_thread(run)


@router.get("/api/agents/{name}/sessions/{session_id}/transcript",
            summary="One of the caller's conversations so far, read back from the checkpoints")
async def session_transcript(name: str, session_id: str, request: Request, user_id: CurrentUser) -> dict[str, Any]:
    settings = _settings(request)

    def run() -> dict[str, Any]:
        _owned(settings, name, session_id, user_id)
        saver = _connections.checkpointer_for(settings.resolved_checkpoint_url)
        return {"agent": name, "session_id": session_id, "messages": transcript_of(saver, name, session_id)}

    return await asyncio.to_thread(run)


@router.get("/api/agents/{name}/view", summary="What the page needs to show an agent's state to people")
async def agent_view(name: str, request: Request) -> dict[str, Any]:
    """``{"agent": name, ...}`` plus the agent's ``view_data`` from its options (a scenario's groups and
    labels, say); the same for every user."""
    spec = get_spec(name)
    if spec.view_data is None:
        return {"agent": spec.name}
    options = request.app.state.pool.options.get(spec.name, {})
    data = await asyncio.to_thread(spec.view_data, options)
    return {**data, "agent": spec.name}


@router.get("/favicon.ico", include_in_schema=False)
async def favicon() -> Response:
    """Browsers ask for /favicon.ico whatever the page links; the same icon as the page's."""
    data = (importlib_resources.files("graphagents.server") / "static" / "favicon.ico").read_bytes()
    return Response(data, media_type="image/x-icon", headers={"Cache-Control": "public, max-age=86400"})
