"""Length-prefixed messages between the caller, the worker and its forked children.

A message is a JSON header plus binary blobs (Arrow IPC streams). Nothing is pickled in either
direction: a compromised child can at worst send bytes that fail to parse. Reads take a deadline
and a size cap, so a child that never answers or floods its pipe cannot stall or bloat the caller.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from typing import Any

__all__ = ["FrameError", "FrameTimeout", "decode_body", "encode_body", "read_frame", "unframe", "write_frame",
           "write_message"]

_MAGIC = b"GAS1"
_PREFIX = struct.Struct("!4sQ")
_HEADER_LEN = struct.Struct("!I")


class FrameError(Exception):
    """The other side closed the pipe, sent garbage, or sent more than allowed."""


class FrameTimeout(FrameError):
    """No complete message before the deadline."""


def encode_body(header: dict[str, Any], blobs: list[bytes] | None = None) -> bytes:
    blobs = blobs or []
    header = dict(header, blob_sizes=[len(b) for b in blobs])
    raw = json.dumps(header, ensure_ascii=False, allow_nan=False).encode()
    return b"".join([_HEADER_LEN.pack(len(raw)), raw, *blobs])


def decode_body(body: bytes | bytearray | memoryview) -> tuple[dict[str, Any], list[memoryview]]:
    view = memoryview(body)
    if len(view) < _HEADER_LEN.size:
        raise FrameError("message too short")
    (size,) = _HEADER_LEN.unpack(view[: _HEADER_LEN.size])
    start = _HEADER_LEN.size
    try:
        header = json.loads(bytes(view[start : start + size]))
    except (UnicodeDecodeError, ValueError) as exc:
        raise FrameError(f"bad message header: {exc}") from None
    if not isinstance(header, dict):
        raise FrameError("bad message header: not an object")
    sizes = header.pop("blob_sizes", [])
    if not isinstance(sizes, list) or not all(isinstance(n, int) and n >= 0 for n in sizes):
        raise FrameError("bad message header: blob sizes")
    pos = start + size
    blobs = []
    for n in sizes:
        if pos + n > len(view):
            raise FrameError("message shorter than its blobs")
        blobs.append(view[pos : pos + n])
        pos += n
    return header, blobs


def unframe(data: bytes | bytearray | memoryview) -> memoryview:
    """The body of one complete frame held in memory (a child's relayed result)."""
    view = memoryview(data)
    if len(view) < _PREFIX.size:
        raise FrameError("frame too short")
    magic, size = _PREFIX.unpack(view[: _PREFIX.size])
    if magic != _MAGIC or len(view) != _PREFIX.size + size:
        raise FrameError("incomplete or corrupt frame")
    return view[_PREFIX.size :]


def write_frame(fd: int, body: bytes) -> None:
    _write_all(fd, _PREFIX.pack(_MAGIC, len(body)))
    _write_all(fd, body)


def write_message(fd: int, header: dict[str, Any], blobs: list[bytes] | None = None) -> None:
    """``write_frame(fd, encode_body(header, blobs))`` without joining the blobs into one more copy
    (a result of hundreds of MB would need twice that to be sent)."""
    blobs = blobs or []
    header = dict(header, blob_sizes=[len(b) for b in blobs])
    raw = json.dumps(header, ensure_ascii=False, allow_nan=False).encode()
    size = _HEADER_LEN.size + len(raw) + sum(len(b) for b in blobs)
    _write_all(fd, _PREFIX.pack(_MAGIC, size) + _HEADER_LEN.pack(len(raw)) + raw)
    for blob in blobs:
        _write_all(fd, blob)


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def read_frame(fd: int, *, deadline: float | None = None, max_bytes: int = 1 << 34) -> bytearray:
    """One framed body from ``fd``; ``deadline`` is a ``time.monotonic()`` value."""
    prefix = _read_exact(fd, _PREFIX.size, deadline)
    magic, size = _PREFIX.unpack(prefix)
    if magic != _MAGIC:
        raise FrameError("bad message prefix")
    if size > max_bytes:
        raise FrameError(f"message of {size} bytes is over the {max_bytes} byte limit")
    return _read_exact(fd, size, deadline)


def _read_exact(fd: int, size: int, deadline: float | None) -> bytearray:
    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    while got < size:
        wait_readable(fd, deadline)
        n = os.readv(fd, [view[got:]])
        if n == 0:
            raise FrameError("the other side closed the pipe")
        got += n
    return buf


def wait_readable(fd: int, deadline: float | None) -> None:
    if deadline is None:
        return
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise FrameTimeout("no answer before the deadline")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            return
