"""The snapshot rule itself: compare, write only locally, and fail under CI when the file is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapshot_check import assert_snapshot


def test_a_missing_snapshot_fails_under_ci_and_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "graph.mmd"
    with pytest.raises(pytest.fail.Exception, match="missing"):
        assert_snapshot("graph TD", path, ci=True)
    assert not path.exists()


def test_locally_a_missing_snapshot_is_written_then_compared(tmp_path: Path) -> None:
    path = tmp_path / "snapshots" / "graph.mmd"
    assert_snapshot("graph TD", path, ci=False)
    assert path.read_text(encoding="utf-8") == "graph TD"
    with pytest.raises(AssertionError, match="differs"):
        assert_snapshot("graph LR", path, ci=False)


def test_update_rewrites_only_outside_ci(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "graph.mmd"
    path.write_text("old", encoding="utf-8")
    monkeypatch.setenv("UPDATE_SNAPSHOTS", "1")
    with pytest.raises(AssertionError):
        assert_snapshot("new", path, ci=True)
    assert_snapshot("new", path, ci=False)
    assert path.read_text(encoding="utf-8") == "new"
