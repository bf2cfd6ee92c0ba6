"""Fixtures for cache tests: a controllable clock and the offline encoder shared by the session."""

from __future__ import annotations

import pytest
from cache_helpers import FakeClock

from graphagents.retrieval import OfflineEmbedder


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(scope="session")
def offline() -> OfflineEmbedder:
    return OfflineEmbedder()
