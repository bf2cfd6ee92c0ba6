"""Sign-in for the web page, the caller's identity, and a user's own data (export, erase).

``install_access(app, settings)`` wires access control into an app: the middleware, CORS (closed
unless origins are configured), the 429 handler and these routes.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ..auth.settings import AuthSettings, get_auth_settings
from ..auth.websessions import COOKIE, CSRF_HEADER, csrf_token
from ..settings import Settings
from ..userdata import delete_user, export_user
from .auth import AccessControl, AccessMiddleware, CurrentUser, LimitExceeded, access_state, current_identity

__all__ = ["install_access"]

router = APIRouter(tags=["access"])


class Login(BaseModel):
    model_config = ConfigDict(extra="forbid")
    api_key: str = Field(..., max_length=200, description="an API key from `graphagents keys create`")


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


@router.post("/api/auth/login", summary="Sign in with an API key; sets the page's http-only cookie")
async def login(body: Login, request: Request) -> Response:
    control = access_state(request.app)
    if not control.enabled:
        return _error(400, "authentication is off on this server (GRAPHAGENTS_AUTH): nothing to sign in to")
    client = request.client.host if request.client else "unknown"
    limited = await control.login_limiter.hit_request(client)
    if limited is not None:
        return _error(429, "too many sign-in attempts; retry later", {"Retry-After": str(limited.retry_after)})
    key = await asyncio.to_thread(control.keys.verify, body.api_key.strip())
    if key is None:
        return _error(401, "invalid API key: unknown, revoked, expired or mistyped",
                      {"WWW-Authenticate": 'Bearer realm="graphagents"'})
    lifetime = control.auth.cookie_hours * 3600
    if key.expires_at is not None:
        lifetime = min(lifetime, key.expires_at - time.time())
    token = await asyncio.to_thread(control.web.create, key.user_id, key.key_id, lifetime)
    res = JSONResponse({"user_id": key.user_id, "csrf_token": csrf_token(token), "expires_in": int(lifetime)})
    secure = control.auth.cookie_secure
    res.set_cookie(COOKIE, token, max_age=int(lifetime), path="/", httponly=True, samesite="strict",
                   secure=request.url.scheme == "https" if secure is None else secure)
    return res


@router.post("/api/auth/logout", summary="Sign out: ends the page's sign-in (cookie)")
async def logout(request: Request) -> Response:
    identity = current_identity(request)
    if identity.cookie_token is not None:
        await asyncio.to_thread(access_state(request.app).web.delete, identity.cookie_token)
    res = JSONResponse({"signed_out": identity.via == "cookie"})
    res.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return res


@router.get("/api/auth/me", summary="Who the credentials belong to")
async def me(request: Request, user_id: CurrentUser) -> dict[str, Any]:
    identity = current_identity(request)
    out: dict[str, Any] = {"user_id": user_id, "via": identity.via, "auth": access_state(request.app).enabled}
    if identity.cookie_token is not None:
        out["csrf_token"] = csrf_token(identity.cookie_token)
    return out


@router.get("/api/me/data", summary="Export everything stored about the caller (sessions, state, records)")
async def export_my_data(request: Request, user_id: CurrentUser) -> dict[str, Any]:
    control = access_state(request.app)
    return await asyncio.to_thread(export_user, user_id, settings=control.settings,
                                   agent_options=request.app.state.pool.options)


@router.delete("/api/me/data", summary="Erase everything stored about the caller")
async def delete_my_data(request: Request, user_id: CurrentUser) -> dict[str, Any]:
    control = access_state(request.app)
    removed = await asyncio.to_thread(delete_user, user_id, settings=control.settings,
                                      agent_options=request.app.state.pool.options)
    return {"user_id": user_id, "deleted": removed}


def install_access(app: FastAPI, settings: Settings, auth: AuthSettings | None = None) -> AccessControl:
    """Authentication, CSRF, CORS, per-user limits and the access routes, on ``app``."""
    auth = auth or get_auth_settings()
    control = AccessControl(settings, auth)
    app.state.access = control
    app.include_router(router)
    app.add_middleware(AccessMiddleware, control=control)
    if auth.cors_origins:  # outermost, so that preflights are answered before authentication
        app.add_middleware(
            CORSMiddleware, allow_origins=auth.cors_origins, allow_credentials=False,
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["authorization", "content-type", "x-api-key", CSRF_HEADER],
            expose_headers=["retry-after"],
        )

    @app.exception_handler(LimitExceeded)
    async def on_limit(request: Request, exc: LimitExceeded) -> JSONResponse:
        return _error(429, exc.limited.message, {"Retry-After": str(exc.limited.retry_after)})

    return control
