"""Who is calling: every ``/api/`` request is authenticated here before any route runs.

One ASGI middleware (:class:`AccessMiddleware`) so that a route added later cannot forget it:

* with ``GRAPHAGENTS_AUTH`` on, the caller is an API key (``Authorization: Bearer ga_...`` or
  ``X-API-Key``), a bearer JWT from the configured identity provider, or the web page's sign-in
  cookie; anything else is a 401 with one line. ``X-User-Id`` is ignored: identity comes from
  credentials only.
* with auth off (the default, allowed on 127.0.0.1 only: see ``serve``), the user is the
  ``X-User-Id`` header, or ``"anonymous"``, for requests from a loopback address only: the app
  enforces the rule itself (``uvicorn --host 0.0.0.0`` does not pass through ``serve``), and a
  request from another machine is a 403 unless ``GRAPHAGENTS_INSECURE`` (``serve --insecure``) says
  otherwise.
* a state-changing request signed in by cookie must carry the CSRF token (``X-CSRF-Token``); a
  browser request from another origin is refused unless ``GRAPHAGENTS_CORS_ORIGINS`` lists it;
* each user's requests per minute are limited (429 with ``Retry-After``).

Routes read the result with the :data:`CurrentUser` dependency (:mod:`graphagents.routes`, where an
agent's own routes take it from too).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from ..auth.keys import KeyStore, looks_like_key
from ..auth.ratelimit import Limited, UserLimiter, limiter_url
from ..auth.settings import AuthSettings, is_loopback
from ..auth.tokens import JwtVerifier, TokenRejected
from ..auth.websessions import COOKIE, CSRF_HEADER, WebSessionStore, csrf_matches
from ..errors import InputError
from ..events import Event, FinalEvent
from ..registry import ANONYMOUS
from ..routes import CurrentUser, Identity, current_user
from ..runtime import check_user_id
from ..settings import Settings
from ..store import database_for

__all__ = ["AccessControl", "AccessMiddleware", "CurrentUser", "Identity", "LimitExceeded", "current_user"]

log = logging.getLogger("graphagents.server.auth")

_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
PUBLIC_API = frozenset({("POST", "/api/auth/login")})
"""API routes that need no credentials: signing in itself."""


class LimitExceeded(Exception):
    """Raised by routes (the token budget); the server answers 429 with Retry-After."""

    def __init__(self, limited: Limited) -> None:
        super().__init__(limited.message)
        self.limited = limited


class Rejected(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


class AccessControl:
    """The process's authenticator and limiter (one per app)."""

    def __init__(self, settings: Settings, auth: AuthSettings) -> None:
        self.settings = settings
        self.auth = auth
        self.enabled = auth.auth
        self._keys: KeyStore | None = None
        self._web: WebSessionStore | None = None
        self.jwt = JwtVerifier(auth) if auth.auth and auth.jwt_enabled else None
        self.limiter = UserLimiter(limiter_url(auth.rate_limit_url, settings.cache_url),
                                   requests=auth.requests_per_minute, tokens=auth.rate_tokens_per_minute)
        self.login_limiter = UserLimiter(self.limiter.url, requests=20, tokens=0,
                                         prefix="graphagents:login-limits")

    @property
    def keys(self) -> KeyStore:
        if self._keys is None:  # opened on first use: an auth-off server never creates the tables
            self._keys = KeyStore(database_for(self.settings.resolved_database_url))
        return self._keys

    @property
    def web(self) -> WebSessionStore:
        if self._web is None:
            self.keys  # noqa: B018 - the web sessions table joins the keys table
            self._web = WebSessionStore(database_for(self.settings.resolved_database_url))
        return self._web

    # -- identity --------------------------------------------------------------------------------

    async def identify(self, headers: dict[str, str]) -> Identity:
        if not self.enabled:
            user = headers.get("x-user-id")
            if user is None:
                return Identity(ANONYMOUS, "anonymous")
            try:
                check_user_id(user)
            except InputError as exc:
                raise Rejected(422, str(exc)) from None
            return Identity(user, "header")
        bearer = _bearer(headers.get("authorization"))
        token = bearer or headers.get("x-api-key")
        if token is not None:
            return await self._token(token)
        cookie = _cookie(headers.get("cookie"), COOKIE)
        if cookie is not None:
            web = await asyncio.to_thread(self.web.get, cookie)
            if web is None:
                raise _unauthorized("signed out: the sign-in expired or its API key was revoked; sign in again")
            return Identity(web.user_id, "cookie", web.key_id, cookie)
        raise _unauthorized("authentication required: send 'Authorization: Bearer <API key or token>' "
                            "or sign in on the page")

    async def _token(self, token: str) -> Identity:
        if looks_like_key(token):
            key = await asyncio.to_thread(self.keys.verify, token)
            if key is None:
                raise _unauthorized("invalid API key: unknown, revoked, expired or mistyped")
            return Identity(key.user_id, "api_key", key.key_id)
        if self.jwt is None:
            raise _unauthorized("invalid credentials: expected an API key (ga_...); bearer JWTs are not configured")
        try:
            if self.jwt.needs_network:
                user = await asyncio.to_thread(self.jwt.user_id, token)
            else:
                user = self.jwt.user_id(token)
            check_user_id(user)
        except TokenRejected as exc:
            raise _unauthorized(str(exc)) from None
        except InputError:
            raise _unauthorized(f"invalid token: claim {self.auth.jwt_user_claim!r} is not a usable user id") from None
        return Identity(user, "jwt")

    # -- limits ----------------------------------------------------------------------------------

    async def before_turn(self, user_id: str) -> None:
        """Refuse a turn (429) while the user's model-token window is spent."""
        limited = await self.limiter.check_tokens(user_id)
        if limited is not None:
            raise LimitExceeded(limited)

    async def metered(self, bursts: AsyncIterator[list[Event]], user_id: str) -> AsyncIterator[list[Event]]:
        """Pass a turn's bursts of events through, adding its model tokens to the user's window at the end."""
        async for burst in bursts:
            for event in burst:
                if isinstance(event, FinalEvent) and event.usage is not None:
                    await self.limiter.add_tokens(user_id, event.usage.input_tokens + event.usage.output_tokens)
            yield burst


