"""The shared-data finder: the env var first, then ``shared/`` above the caller, the package or cwd."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphagents.shared_data import ENV_VAR, find_shared


def test_env_var_wins_over_the_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "datasets" / "x").mkdir(parents=True)
    (tmp_path / "datasets" / "x" / "a.jsonl").write_text("{}\n")
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert find_shared("datasets/x/a.jsonl") == tmp_path / "datasets" / "x" / "a.jsonl"
    assert find_shared("datasets/x") == tmp_path / "datasets" / "x"


def test_found_above_the_start_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    target = tmp_path / "shared" / "datasets" / "only-here.txt"
    target.parent.mkdir(parents=True)
    target.write_text("x")
    deep = tmp_path / "repo" / "tests" / "t.py"
    deep.parent.mkdir(parents=True)
    assert find_shared("datasets/only-here.txt", deep) == target


def test_missing_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert find_shared("datasets/does-not-exist-anywhere.bin") is None
