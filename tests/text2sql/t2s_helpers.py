"""Helpers shared by the text2sql tests (importable because pytest puts this folder on sys.path)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from graphagents.retrieval import OfflineEmbedder


class CountingEmbedder(OfflineEmbedder):
    """The real model without a disk cache, counting the texts that actually reach it (cache misses)."""

    def __init__(self) -> None:
        super().__init__()
        self.encoded: list[str] = []

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        self.encoded.extend(texts)
        return super()._embed_batch(texts)


@contextmanager
def temporary_pg_database(admin_url: str, prefix: str) -> Iterator[str]:
    """A uniquely named database on the test server, dropped (forcibly) on the way out."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def rows(db: Any, sql: str) -> list[tuple[object, ...]]:
    """Every row of ``sql`` on a text2sql ``Database`` (for comparing results in tests)."""
    return list(db.fetch(sql, max_rows=100_000).rows)