def _unauthorized(message: str) -> Rejected:
    return Rejected(401, message, {"WWW-Authenticate": 'Bearer realm="graphagents"'})


def _bearer(value: str | None) -> str | None:
    if not value:
        return None
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _unauthorized("malformed Authorization header: use 'Bearer <API key or token>'")
    return token.strip()


def _cookie(header: str | None, name: str) -> str | None:
    if not header:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header)
    except Exception:  # a malformed Cookie header is the same as none
        return None
    morsel = jar.get(name)
    return morsel.value if morsel is not None and morsel.value else None


def _origin_allowed(origin: str, headers: dict[str, str], allowed: list[str]) -> bool:
    """Same host (the scheme may differ behind a TLS-terminating proxy), or a configured origin."""
    if origin in allowed:
        return True
    try:
        return urlsplit(origin).netloc == headers.get("host", "") != ""
    except ValueError:
        return False


class AccessMiddleware:
    """Authenticate, check CSRF and origin, count the request; then call the app (pure ASGI, so
    streamed responses pass through untouched)."""

    def __init__(self, app: ASGIApp, control: AccessControl) -> None:
        self.app = app
        self.control = control

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            identity = await self._check(scope, headers)
        except Rejected as exc:
            await _send_error(send, exc.status, str(exc), exc.headers)
            return
        scope.setdefault("state", {})["identity"] = identity
        await self.app(scope, receive, send)

    async def _check(self, scope: Scope, headers: dict[str, str]) -> Identity | None:
        control, method = self.control, scope["method"]
        origin = headers.get("origin")
        if method in _UNSAFE and origin and not _origin_allowed(origin, headers, control.auth.cors_origins):
            raise Rejected(403, "cross-site request refused: this origin is not in GRAPHAGENTS_CORS_ORIGINS")
        if (method, scope["path"]) in PUBLIC_API:
            return None
        if not control.enabled and not control.auth.insecure and not _local_peer(scope):
            raise Rejected(403, "authentication is off, so this server answers requests from this machine only; "
                           "set GRAPHAGENTS_AUTH=on (keys: `graphagents keys create`), or GRAPHAGENTS_INSECURE=on "
                           "to let anyone who can reach it act as any user")
        identity = await control.identify(headers)
        if identity.via == "cookie" and method in _UNSAFE and identity.cookie_token is not None \
                and not csrf_matches(identity.cookie_token, headers.get(CSRF_HEADER)):
            raise Rejected(403, "CSRF token missing or wrong: reload the page")
        limited = await control.limiter.hit_request(identity.user_id)
        if limited is not None:
            raise Rejected(429, limited.message, {"Retry-After": str(limited.retry_after)})
        return identity


def _local_peer(scope: Scope) -> bool:
    """The TCP peer is a loopback address (a Unix socket, with no peer address, is local too)."""
    client = scope.get("client")
    if not client:
        return True
    return is_loopback(str(client[0]))


async def _send_error(send: Send, status: int, message: str, headers: dict[str, str]) -> None:
    body = json.dumps({"error": " ".join(message.split())}).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def current_identity(request: Request) -> Identity:
    identity = request.scope.get("state", {}).get("identity")
    if not isinstance(identity, Identity):
        raise RuntimeError("AccessMiddleware is not installed on this app")
    return identity


def access_state(app: Any) -> AccessControl:
    control = getattr(app.state, "access", None)
    if not isinstance(control, AccessControl):
        raise RuntimeError("install_access() was not called on this app")
    return control
