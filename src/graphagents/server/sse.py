"""The one place where typed events become Server-Sent Events.

Each frame is ``event: <type>`` and ``data: <event JSON>``; the JSON has ``namespace`` (the
subgraph path, ``[]`` for the top graph) like every event. A failure after the response has started
cannot change the status code any more: it becomes an ``error`` frame and a ``final`` frame.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import AsyncIterator

from sse_starlette import ServerSentEvent

from .._turn import ERROR_REPLY
from ..events import ErrorEvent, Event, FinalEvent

log = logging.getLogger("graphagents.server")


def encode(event: Event) -> bytes:
    """One SSE frame: ``event: <type>``, ``data: <event JSON>``."""
    return ServerSentEvent(data=json.dumps(event.to_dict(), ensure_ascii=False), event=event.type).encode()


async def encode_stream(bursts: AsyncIterator[list[Event]]) -> AsyncIterator[bytes]:
    """One chunk per burst of events (every frame the turn had ready), so that a turn is a few
    writes rather than one per event."""
    try:
        async for burst in bursts:
            yield b"".join(encode(event) for event in burst)
    except Exception as exc:
        ref = uuid.uuid4().hex[:8]
        log.error("a turn failed after its response started (ref %s)", ref, exc_info=exc)
        yield encode(ErrorEvent(f"the turn failed (ref {ref}); the server log has the details", code="internal"))
        yield encode(FinalEvent(ERROR_REPLY, False))
