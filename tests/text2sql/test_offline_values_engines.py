"""A label of a lookup table stands for its key on either engine: the offline brain's value index
looks the key up with the engine's own parameter placeholder (``Database.placeholder``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from t2s_helpers import temporary_pg_database

from graphagents.agents.text2sql.offline.catalog import Catalog
from graphagents.agents.text2sql.offline.values import ValueHit, ValueIndex
from graphagents.agents.text2sql.schema import load_schema_graph
from graphagents.sql import Database, open_database

DDL = [
    "CREATE TABLE regions (code TEXT PRIMARY KEY, name TEXT NOT NULL)",
    "CREATE TABLE shops (id INTEGER PRIMARY KEY, region_code TEXT REFERENCES regions (code), sales INTEGER)",
    "INSERT INTO regions VALUES ('KR-11', 'Seoul'), ('KR-26', 'Busan')",
    "INSERT INTO shops VALUES (1, 'KR-11', 10), (2, 'KR-26', 20), (3, 'KR-11', 30)",
]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "sqlite":
        path = tmp_path / "shops.db"
        with sqlite3.connect(path) as conn:
            for statement in DDL:
                conn.execute(statement)
        conn.close()
        database = open_database(str(path))
        yield database
        database.close()
        return
    import psycopg

    with temporary_pg_database(request.getfixturevalue("pg_url"), "gg_vals") as url:
        with psycopg.connect(url, autocommit=True) as conn:
            for statement in DDL:
                conn.execute(statement)
        database = open_database(url)
        yield database
        database.close()


def test_a_lookup_label_becomes_its_key(db: Database, tmp_path: Path) -> None:
    graph = load_schema_graph(db, data_dir=tmp_path / "graph")
    index = ValueIndex(Catalog(graph), db)
    hit = index._normalise(ValueHit("서울", "regions", "name", "Seoul", 0.9))
    assert (hit.table, hit.column, hit.value, hit.key_table) == ("regions", "code", "KR-11", "regions")
