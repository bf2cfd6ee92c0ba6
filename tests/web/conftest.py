"""Fixtures for the web page tests: one live server (built-in agents plus the example agents) and a
module-scoped headless Chromium (Debian's), driven by Playwright."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "server"))  # live_server, sse_client


SCREENSHOTS = HERE.parents[1] / ".graphagents" / "artifacts" / "screenshots"
"""Screenshots kept as test artefacts (gitignored): the page at desktop and phone widths."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from live_server import LiveServer

    with LiveServer(tmp_path_factory.mktemp("web")) as live:  # example agents + the installed ones
        yield live


@pytest.fixture(scope="module")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
