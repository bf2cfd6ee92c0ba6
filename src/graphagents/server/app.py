"""The HTTP API and the web page. Routes stay thin: sessions do the work, ``sse`` encodes."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator
from importlib import resources as importlib_resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__, _loop
from .._locks import PostgresLocks
from .._options import json_schema
from ..errors import (
    BusyError,
    GraphAgentsError,
    InputError,
    RunError,
    SessionExistsError,
    UnknownAgentError,
    UnknownSessionError,
    UsageError,
)
from ..events import jsonable
from ..isolation import install_shutdown_hook
from ..registry import all_specs, get_spec
from ..routes import error_response
from ..runtime import Agent
from ..settings import Settings, get_settings
from .auth import CurrentUser
from .auth_routes import install_access
from .errors import describe_validation_error
from .limits import Admission, BodyLimitMiddleware, MethodGuardMiddleware
from .plugins import mount_agent_routes, page_view_url
from .plugins import router as plugins_router
from .sessions_routes import router as sessions_router
from .sse import EventStream

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


class ErrorBody(BaseModel):
    error: str = Field(description="one line that says what went wrong and what to do; never echoes the input")


_ERROR_MEANING = {
    400: "bad request", 401: "credentials missing or wrong", 403: "refused (CSRF, origin)",
    404: "no such agent or session (for this user)", 405: "method not allowed",
    409: "the session exists already, or stayed busy with another message (Retry-After)",
    413: "request body over the limit", 415: "the body is not of a media type this route takes",
    422: "invalid input (one line)",
    429: "too many requests or messages waiting for this session (Retry-After)",
    503: "the server is saturated or a service is down (Retry-After)",
}


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorBody, "description": _ERROR_MEANING[code]} for code in codes}


SSE_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Server-Sent Events: step, token, tool_call, tool_result, state_update, decision, "
        "error ... and always a final event last",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    },
}


class AgentPool:
    """Agents built on first use and kept for the process; building one is not free."""

    def __init__(self, settings: Settings, options: dict[str, dict[str, Any]]) -> None:
        self.settings = settings
        self.options = options
        self._agents: dict[str, Agent] = {}
        self._building: dict[str, asyncio.Lock] = {}  # one per agent: a slow build delays no other agent

    async def get(self, name: str) -> Agent:
        if name in self._agents:
            return self._agents[name]
        spec = get_spec(name)
        async with self._building.setdefault(name, asyncio.Lock()):
            if name not in self._agents:
                opts = self.options.get(name, {})
                self._agents[name] = await asyncio.to_thread(Agent, spec, settings=self.settings, **opts)
        return self._agents[name]

    def built(self) -> list[Agent]:
        return list(self._agents.values())


class Readiness:
    """What ``/readyz`` reports: warmed up, the turn loop answering, the stores reachable, room for turns."""

    def __init__(self) -> None:
        self.warmed = True  # the lifespan sets it False while it warms up (an app run without one is never warmed)
        self.warm_errors: dict[str, str] = {}
        self.warm_seconds: float | None = None

    async def warm(self, pool: AgentPool) -> None:
        """Build every agent, open their async checkpointers, run their ``warm`` hooks and load the
        Korean analyser, so that no first request pays for a lazy load. A broken agent is logged,
        and the rest still serve."""
        started = time.perf_counter()
        await asyncio.to_thread(_warm_korean)
        names = pool.settings.warm_agents
        for name in sorted(all_specs()) if names is None else names:
            try:
                agent = await pool.get(name)
                await asyncio.wrap_future(_loop.submit(agent.agraph(), agent.settings.turn_workers))
                if agent.spec.warm is not None:
                    await asyncio.to_thread(agent.spec.warm, agent.build_context)
            except Exception as exc:
                log.error("warming agent %s failed: %s", name, type(exc).__name__, exc_info=exc)
                self.warm_errors[name] = type(exc).__name__
        self.warm_seconds = round(time.perf_counter() - started, 2)
        self.warmed = True


def _warm_korean() -> None:
    from ..korean import tokenize

    tokenize("안녕하세요 전화번호는 010-1234-5678이에요")


async def _turn_loop_answers(timeout: float = 2.0) -> bool:
    async def nothing() -> bool:
        return True

    try:
        return await asyncio.wait_for(asyncio.wrap_future(_loop.submit(nothing())), timeout)
    except Exception:
        return False


def _status(exc: GraphAgentsError) -> int:
    if isinstance(exc, BusyError):
        return {"session": 409, "queue": 429}.get(exc.scope, 503)
    if isinstance(exc, SessionExistsError):
        return 409
    if isinstance(exc, UnknownAgentError | UnknownSessionError):
        return 404
    if isinstance(exc, InputError):
        return 422
    if isinstance(exc, UsageError):
        return 400
    if isinstance(exc, RunError):
        return 503
    return 500


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return error_response(status, message, headers)


def create_app(settings: Settings | None = None, agent_options: dict[str, dict[str, Any]] | None = None, *,
               own_loop: bool = False) -> FastAPI:
    """The app. ``own_loop`` (what ``graphagents serve`` passes) runs turns on the server's own event
    loop rather than the process's separate turn loop: only for a loop that lives as long as the
    process (not a test client's)."""
    settings = settings or get_settings()
    app = FastAPI(title="graphagents", version=__version__, description="Five LangGraph agents over HTTP + SSE.")
    pool = AgentPool(settings, agent_options or {})
    app.state.pool = pool
    app.state.settings, app.state.agent_options = settings, pool.options  # what agents' routes get
    readiness = Readiness()
    admission = Admission(settings.max_active_turns)
    app.state.readiness, app.state.admission = readiness, admission
    access = install_access(app, settings)  # authentication, CSRF, CORS, per-user limits, /api/auth, /api/me
    app.state.body_limits = {}  # path prefix -> bytes, for routers that take larger bodies (uploads)
    app.add_middleware(MethodGuardMiddleware, router=app.router)
    app.add_middleware(BodyLimitMiddleware, default=settings.max_body_bytes, limits=app.state.body_limits)
    app.include_router(sessions_router)  # the page's session list (rename, delete, transcript), views, favicon
    app.include_router(plugins_router)  # each agent's page view module (/views/<name>.js)
    mount_agent_routes(app, settings)  # each agent's own routes under /api/agents/<name>/ (and body limits)

    @app.exception_handler(GraphAgentsError)
    async def on_ga_error(request: Request, exc: GraphAgentsError) -> JSONResponse:
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, BusyError) else None
        return _error(_status(exc), str(exc), headers)

    @app.exception_handler(RequestValidationError)
    async def on_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(422, describe_validation_error(exc))

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail), getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def on_crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s", request.url.path)
        return _error(500, f"internal error: {type(exc).__name__}")

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """Liveness: the process answers. Whether it should get traffic is ``/readyz``."""
        return {"status": "ok", "version": __version__, "agents": sorted(all_specs())}

    @app.get("/readyz", responses={503: {"description": "not ready: the body says why"}})
    async def readyz() -> JSONResponse:
        """Readiness: warmed up, the turn loop answers, every built agent's store answers, and the
        process has room for more turns."""
        problems: list[str] = []
        if not readiness.warmed:
            problems.append("warming up")
        if not await _turn_loop_answers():
            problems.append("the turn loop does not answer")
        for agent in pool.built():
            try:
                await asyncio.wait_for(asyncio.wrap_future(_loop.submit(_ping(agent))), 3)
            except Exception as exc:
                problems.append(f"agent {agent.name}: store unreachable ({type(exc).__name__})")
        if admission.saturated:
            problems.append(f"saturated: {admission.active} turns of {admission.limit}")
        if any(locks.refusing() for locks in _postgres_locks(pool.built())):
            problems.append(f"saturated: every turn connection to PostgreSQL runs a turn and messages are "
                            f"refused (TURN_CONNECTIONS={pool.settings.turn_connections})")
        body = {"status": "ready" if not problems else "not ready", "problems": problems,
                "turns": admission.active, "max_turns": admission.limit, "refused": admission.refused,
                "warm_seconds": readiness.warm_seconds, "warm_errors": readiness.warm_errors}
        headers = {"Retry-After": "2"} if problems else None
        return JSONResponse(body, status_code=503 if problems else 200, headers=headers)

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
                "page_view": page_view_url(s),
            }
            for s in sorted(all_specs().values(), key=lambda s: s.name)
        ]

    @app.post("/api/agents/{name}/sessions", status_code=201, responses=_errors(404, 409, 413, 422, 429))
    async def create_session(name: str, user_id: CurrentUser, body: CreateSession | None = None) -> dict[str, Any]:
        """A new session. Its options are validated now (422). An id the caller already has is a 409:
        an existing session's options are never replaced; open it with GET instead."""
        agent = await pool.get(name)
        body = body or CreateSession()
        session = await asyncio.to_thread(lambda: agent.create(body.session_id, user_id=user_id, **body.options))
        return {"session_id": session.id, "agent": name, "user_id": session.user_id}

    @app.get("/api/agents/{name}/sessions/{session_id}", responses=_errors(404, 422, 429))
    async def get_session(name: str, session_id: str, user_id: CurrentUser) -> dict[str, Any]:
        agent = await pool.get(name)
        session = await asyncio.to_thread(agent.get_session, session_id, user_id)
        await asyncio.to_thread(session.settle)  # a run a crash cut short is finished before it is read
        state, questions, artifacts = await asyncio.to_thread(
            lambda: (session.state, session.questions, session.artifacts))
        return {
            "session_id": session.id, "agent": name, "user_id": session.user_id, "state": state,
            "pending": questions[0].text if questions else None,
            "questions": [{"id": q.id, "text": q.text, "path": list(q.path)} for q in questions],
            "artifacts": jsonable(list(artifacts)),
        }

    @app.post("/api/agents/{name}/sessions/{session_id}/messages", response_class=EventStream,
              responses={**SSE_RESPONSE, **_errors(404, 409, 413, 422, 429, 503)})
    async def send_message(name: str, session_id: str, body: SendMessage, user_id: CurrentUser) -> EventStream:
        """One turn as Server-Sent Events. Everything that can be refused is refused before the stream
        starts (bad text 422, busy session 409/429, saturated server 503, with Retry-After); a failure
        after it started is an ``error`` event followed by a ``final`` event."""
        agent = await pool.get(name)
        session = await agent.aget_session(session_id, user_id)
        await access.before_turn(user_id)  # 429 while the user's model-token window is spent
        admission.enter()  # 503 when the process already runs all the turns it admits
        try:
            # holds the session lock; raises before streaming
            bursts = await session.astart_bursts(body.text, linger=settings.stream_linger_ms / 1000)
        except BaseException:
            admission.leave()
            raise
        return EventStream(admission.admit(access.metered(bursts, user_id)), ping=15)

    static_dir = importlib_resources.files("graphagents.server") / "static"

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index() -> HTMLResponse:
        return HTMLResponse((static_dir / "index.html").read_text(encoding="utf-8"))

    app.mount("/static", StaticFiles(directory=str(static_dir)), name="static")
    app.router.lifespan_context = _lifespan(readiness, pool, settings.warm_on_start,
                                            settings.turn_workers if own_loop else None)
    _document_errors(app, access.enabled)
    return app


