"""Tiny GGUF files for tests of the model-file checks (header only: no tensors)."""

from __future__ import annotations

import struct


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def gguf_bytes(name: str | None, *, version: int = 3, padding: int = 0) -> bytes:
    """A GGUF header with an int, an array of strings and (optionally) ``general.name``, then padding."""
    kvs = [
        _string("general.architecture") + struct.pack("<I", 8) + _string("qwen2"),
        _string("qwen2.block_count") + struct.pack("<I", 4) + struct.pack("<I", 28),
        _string("tokenizer.ggml.tokens") + struct.pack("<I", 9) + struct.pack("<IQ", 8, 3)
        + _string("a") + _string("b") + _string("c"),
        _string("tokenizer.ggml.scores") + struct.pack("<I", 9) + struct.pack("<IQ", 6, 2) + struct.pack("<ff", 0, 1),
    ]
    if name is not None:
        kvs.append(_string("general.name") + struct.pack("<I", 8) + _string(name))
    header = b"GGUF" + struct.pack("<IQQ", version, 0, len(kvs)) + b"".join(kvs)
    return header + bytes(range(256)) * (padding // 256) + bytes(padding % 256)
