"""A tiny SSE reader for tests: frames -> (event, data) pairs."""

from __future__ import annotations

import json
from typing import Any


def parse_sse(body: str) -> list[tuple[str, dict[str, Any]]]:
    frames = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        event, data = None, []
        for line in block.split("\n"):
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())
        if event and data:
            frames.append((event, json.loads("\n".join(data))))
    return frames
