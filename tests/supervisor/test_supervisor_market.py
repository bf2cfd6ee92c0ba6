"""The market tool asks the text2sql agent (a sub-graph) over a real database: the synthetic table
in SQLite by default, the same rows in PostgreSQL, or a user's own table with other column names
through one option; the answer names the source and says when it is synthetic."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import graphagents as ga
from graphagents.agents.supervisor import data

QUERY = "강남구 84㎡ 아파트 매매 시세 알려줘"


def test_default_is_the_synthetic_table_and_the_answer_says_so() -> None:
    reply = ga.load("supervisor", checkpoint_url="memory").session().send(QUERY)
    (sql,) = [a for a in reply.artifacts if a.kind == "sql"]
    assert "apt_transactions" in sql.sql and "강남구" in sql.sql  # written by the sub-agent, not by us
    assert "중앙값" in reply.text and "합성(가상) 거래 데이터" in reply.text


def test_a_users_own_table_with_korean_columns(tmp_path: Path, dataset: Path) -> None:
    path = tmp_path / "molit.sqlite"
    con = sqlite3.connect(path)
    con.execute('CREATE TABLE apt_trade ("시군구" TEXT, "단지명" TEXT, "전용면적" REAL, "계약년월" INTEGER, '
                '"거래금액" INTEGER)')
    rows = [(r[3], r[4], r[5], r[6], r[8]) for r in data.transaction_rows(dataset) if r[1] == "매매"]
    con.executemany("INSERT INTO apt_trade VALUES (?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    expected = sorted(r[4] for r in rows if r[0] == "강남구" and 79.8 <= r[2] <= 88.2)
    reply = ga.load("supervisor", checkpoint_url="memory", market_db=f"sqlite:///{path}").session().send(QUERY)
    assert "합성" not in reply.text and "사용자 지정 거래 테이블" in reply.text
    (stats,) = [a for a in reply.artifacts if a.kind == "table" and "가격 통계" in a.title]
    (group,) = stats.rows
    assert group[2] == len(expected) and group[5] == expected[0] and group[6] == expected[-1]


@pytest.mark.postgres
def test_the_same_rows_from_postgres(pg_admin_url: str, dataset: Path) -> None:
    from text2sql.t2s_helpers import temporary_pg_database

    with temporary_pg_database(pg_admin_url, "sup_market") as url:
        data.load_transactions_postgres(url, dataset)
        agent = ga.load("supervisor", checkpoint_url="memory", market_db=url, market_synthetic=True)
        reply = agent.session().send(QUERY)
        sqlite_reply = ga.load("supervisor", checkpoint_url="memory").session().send(QUERY)
        tables = [[list(map(str, row)) for row in a.rows] for a in reply.artifacts if a.kind == "table"]
        assert tables and tables == [[list(map(str, row)) for row in a.rows]
                                     for a in sqlite_reply.artifacts if a.kind == "table"]
        assert "합성(가상) 거래 데이터" in reply.text
