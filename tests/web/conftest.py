"""Fixtures for the web page tests: one live server (built-in agents plus the example agents) and a
module-scoped headless Chromium (Debian's), driven by Playwright."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "server"))  # live_server, sse_client

from service_checks import service_missing  # noqa: E402

CHROMIUM = os.environ.get("GRAPHAGENTS_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = HERE.parents[1] / ".graphagents" / "artifacts" / "screenshots"
"""Screenshots kept as test artefacts (gitignored): the page at desktop and phone widths."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Module-scoped: the sync Playwright API keeps an event loop running in this thread while it is
    open, which would break the asyncio tests collected after this module."""
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


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from live_server import LiveServer

    with LiveServer(tmp_path_factory.mktemp("web")) as live:  # example agents + the installed ones
        yield live


@pytest.fixture(scope="module")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
