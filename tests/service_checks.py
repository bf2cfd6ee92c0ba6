"""The one rule for tests that need a service: skip visibly on a laptop, fail under CI=true."""

from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def service_missing(what: str) -> None:
    if IN_CI:
        pytest.fail(f"{what} (CI=true: services must be available)")
    pytest.skip(what)


SERVICE_MARKERS = {
    "pg_admin_url": "postgres", "pg_database": "postgres", "pgvector_url": "postgres",
    "redis_url": "redis", "browser": "browser",
}
"""A test that uses one of these fixtures gets the marker, so ``-m "not postgres"`` really excludes it."""
