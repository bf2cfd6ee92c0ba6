"""Framing and decoding: hostile or broken bytes from a child fail cleanly, never execute."""

from __future__ import annotations

import os
import time

import pandas as pd
import pytest

from graphagents.sandbox.codec import decode_value, encode_value, frame_from_ipc, frame_to_ipc
from graphagents.sandbox.pool import _result
from graphagents.sandbox.protocol import (
    FrameError,
    FrameTimeout,
    decode_body,
    encode_body,
    read_frame,
    unframe,
    write_frame,
)
from graphagents.sandbox.result import Limits


def test_frames_round_trip_through_a_pipe() -> None:
    read_end, write_end = os.pipe()
    try:
        write_frame(write_end, encode_body({"op": "x", "n": 1}, [b"abc", b""]))
        header, blobs = decode_body(read_frame(read_end, deadline=time.monotonic() + 5))
        assert header == {"op": "x", "n": 1}
        assert [bytes(b) for b in blobs] == [b"abc", b""]
    finally:
        os.close(read_end)
        os.close(write_end)


def test_read_frame_honours_deadline_and_size_cap() -> None:
    read_end, write_end = os.pipe()
    try:
        with pytest.raises(FrameTimeout):
            read_frame(read_end, deadline=time.monotonic() + 0.05)
        write_frame(write_end, encode_body({"big": "x" * 1000}))
        with pytest.raises(FrameError, match="limit"):
            read_frame(read_end, deadline=time.monotonic() + 5, max_bytes=100)
    finally:
        os.close(read_end)
        os.close(write_end)


@pytest.mark.parametrize(
    "body",
    [b"", b"\x00\x00\x00\x05{bad}", b"\x00\x00\x00\x02[]", b'\x00\x00\x00\x13{"blob_sizes":[99]}'],
)
def test_malformed_bodies_raise_frame_error(body: bytes) -> None:
    with pytest.raises(FrameError):
        decode_body(body)


def test_unframe_rejects_truncated_frames() -> None:
    read_end, write_end = os.pipe()
    write_frame(write_end, b"hello")
    os.close(write_end)
    raw = os.read(read_end, 100)
    os.close(read_end)
    assert bytes(unframe(raw)) == b"hello"
    with pytest.raises(FrameError):
        unframe(raw[:-1])


def test_garbage_table_bytes_raise_instead_of_crashing() -> None:
    good = frame_to_ipc(pd.DataFrame({"a": [1, 2]}))
    for bad in (b"not arrow", good[: len(good) // 2], good[:8] + b"\xff" * (len(good) - 8)):
        with pytest.raises(Exception):  # noqa: B017  any pyarrow error: the point is no crash, no code
            frame_from_ipc(bad)


def test_a_corrupt_child_payload_becomes_a_crash_result() -> None:
    result = _result({"status": "done", "exit": 0}, [memoryview(b"GAS1garbage")], Limits(), time.perf_counter(), 1)
    assert not result.ok and result.error_type == "crashed"


def test_values_encode_and_decode() -> None:
    header, blobs = encode_value(pd.Series([1, 2], name="n"), max_rows=10, max_items=10, max_chars=10)
    decoded = decode_value(*decode_body(encode_body(header, blobs)))
    assert isinstance(decoded, pd.Series) and decoded.name == "n" and decoded.tolist() == [1, 2]
