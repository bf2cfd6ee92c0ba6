"""Fixtures for access control: an app with auth on, two users with keys, the memo agent."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "server"))  # sse_client, live_server

from auth_helpers import User, new_user, reset_settings  # noqa: E402


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A data dir of this test's own, so that the files can be searched for leftovers."""
    monkeypatch.setenv("GRAPHAGENTS_DATA_DIR", str(tmp_path / "data"))
    reset_settings()
    yield tmp_path / "data"
    reset_settings()


@pytest.fixture
def auth_on(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("GRAPHAGENTS_AUTH", "true")
    reset_settings()
    yield
    reset_settings()


@pytest.fixture
def memo_spec() -> Iterator[Any]:
    from memo_agent import SPEC

    import graphagents as ga
    from graphagents.registry import unregister

    ga.register(SPEC)
    yield SPEC
    unregister(SPEC.name)


@pytest.fixture
def alice(auth_on: None) -> User:
    return new_user("alice")


@pytest.fixture
def bob(auth_on: None) -> User:
    return new_user("bob")


@pytest.fixture
async def client(auth_on: None, memo_spec: Any, example_spec: Any, trip_spec: Any) -> AsyncIterator[httpx.AsyncClient]:
    from graphagents.server import create_app
    from graphagents.settings import get_settings

    app = create_app(get_settings())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


