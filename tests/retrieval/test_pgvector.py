"""The PostgreSQL + pgvector backend against a real server (the system PostgreSQL with pgvector; see
conftest.py), its parity with the embedded backend, and the one-line errors of a server that cannot
give it pgvector."""

from __future__ import annotations

import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from rt_helpers import CountingFake

from graphagents.errors import ConfigError
from graphagents.retrieval import Document, FakeEmbedder, Store, open_store
from graphagents.retrieval._pgvector import MIN_PGVECTOR, PgVectorStore, _version, require_pgvector, tsvector_literal

DOCS = [Document(f"d{i}", text, {"i": i}) for i, text in enumerate([
    "Influenza causes fever, cough and muscle aches.",
    "Type 2 diabetes is treated with metformin, diet and exercise.",
    "Type 1 diabetes needs insulin because the pancreas makes none.",
    "High blood pressure raises the risk of stroke.",
    "당뇨병 환자는 공복혈당을 매일 확인해야 합니다.",
    "Children with fever should drink fluids; fever fever fever.",
    "Metformin can upset the stomach at first.",
])]
QUERIES = ["fever in children", "metformin diabetes", "공복혈당 확인", "insulin pancreas", "stroke risk pressure",
           "type 2 diabetes treatment", "stomach"]


@pytest.fixture
def pg_store(pgvector_url: str, request: pytest.FixtureRequest) -> PgVectorStore:
    store = open_store(pgvector_url, f"t_{request.node.name[-30:].lower().replace('[', '_').replace(']', '')}",
                       FakeEmbedder(dim=64))
    assert isinstance(store, PgVectorStore)
    store.drop()
    store.close()
    store = open_store(pgvector_url, store.name, FakeEmbedder(dim=64))
    request.addfinalizer(lambda: (store.drop(), store.close()))
    return store  # type: ignore[return-value]


def _ids(store: Store, query: str, mode: str, k: int = 5) -> list[tuple[str, float]]:
    return [(h.id, round(h.score, 4)) for h in store.search(query, k, mode)]  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_same_results_as_embedded(pg_store: PgVectorStore, tmp_path: Path, mode: str) -> None:
    embedded = open_store(f"file://{tmp_path}", "parity", FakeEmbedder(dim=64))
    for store in (embedded, pg_store):
        store.upsert(DOCS)
    for query in QUERIES:
        assert _ids(pg_store, query, mode) == _ids(embedded, query, mode), query


def test_writes_keep_bm25_statistics_exact(pg_store: PgVectorStore, tmp_path: Path) -> None:
    """df, N and the average length follow updates and deletes: scores equal a store built fresh."""
    pg_store.upsert(DOCS)
    pg_store.upsert([Document("d0", "Influenza spreads in winter.", {"i": 0})])
    assert pg_store.delete(["d3", "d6", "missing"]) == 2
    fresh = open_store(f"file://{tmp_path}", "fresh", FakeEmbedder(dim=64))
    fresh.upsert([Document("d0", "Influenza spreads in winter.", {"i": 0}), *(d for d in DOCS if d.id not in
                                                                            {"d0", "d3", "d6"})])
    assert len(pg_store) == len(fresh) == 5
    for query in QUERIES:
        assert _ids(pg_store, query, "bm25") == _ids(fresh, query, "bm25"), query
    assert pg_store.get(["d0"])["d0"].metadata == {"i": 0}


def test_idempotent_sources_and_reopen(pg_store: PgVectorStore, pgvector_url: str) -> None:
    fake = CountingFake(dim=64)
    again = open_store(pgvector_url, pg_store.name, fake)
    pg_store.upsert(DOCS)
    assert again.upsert(DOCS).unchanged == len(DOCS) and fake.seen == []
    from graphagents.retrieval import SourceRecord

    again.set_source(SourceRecord("a.md", "h1", ("a.md#0",)))
    assert pg_store.get_source("a.md") == SourceRecord("a.md", "h1", ("a.md#0",))
    again.close()


