"""Fixtures of the supervisor tests: the shared real-estate dataset (skip locally, fail under CI
when it is absent) and its parsed parts."""

from __future__ import annotations

from pathlib import Path

import pytest

from service_checks import service_missing


@pytest.fixture(scope="session")
def dataset() -> Path:
    from graphagents.agents.supervisor.data import find_dataset
    from graphagents.errors import ConfigError

    try:
        return find_dataset()
    except ConfigError as exc:
        service_missing(str(exc))
        raise


@pytest.fixture(scope="session")
def articles(dataset: Path) -> dict[str, object]:
    from graphagents.agents.supervisor.data import load_articles

    return {a.id: a for a in load_articles(dataset)}
