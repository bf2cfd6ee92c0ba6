"""Fixtures for the server tests: a real headless Chromium (Debian's) driven by Playwright."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service_checks import service_missing

CHROMIUM = os.environ.get("GRAPHAGENTS_CHROMIUM", "/usr/bin/chromium")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
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