def test_hnsw_path_finds_near_neighbours(pgvector_url: str) -> None:
    store = open_store(pgvector_url, "t_hnsw", FakeEmbedder(dim=64), exact_limit=0)
    try:
        store.upsert([Document(f"n{i}", f"note {i} about topic {i % 7} and item {i * 13 % 101}") for i in range(300)])
        for i in (0, 57, 299):
            text = f"note {i} about topic {i % 7} and item {i * 13 % 101}"
            assert store.search(text, 3, "dense")[0].id == f"n{i}"
    finally:
        store.drop()
        store.close()


def test_embedder_is_remembered(pg_store: PgVectorStore, pgvector_url: str) -> None:
    pg_store.upsert(DOCS[:1])

    class Other(FakeEmbedder):
        name = "other-model"

    with pytest.raises(ConfigError, match="holds vectors of embedder 'fake'"):
        open_store(pgvector_url, pg_store.name, Other(dim=64))


def test_tsvector_keeps_our_terms_verbatim() -> None:
    assert tsvector_literal(["o'brien", "a\\b", "x", "o'brien"]) == "'o''brien':1,4 'a\\\\b':2 'x':3"


def test_a_server_without_the_extension_is_one_clear_line(pgvector_url: str) -> None:
    """The same check as for pgvector, asked about an extension this server does not have: it names
    the server's apt package, the install script and the embedded store."""
    import psycopg

    with psycopg.connect(pgvector_url, autocommit=True) as conn:
        major = int(conn.execute("SHOW server_version_num").fetchone()[0]) // 10000  # type: ignore[index]
        with pytest.raises(ConfigError) as caught:
            require_pgvector(conn, pgvector_url, extension="ga_not_installed_here")
    message = str(caught.value)
    assert "pgvector is not installed on the PostgreSQL server" in message and "\n" not in message
    assert f"apt install postgresql-{major}-pgvector" in message
    assert "scripts/install-pgvector.sh" in message and "embedded store" in message


def test_a_role_that_cannot_create_the_extension_is_one_clear_line(pgvector_url: str) -> None:
    """pgvector is installed on the server, but only a superuser may create it in a new database."""
    import psycopg

    suffix = uuid.uuid4().hex[:8]
    role, database = f"ga_noext_{suffix}", f"ga_noext_{suffix}"
    with psycopg.connect(pgvector_url, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute(f"CREATE DATABASE {database} OWNER {role}")
    parts = urlsplit(pgvector_url)
    host = f"{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}"
    url = urlunsplit(parts._replace(netloc=f"{role}@{host}", path=f"/{database}"))
    try:
        with pytest.raises(ConfigError) as caught:
            open_store(url, "probe", FakeEmbedder(dim=8))
        message = str(caught.value)
        assert "pgvector is installed on the server" in message and "CREATE EXTENSION vector failed" in message
        assert "permission denied" in message and "as a superuser" in message and "\n" not in message
    finally:
        with psycopg.connect(pgvector_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
            admin.execute(f"DROP ROLE IF EXISTS {role}")


def test_an_old_pgvector_is_one_clear_line(pgvector_url: str) -> None:
    """The version check reads the version the database really has (0.8.0 here, 0.5.0 needed)."""
    import psycopg

    with psycopg.connect(pgvector_url, autocommit=True) as conn:
        version = require_pgvector(conn, pgvector_url)
        assert _version(version) >= MIN_PGVECTOR
        with pytest.raises(ConfigError, match=rf"pgvector {version} in the database of .* is older than 99\.0, "
                                              r".*ALTER EXTENSION vector UPDATE"):
            require_pgvector(conn, pgvector_url, minimum=(99, 0))
    assert _version("0.5.0") >= MIN_PGVECTOR > _version("0.4.4")
    assert _version("0.10.1-dev") == (0, 10, 1) > _version("0.9.9")
