"""Test-suite wide rules: no real model calls, a private data dir, services real or visibly absent."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

TESTS_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS_DIR))

from service_checks import SERVICE_MARKERS, service_missing  # noqa: E402

PG_URL = os.environ.get("GRAPHAGENTS_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("GRAPHAGENTS_TEST_REDIS", "redis://127.0.0.1:6379/15")


def pytest_configure(config: pytest.Config) -> None:
    data_dir = tempfile.mkdtemp(prefix="graphagents-tests-")
    os.environ["GRAPHAGENTS_DATA_DIR"] = data_dir
    for var in ("GRAPHAGENTS_LLM", "GRAPHAGENTS_CHECKPOINT_URL", "GRAPHAGENTS_DATABASE_URL", "GRAPHAGENTS_CACHE_URL"):
        os.environ.pop(var, None)
    # Servers the tests start build agents on demand; the reliability tests turn warming on themselves.
    os.environ["GRAPHAGENTS_WARM_ON_START"] = "false"
    from graphagents.testing import forbid_model_requests

    forbid_model_requests()  # checked at request time: a hand-built provider model fails too




def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for fixture in getattr(item, "fixturenames", ()):
            marker = SERVICE_MARKERS.get(fixture)
            if marker is not None and item.get_closest_marker(marker) is None:
                item.add_marker(getattr(pytest.mark, marker))


@pytest.fixture(scope="session")
def pg_admin_url() -> str:
    try:
        import psycopg

        with psycopg.connect(PG_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # any failure to reach the server counts as absent
        service_missing(f"PostgreSQL not reachable at {PG_URL}: {str(exc).splitlines()[0]}")
    return PG_URL


@pytest.fixture
def pg_database(pg_admin_url: str) -> Iterator[str]:
    """A uniquely named database on the test server, dropped (forcibly) afterwards: tests that create
    tables never touch what other engineers' tests use."""
    import psycopg

    name = f"ga_core_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(pg_admin_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield urlunsplit(urlsplit(pg_admin_url)._replace(path=f"/{name}"))
    finally:
        from graphagents import _connections

        _connections.reset()  # close our pools first, or DROP waits for them
        with psycopg.connect(pg_admin_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def redis_url() -> str:
    try:
        import redis

        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except Exception as exc:
        service_missing(f"Redis not reachable at {REDIS_URL}: {exc}")
    return REDIS_URL


@pytest.fixture(scope="session")
def defog_csv() -> Path:
    """The bundled defog development questions (gold SQL over the ``defog-data`` databases)."""
    from graphagents.packagedata import defog_dev_questions

    return defog_dev_questions()


@pytest.fixture
def example_spec() -> Iterator[object]:
    import graphagents as ga
    from example_agent import SPEC

    ga.register(SPEC)
    yield SPEC
    from graphagents.registry import unregister

    unregister(SPEC.name)


@pytest.fixture
def trip_spec() -> Iterator[object]:
    import graphagents as ga
    from example_agent import TRIP

    ga.register(TRIP)
    yield TRIP
    from graphagents.registry import unregister

    unregister(TRIP.name)


@pytest.fixture
def fresh_resources() -> Iterator[None]:
    """Close shared connections before and after, as if the process restarted."""
    from graphagents import _connections

    _connections.reset()
    yield
    _connections.reset()


# The page tests of every agent share one headless Chromium (Debian's), driven by Playwright.
CHROMIUM = os.environ.get("GRAPHAGENTS_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Module-scoped: the sync Playwright API keeps an event loop running in this thread while it is
    open, which would break every asyncio test collected after the module that opened it."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        service_missing(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        service_missing("playwright is not installed (pip install 'graphagents[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        )
        yield b
        b.close()
