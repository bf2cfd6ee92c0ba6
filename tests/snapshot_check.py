"""The one rule for snapshot tests: compare with the committed file; write it only when allowed.

Locally a missing snapshot is written (a new graph gets its first drawing) and ``UPDATE_SNAPSHOTS=1``
rewrites a changed one. Under ``CI=true`` a missing snapshot FAILS: a test that writes what it
then compares with cannot fail, so CI must only ever compare with what was committed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service_checks import IN_CI


def assert_snapshot(actual: str, path: Path, *, ci: bool = IN_CI) -> None:
    if not path.exists():
        if ci:
            pytest.fail(f"snapshot {path} is missing (CI=true): run the test locally and commit the file")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    elif os.environ.get("UPDATE_SNAPSHOTS") and not ci:
        path.write_text(actual, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"{path.name} differs from the drawing; UPDATE_SNAPSHOTS=1 rewrites it if intended"
