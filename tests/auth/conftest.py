"""Fixtures for access control: an app with auth on, two users with keys, the memo agent."""

from __future__ import annotations

import os
import shutil
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "server"))  # sse_client, live_server

from service_checks import service_missing  # noqa: E402

CHROMIUM = os.environ.get("GRAPHAGENTS_CHROMIUM", "/usr/bin/chromium")


@dataclass
class User:
    user_id: str
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def reset_settings() -> None:
    from graphagents import _connections
    from graphagents.auth.settings import get_auth_settings
    from graphagents.settings import get_settings

    get_settings.cache_clear()
    get_auth_settings.cache_clear()
    _connections.reset()


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
    import graphagents as ga
    from graphagents.registry import unregister
    from memo_agent import SPEC

    ga.register(SPEC)
    yield SPEC
    unregister(SPEC.name)


def new_user(prefix: str) -> User:
    from graphagents.auth.keys import KeyStore
    from graphagents.settings import get_settings
    from graphagents.store import database_for

    user_id = f"{prefix}-{uuid.uuid4().hex[:8]}"
    key, _ = KeyStore(database_for(get_settings().resolved_database_url)).create(user_id, name="test")
    return User(user_id, key)


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


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        service_missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        service_missing("playwright is not installed (pip install 'graphagents[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                              args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
                                    "--disable-background-networking", "--disable-component-update"])
        yield b
        b.close()