API_ERRORS = (400, 401, 403, 404, 413, 415, 422, 429, 503)
"""What any ``/api/`` route may answer besides its own codes: the access middleware (401/403/429),
the body limit (413), a body of a media type the route does not take (415), validation (422), a
missing agent or session (404), a bad call (400), an outage or saturation (503). Listed in the
schema so that clients (and schemathesis) can rely on it."""


def _document_errors(app: FastAPI, access_required: bool) -> None:
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        spec = build()
        spec.setdefault("components", {}).setdefault("schemas", {})["ErrorBody"] = ErrorBody.model_json_schema()
        ref = {"$ref": "#/components/schemas/ErrorBody"}
        for path, operations in spec.get("paths", {}).items():
            if not path.startswith("/api/"):
                continue
            for operation in operations.values():
                if not access_required and operation.get("security"):
                    operation["security"] = [*operation["security"], {}]  # credentials optional: auth is off
                responses = operation.setdefault("responses", {})
                for code in API_ERRORS:
                    responses.setdefault(str(code), {
                        "description": _ERROR_MEANING.get(code, "error"),
                        "content": {"application/json": {"schema": ref}},
                    })
        app.openapi_schema = spec
        return spec

    app.openapi = openapi  # type: ignore[method-assign]


def _lifespan(readiness: Readiness, pool: AgentPool, warm: bool, adopt_workers: int | None) -> Any:
    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        install_shutdown_hook()  # SIGTERM/SIGINT first kill upload readers: a shutdown never waits for one
        if adopt_workers is not None and not _loop.adopt(asyncio.get_running_loop(), adopt_workers):
            log.warning("a turn loop runs already: turns keep running on it, not on the server's loop")
        task = None
        if warm:
            readiness.warmed = False
            task = asyncio.ensure_future(readiness.warm(pool))
            if adopt_workers is not None:  # what warming loaded lives as long as the process: never collect it
                task.add_done_callback(lambda _: gc.freeze())
        try:
            yield
        finally:
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    return lifespan


def _postgres_locks(agents: Any) -> list[PostgresLocks]:
    """The distinct Postgres lock pools of these agents (agents on one database share one)."""
    found = {id(a._locks.shared): a._locks.shared for a in agents if isinstance(a._locks.shared, PostgresLocks)}
    return list(found.values())


async def _ping(agent: Agent) -> None:
    """One cheap read on the agent's async checkpointer (run on the turn loop)."""
    graph = await agent.agraph()
    saver = graph.checkpointer
    if saver is not None and not isinstance(saver, bool):
        await saver.aget_tuple({"configurable": {"thread_id": "graphagents:readyz", "checkpoint_ns": ""}})
    if agent._locks.shared is not None:
        await agent._locks.shared.ping()
