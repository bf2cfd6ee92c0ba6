"""Fixtures of the supervisor tests: the bundled real-estate dataset and its parsed parts."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def dataset() -> Path:
    from graphagents.agents.supervisor.data import find_dataset

    return find_dataset()


@pytest.fixture(scope="session")
def articles(dataset: Path) -> dict[str, object]:
    from graphagents.agents.supervisor.data import load_articles

    return {a.id: a for a in load_articles(dataset)}
