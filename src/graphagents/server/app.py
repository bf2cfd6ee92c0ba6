"""The HTTP API and the web page. Routes stay thin: sessions do the work, ``sse`` encodes."""

from __future__ import annotations

import asyncio
import logging
from importlib import resources as importlib_resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette import EventSourceResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from .._options import json_schema
from ..errors import (
    GraphAgentsError,
    InputError,
    RunError,
    UnknownAgentError,
    UnknownSessionError,
    UsageError,
)
from ..registry import all_specs, get_spec
from ..runtime import Agent
from ..settings import Settings, get_settings
from .auth import CurrentUser
from .auth_routes import install_access
from .sessions_routes import router as sessions_router
from .sse import encode_stream
from .uploads import PATH as UPLOADS
from .uploads import router as uploads_router

log = logging.getLogger("graphagents.server")


class CreateSession(BaseModel):
    model_config = ConfigDict(extra="forbid")
    session_id: str | None = Field(None, description="resume or name a session; a new id when absent")
    options: dict[str, Any] = Field(
        default_factory=dict, description="per-session options, validated against the agent's session_options schema"
    )


class SendMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str


class AgentPool:
    """Agents built on first use and kept for the process; building one is not free."""

    def __init__(self, settings: Settings, options: dict[str, dict[str, Any]]) -> None:
        self.settings = settings
        self.options = options
        self._agents: dict[str, Agent] = {}
        self._lock = asyncio.Lock()

    async def get(self, name: str) -> Agent:
        if name in self._agents:
            return self._agents[name]
        spec = get_spec(name)
        async with self._lock:
            if name not in self._agents:
                opts = self.options.get(name, {})
                self._agents[name] = await asyncio.to_thread(Agent, spec, settings=self.settings, **opts)
        return self._agents[name]


def _status(exc: GraphAgentsError) -> int:
    if isinstance(exc, UnknownAgentError | UnknownSessionError):
        return 404
    if isinstance(exc, InputError):
        return 422
    if isinstance(exc, UsageError):
        return 400
    if isinstance(exc, RunError):
        return 503
    return 500


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": " ".join(message.split())}, status_code=status)


def create_app(settings: Settings | None = None, agent_options: dict[str, dict[str, Any]] | None = None) -> FastAPI:
    settings = settings or get_settings()
    app = FastAPI(title="graphagents", version=__version__, description="Five LangGraph agents over HTTP + SSE.")
    pool = AgentPool(settings, agent_options or {})
    app.state.pool = pool
    access = install_access(app, settings)  # authentication, CSRF, CORS, per-user limits, /api/auth, /api/me
    app.include_router(uploads_router)  # tableqa's table uploads (own size limit: max_upload_bytes)
    app.include_router(sessions_router)  # the page's session list (rename, delete, transcript), views, favicon

    @app.middleware("http")
    async def limit_body(request: Request, call_next: Any) -> Response:
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > settings.max_body_bytes and request.url.path != UPLOADS:
            return _error(413, f"request body is {length} bytes; the limit is {settings.max_body_bytes}")
        return await call_next(request)  # type: ignore[no-any-return]

    @app.exception_handler(GraphAgentsError)
    async def on_ga_error(request: Request, exc: GraphAgentsError) -> JSONResponse:
        return _error(_status(exc), str(exc))

    @app.exception_handler(RequestValidationError)
    async def on_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"msg": "invalid request"}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        return _error(422, f"{where or 'body'}: {first.get('msg', 'invalid')}")

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def on_crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s", request.url.path)
        return _error(500, f"internal error: {type(exc).__name__}")

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        return {"status": "ok", "version": __version__, "agents": sorted(all_specs())}

    @app.get("/api/agents")
    async def list_agents() -> list[dict[str, Any]]:
        return [
            {
                "name": s.name,
                "title": s.title,
                "description": s.description,
                "samples": [list(x) for x in s.samples],
                "options": json_schema(s.options_model),
                "session_options": json_schema(s.session_options_model),
            }
            for s in sorted(all_specs().values(), key=lambda s: s.name)
        ]

    @app.post("/api/agents/{name}/sessions", status_code=201)
    async def create_session(name: str, user_id: CurrentUser, body: CreateSession | None = None) -> dict[str, Any]:
        agent = await pool.get(name)
        body = body or CreateSession()
        session = await asyncio.to_thread(lambda: agent.session(body.session_id, user_id=user_id, **body.options))
        return {"session_id": session.id, "agent": name, "user_id": session.user_id}

    @app.get("/api/agents/{name}/sessions/{session_id}")
    async def get_session(name: str, session_id: str, user_id: CurrentUser) -> dict[str, Any]:
        agent = await pool.get(name)
        session = await asyncio.to_thread(agent.get_session, session_id, user_id)
        state, questions = await asyncio.to_thread(lambda: (session.state, session.questions))
        return {
            "session_id": session.id, "agent": name, "user_id": session.user_id, "state": state,
            "pending": questions[0].text if questions else None,
            "questions": [{"id": q.id, "text": q.text, "path": list(q.path)} for q in questions],
        }

    @app.post("/api/agents/{name}/sessions/{session_id}/messages")
    async def send_message(name: str, session_id: str, body: SendMessage, user_id: CurrentUser) -> EventSourceResponse:
        agent = await pool.get(name)
        session = await asyncio.to_thread(agent.get_session, session_id, user_id)
        await access.before_turn(user_id)  # 429 while the user's model-token window is spent
        events = access.metered(session.astream(body.text), user_id)  # raises InputError before streaming
        return EventSourceResponse(encode_stream(events), ping=15)

    static_dir = importlib_resources.files("graphagents.server") / "static"

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index() -> HTMLResponse:
        return HTMLResponse((static_dir / "index.html").read_text(encoding="utf-8"))

    app.mount("/static", StaticFiles(directory=str(static_dir)), name="static")
    return app
