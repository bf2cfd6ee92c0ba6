"""The dataset is found, loaded on first use and turned into a real SQL database (SQLite by
default, PostgreSQL on request); bad paths are one clear error."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from graphagents.agents.supervisor import data
from graphagents.errors import ConfigError


def test_statutes_and_products_load(dataset: Path) -> None:
    articles = data.load_articles(dataset)
    assert len(articles) == 82 and articles[0].citation == "주택임대차보호법 제1조"
    assert any(a.deleted for a in articles)  # 민법 제651조 (삭제)
    assert {p.purpose for p in data.load_loan_products(dataset)} == {"매매", "전세"}


def test_a_wrong_dataset_path_says_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="laws/articles.jsonl is missing"):
        data.find_dataset(tmp_path)


def test_sqlite_is_built_once_and_rebuilt_when_stale(dataset: Path, tmp_path: Path) -> None:
    path = data.transactions_sqlite(dataset, tmp_path)
    con = sqlite3.connect(path)
    n, synthetic = con.execute(f"SELECT count(*), min({data.COLUMNS[-1][0]}) FROM {data.TABLE}").fetchone()
    comments = dict(con.execute("SELECT column_name, comment FROM _comments WHERE column_name IS NOT NULL"))
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    assert n == 284 and synthetic == 1 and "만원" in comments["amount_manwon"]
    mtime = path.stat().st_mtime_ns
    again = data.transactions_sqlite(dataset, tmp_path)  # stale stamp: rebuilt in place
    assert again == path and path.stat().st_mtime_ns != mtime
    assert data.transactions_sqlite(dataset, tmp_path).stat().st_mtime_ns == path.stat().st_mtime_ns


def test_queries_in_another_format_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"id": "x", "query": "안녕"}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="teams"):
        data.load_queries(bad)


@pytest.mark.postgres
def test_postgres_gets_the_same_rows_with_comments(dataset: Path, pg_admin_url: str) -> None:
    import psycopg

    from text2sql.t2s_helpers import temporary_pg_database

    with temporary_pg_database(pg_admin_url, "sup_tx") as url:
        assert data.load_transactions_postgres(url, dataset) == 284
        with psycopg.connect(url) as conn:
            total = conn.execute(f"SELECT sum(amount_manwon) FROM {data.TABLE}").fetchone()[0]
            comment = conn.execute(f"SELECT obj_description('{data.TABLE}'::regclass)").fetchone()[0]
        assert total == sum(r[8] for r in data.transaction_rows(dataset)) and "합성" in comment
