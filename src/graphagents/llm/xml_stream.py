"""Incremental extraction of XML sections from a streamed model answer, with throttling.

``feed`` is called with each chunk; it returns the new text of every section seen so far,
holding back a tail that might be the start of a closing tag, and at most once per
``throttle_s`` unless a section just closed. ``flush`` returns whatever is left.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .xml_protocol import SECTIONS


@dataclass(frozen=True)
class SectionDelta:
    section: str
    text: str
    complete: bool


@dataclass
class _Track:
    emitted: int = 0
    complete: bool = False


@dataclass
class StreamingXmlSectionsExtractor:
    sections: Sequence[str] = SECTIONS
    throttle_s: float = 0.1
    clock: Callable[[], float] = time.monotonic
    buffer: str = ""
    _tracks: dict[str, _Track] = field(default_factory=dict)
    _last_emit: float = float("-inf")

    def _span(self, tag: str, final: bool = False) -> tuple[int, int, bool] | None:
        open_tag, close_tag = f"<{tag}>", f"</{tag}>"
        start = self.buffer.find(open_tag)
        if start == -1:
            return None
        start += len(open_tag)
        end = self.buffer.find(close_tag, start)
        if end != -1:
            return start, end, True
        if final:
            return start, len(self.buffer), False
        # Hold back a trailing "<..." that may become the closing tag.
        tail = self.buffer.rfind("<", start)
        safe_end = tail if tail != -1 and close_tag.startswith(self.buffer[tail:]) else len(self.buffer)
        return start, safe_end, False

    def _collect(self, final: bool = False) -> list[SectionDelta]:
        out: list[SectionDelta] = []
        for tag in self.sections:
            span = self._span(tag, final)
            if span is None:
                continue
            start, end, complete = span
            track = self._tracks.setdefault(tag, _Track())
            if track.complete:
                continue
            text = self.buffer[start + track.emitted : end]
            if text or complete:
                out.append(SectionDelta(tag, text, complete))
                track.emitted += len(text)
                track.complete = complete
        return out

    def feed(self, chunk: str) -> list[SectionDelta]:
        self.buffer += chunk
        now = self.clock()
        closed_now = any(
            f"</{tag}>" in self.buffer and not self._tracks.get(tag, _Track()).complete for tag in self.sections
        )
        if not closed_now and now - self._last_emit < self.throttle_s:
            return []
        self._last_emit = now
        return self._collect()

    def flush(self) -> list[SectionDelta]:
        return self._collect(final=True)

    def section_text(self, tag: str) -> str:
        span = self._span(tag)
        return "" if span is None else self.buffer[span[0] : span[1]]
