"""The one place where typed events become Server-Sent Events."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from sse_starlette import ServerSentEvent

from ..events import Event


def encode(event: Event) -> ServerSentEvent:
    return ServerSentEvent(data=json.dumps(event.to_dict(), ensure_ascii=False), event=event.type)


async def encode_stream(events: AsyncIterator[Event]) -> AsyncIterator[ServerSentEvent]:
    async for event in events:
        yield encode(event)
