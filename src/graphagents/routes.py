"""What an agent's own HTTP routes get from the core, so that no agent imports the server.

An agent that serves more than chat (tableqa's table uploads, rag's profile) declares
``AgentSpec(routes=make_routes)``; ``make_routes()`` returns :class:`AgentRoutes`: a FastAPI
``APIRouter`` that the server mounts under ``/api/agents/<name>`` (the router's ``/uploads`` is
``/api/agents/tableqa/uploads``), and the body limits of the paths that take more than
``GRAPHAGENTS_MAX_BODY_BYTES``. The first segment of a path must not be one of the server's own
(:data:`RESERVED`); the server refuses to start otherwise.

Its routes take what they need as FastAPI dependencies from here:

* ``user_id: CurrentUser``, the caller, authenticated by the server before any route runs (API key,
  JWT, sign-in cookie, or ``X-User-Id`` with auth off);
* ``settings: AppSettings``, the settings the app was created with;
* ``scope: Annotated[UserScope, Depends(caller_scope("name"))]``, the caller's
  :class:`~graphagents.userdata.UserScope` for the agent (the same services its user-data hooks get:
  database, ``BaseStore`` namespaces, caches, the agent's server-side options);
* :func:`error_response` for a refusal: ``{"error": "one line"}`` with the status, as every core
  route answers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Header, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .settings import Settings, get_settings

if TYPE_CHECKING:
    from fastapi import APIRouter

    from .userdata import UserScope

__all__ = ["RESERVED", "AgentRoutes", "AppSettings", "CurrentUser", "Identity", "app_settings", "caller_scope",
           "current_user", "error_response", "routes_prefix"]

RESERVED = frozenset({"sessions", "view"})
"""First path segments under ``/api/agents/<name>`` that the server's own routes use."""

MAX_ERROR_CHARS = 300


@dataclass(frozen=True)
class AgentRoutes:
    """An agent's router and the body limits of its paths.

    ``body_limits`` maps a path of the router (a prefix: ``"/uploads"`` covers ``/uploads/...``) to
    the most bytes a request body may carry there, computed from the app's settings (tableqa:
    ``settings.max_upload_bytes`` plus the multipart framing). The server's body limit middleware
    answers 413 past it, before the route reads anything; a route may still check its own exact
    limit."""

    router: APIRouter
    body_limits: Mapping[str, Callable[[Settings], int]] = field(default_factory=dict)


def routes_prefix(agent: str) -> str:
    """Where an agent's routes are mounted: ``/api/agents/<agent>``."""
    return f"/api/agents/{agent}"


@dataclass(frozen=True)
class Identity:
    """Who is calling, as the server's access middleware found out (set on every ``/api/`` request)."""

    user_id: str
    via: str  # "api_key" | "jwt" | "cookie" | "header" | "anonymous"
    key_id: str | None = None
    cookie_token: str | None = None


_bearer_scheme = HTTPBearer(auto_error=False, description="an API key (ga_...) or a JWT from the identity provider")


async def current_user(  # async: FastAPI would run a plain function in a worker thread, per request
    request: Request,
    _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer_scheme)] = None,
    _x_user_id: Annotated[str | None, Header(
        alias="X-User-Id", description='with auth off only: the user (default "anonymous"); ignored with auth on',
    )] = None,
) -> str:
    """The authenticated user's id (set by the server's access middleware; the parameters only
    document the credentials in the OpenAPI schema)."""
    identity = request.scope.get("state", {}).get("identity")
    if not isinstance(identity, Identity):
        raise RuntimeError("the access middleware is not installed on this app")
    return identity.user_id


CurrentUser = Annotated[str, Depends(current_user)]
"""A route parameter ``user_id: CurrentUser`` gets the caller's user id."""


def app_settings(request: Request) -> Settings:
    """The settings the app was created with (the process's settings for an app without them)."""
    settings = getattr(request.app.state, "settings", None)
    return settings if isinstance(settings, Settings) else get_settings()


AppSettings = Annotated[Settings, Depends(app_settings)]


def caller_scope(agent: str) -> Callable[..., Any]:
    """A dependency giving the caller's :class:`~graphagents.userdata.UserScope` for ``agent``, with
    the agent's options as the server was started with them (``serve -o agent.key=value``)."""

    async def scope(request: Request, user_id: CurrentUser) -> UserScope:
        from .userdata import UserScope

        options = (getattr(request.app.state, "agent_options", None) or {}).get(agent, {})
        return UserScope(user_id, app_settings(request), agent, options=dict(options))

    return scope


def error_response(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """``{"error": "one line"}`` with ``status``: whitespace folded, at most 300 characters."""
    line = " ".join(message.split())
    if len(line) > MAX_ERROR_CHARS:
        line = line[: MAX_ERROR_CHARS - 1] + "…"
    return JSONResponse({"error": line}, status_code=status, headers=dict(headers) if headers else None)
