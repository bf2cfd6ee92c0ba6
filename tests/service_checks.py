"""The one rule for tests that need a service: skip visibly on a laptop, fail under CI=true."""

from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def service_missing(what: str) -> None:
    if IN_CI:
        pytest.fail(f"{what} (CI=true: services must be available)")
    pytest.skip(what)
