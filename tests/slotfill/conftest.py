"""Fixtures for the slotfill tests: the agent registered in-process, on a private data dir per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import graphagents as ga
from graphagents.agents.slotfill.spec import SPEC
from graphagents.registry import unregister
from graphagents.settings import Settings


@pytest.fixture(autouse=True)
def _registered() -> Iterator[None]:
    ga.register(SPEC)
    yield
    unregister(SPEC.name)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path)


@pytest.fixture
def make_agent(settings: Settings) -> Callable[..., ga.Agent]:
    def make(llm: object = None, **options: object) -> ga.Agent:
        return ga.load("slotfill", llm, settings=settings, **options)  # type: ignore[arg-type]

    return make
