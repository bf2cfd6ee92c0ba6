"""The one place where typed events become Server-Sent Events.

Each frame is ``event: <type>`` and ``data: <event JSON>``; the JSON has ``namespace`` (the
subgraph path, ``[]`` for the top graph) like every event. A failure after the response has started
cannot change the status code any more: it becomes an ``error`` frame and a ``final`` frame.

:class:`EventStream` writes a turn: one chunk per burst of events, the last one (with the ``final``
frame) together with the end of the body, and a ``: ping`` comment while a long turn has nothing
to send. Every socket write on loopback also costs the kernel's delivery to the reader, and each
ASGI message passes every middleware: a turn of eight bursts through sse-starlette's response was
ten writes and, with its per-response task group, about a tenth of the server's CPU per turn
(bench/server_load.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from sse_starlette import ServerSentEvent
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from .._turn import ERROR_REPLY
from ..events import ErrorEvent, Event, FinalEvent

log = logging.getLogger("graphagents.server")


def encode(event: Event) -> bytes:
    """One SSE frame: ``event: <type>``, ``data: <event JSON>``."""
    return ServerSentEvent(data=json.dumps(event.to_dict(), ensure_ascii=False), event=event.type).encode()


async def encode_frames(bursts: AsyncIterator[list[Event]]) -> AsyncGenerator[tuple[bytes, bool], None]:
    """One chunk per burst of events (every frame the turn had ready), so that a turn is a few
    writes rather than one per event; each with whether it holds the ``final`` frame."""
    try:
        async for burst in bursts:
            yield b"".join(encode(event) for event in burst), any(isinstance(e, FinalEvent) for e in burst)
    except Exception as exc:
        ref = uuid.uuid4().hex[:8]
        log.error("a turn failed after its response started (ref %s)", ref, exc_info=exc)
        error = ErrorEvent(f"the turn failed (ref {ref}); the server log has the details", code="internal")
        yield encode(error) + encode(FinalEvent(ERROR_REPLY, False)), True


class EventStream(Response):
    """A turn's events as ``text/event-stream`` (see the module doc). A client that goes away does
    not stop the turn: it runs to its end and is checkpointed; its frames go nowhere."""

    def __init__(self, bursts: AsyncIterator[list[Event]], *, ping: float = 15.0, status_code: int = 200) -> None:
        # The media type is set here, not on the class: FastAPI would document the route's error
        # answers (JSON) as event streams too; SSE_RESPONSE documents the 200.
        super().__init__(None, status_code, media_type="text/event-stream",
                         headers={"Cache-Control": "no-store", "Connection": "keep-alive", "X-Accel-Buffering": "no"})
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]  # a stream: chunked
        self._frames = encode_frames(bursts)
        self._ping = ping

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        frames, ended = self._frames, False
        step: asyncio.Future[Any] | None = None
        try:
            while not ended:
                step = asyncio.ensure_future(anext(frames, None))
                while not (await asyncio.wait({step}, timeout=self._ping))[0]:
                    await send({"type": "http.response.body", "body": b": ping\r\n\r\n", "more_body": True})
                item, step = step.result(), None
                if item is None:
                    break
                chunk, ended = item
                await send({"type": "http.response.body", "body": chunk, "more_body": not ended})
            if ended:
                async for _late in frames:  # nothing follows the final frame: let the stream finish
                    pass
        finally:
            if step is not None:
                step.cancel()  # this response was cancelled (shutdown) while it waited for the turn
            with contextlib.suppress(Exception):
                await frames.aclose()
        if not ended:
            await send({"type": "http.response.body", "body": b"", "more_body": False})
