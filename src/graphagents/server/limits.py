"""Request limits that hold whatever the client sends.

* :class:`BodyLimitMiddleware` counts the body bytes actually received (``Content-Length`` or
  ``Transfer-Encoding: chunked`` alike) and stops reading at the limit: 413, one line, nothing of
  the input echoed. A router that accepts larger bodies (uploads) registers its own limit for a
  path prefix in ``app.state.body_limits``.
* :class:`Admission` bounds the turns one process runs or queues at once (503 + Retry-After when
  full), so a flood of messages cannot grow memory without end; the per-session bound lives with
  the session lock (``graphagents._locks``).
"""

from __future__ import annotations

import contextlib
import json
import weakref
from collections.abc import AsyncIterator, Callable, MutableMapping
from typing import Any, TypeVar

from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import BusyError

__all__ = ["Admission", "BodyLimitMiddleware", "BodyTooLarge", "MethodGuardMiddleware"]

T = TypeVar("T")


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` the moment the body passes the limit; FastAPI re-raises HTTP errors
    from body parsing as they are, so the client gets this 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body is over the limit of {limit} bytes")


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, default: int, limits: MutableMapping[str, int]) -> None:
        self.app = app
        self.default = default
        self.limits = limits  # path prefix -> bytes, filled by routers (app.state.body_limits)

    def limit_for(self, path: str) -> int:
        best, limit = -1, self.default
        for prefix, value in self.limits.items():
            if path.startswith(prefix) and len(prefix) > best:
                best, limit = len(prefix), value
        return limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope["path"])
        for key, value in scope["headers"]:
            if key == b"content-length":
                declared = value.decode("latin-1")
                if not declared.isdigit() or int(declared) > limit:
                    await _reject(send, 413, f"request body is over the limit of {limit} bytes")
                    return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:  # stop here: the rest of the body is never read
                    raise BodyTooLarge(limit)
            return message

        async def watch_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, watch_send)
        except BodyTooLarge as exc:  # read outside FastAPI's body parsing (a raw route, a middleware)
            if started:
                raise
            await _reject(send, 413, str(exc.detail))


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


class MethodGuardMiddleware:
    """405 with ``Allow`` for a method no route of that path takes, before authentication or any
    header is looked at (a TRACE is a 405 whoever sends it)."""

    def __init__(self, app: ASGIApp, router: Any) -> None:
        self.app = app
        self.router = router

    def _routed(self, scope: Scope) -> bool:
        """Some route takes this method on this path (or nothing takes the path: a 404 later)."""
        partial = False
        for route in self.router.routes:
            match, _ = route.matches(scope)
            if match is Match.FULL:
                return True
            partial = partial or match is Match.PARTIAL
        return not partial

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # OPTIONS passes: a CORS preflight is answered by the CORS middleware further in.
        if scope["type"] == "http" and scope["method"] != "OPTIONS" and not self._routed(scope):
            allowed = [m for m in _METHODS if m != scope["method"] and self._routed({**scope, "method": m})]
            if allowed:
                await _reject(send, 405, "method not allowed", [(b"allow", ", ".join(sorted(allowed)).encode())])
                return
        await self.app(scope, receive, send)


async def _reject(send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"), *(headers or []),
    ]})
    await send({"type": "http.response.body", "body": body})


class Admission:
    """At most ``limit`` turns admitted in this process (running or waiting for their session)."""

    def __init__(self, limit: int, retry_after: int = 2) -> None:
        self.limit = limit
        self.retry_after = retry_after
        self.active = 0
        self.refused = 0

    @property
    def saturated(self) -> bool:
        return self.active >= self.limit

    def enter(self) -> None:
        """Count one turn in (the caller must :meth:`leave` once), or BusyError when full."""
        if self.active >= self.limit:
            self.refused += 1
            raise BusyError(f"the server is running {self.active} turns, its limit; retry shortly",
                            scope="server", retry_after=self.retry_after)
        self.active += 1

    def leave(self) -> None:
        self.active -= 1

    def admit(self, events: AsyncIterator[T]) -> AsyncIterator[T]:
        """``events``, leaving once when the stream ends, fails, is dropped, or is never started at
        all (a client gone before the response began: the generator is collected unrun)."""
        left = False

        def leave() -> None:
            nonlocal left
            if not left:
                left = True
                self.leave()

        stream = self._guard(events, leave)
        weakref.finalize(stream, leave)
        return stream

    @staticmethod
    async def _guard(events: AsyncIterator[T], leave: Callable[[], None]) -> AsyncIterator[T]:
        try:
            async for event in events:
                yield event
        finally:
            leave()
            with contextlib.suppress(Exception):
                await events.aclose()  # type: ignore[attr-defined]
