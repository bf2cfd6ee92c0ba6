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


def test_addresses_in_the_region_column_fall_back_to_a_parameterised_query(tmp_path: Path, dataset: Path) -> None:
    """The offline text2sql brain cannot link "강남구" to "서울특별시 강남구 역삼동"; the market tool then
    reads the rows itself with one bound LIKE parameter, and says so."""
    path = tmp_path / "molit_addr.sqlite"
    con = sqlite3.connect(path)
    con.execute('CREATE TABLE apt_trade ("시군구" TEXT, "단지명" TEXT, "전용면적" REAL, "계약년월" INTEGER, '
                '"거래금액" INTEGER)')
    dong = {"강남구": "역삼동", "서초구": "반포동"}
    rows = [(f"서울특별시 {r[3]} {dong.get(r[3], '중앙동')}", r[4], r[5], r[6], r[8])
            for r in data.transaction_rows(dataset) if r[1] == "매매"]
    con.executemany("INSERT INTO apt_trade VALUES (?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    expected = sorted(r[4] for r in rows if " 강남구 " in r[0] and 79.8 <= r[2] <= 88.2)
    agent = ga.load("supervisor", checkpoint_url="memory", market_db=f"sqlite:///{path}")
    reply = agent.session().send("서울특별시 강남구 역삼동 84㎡ 아파트 매매 시세 알려줘")
    (sql,) = [a for a in reply.artifacts if a.kind == "sql"]
    assert "LIKE ?" in sql.sql and "강남구" not in sql.sql and "'%강남구%'" in sql.title  # bound, not spliced
    (stats,) = [a for a in reply.artifacts if a.kind == "table" and "가격 통계" in a.title]
    (group,) = stats.rows
    assert group[2] == len(expected) and group[5] == expected[0] and group[6] == expected[-1]
    assert "직접 조회" in reply.text and "사용자 지정 거래 테이블" in reply.text
    assert "답하지 못함" not in reply.text  # not listed as missing: the numbers are there


def test_a_place_the_table_does_not_hold_is_still_declined(tmp_path: Path, dataset: Path) -> None:
    path = tmp_path / "molit_addr2.sqlite"
    con = sqlite3.connect(path)
    con.execute('CREATE TABLE apt_trade ("시군구" TEXT, "전용면적" REAL, "계약년월" INTEGER, "거래금액" INTEGER)')
    con.execute("INSERT INTO apt_trade VALUES ('서울특별시 서초구 반포동', 84.9, 202501, 200000)")
    con.commit()
    con.close()
    reply = ga.load("supervisor", checkpoint_url="memory", market_db=f"sqlite:///{path}").session().send(
        "강남구 84㎡ 아파트 매매 시세 알려줘")
    assert not [a for a in reply.artifacts if a.kind == "table" and "가격 통계" in a.title]
    assert "조회하지 못했습니다" in reply.text and "답하지 못함" in reply.text


def test_loans_at_the_median_of_a_users_table_do_not_call_it_synthetic(tmp_path: Path, dataset: Path) -> None:
    path = tmp_path / "molit_loan.sqlite"
    con = sqlite3.connect(path)
    con.execute('CREATE TABLE apt_trade ("거래유형" TEXT, "시군구" TEXT, "단지명" TEXT, "전용면적" REAL, '
                '"계약년월" INTEGER, "거래금액" INTEGER)')
    con.executemany("INSERT INTO apt_trade VALUES (?, ?, ?, ?, ?, ?)",
                    [(r[1], r[3], r[4], r[5], r[6], r[8]) for r in data.transaction_rows(dataset)])
    con.commit()
    con.close()
    reply = ga.load("supervisor", checkpoint_url="memory", market_db=f"sqlite:///{path}").session().send(
        "강남구 84㎡ 아파트 매매 시세 알려주고 대출 가능 금액 계산해줘")
    assert "시세 중앙값(사용자 지정 거래 테이블: " in reply.text and "합성 데이터" not in reply.text.split("※")[0]


@pytest.mark.postgres
def test_the_fallback_reads_addresses_from_postgres_too(pg_admin_url: str) -> None:
    import psycopg

    from graphagents.agents.supervisor.tools.market_fallback import fallback_query
    from text2sql.t2s_helpers import temporary_pg_database

    with temporary_pg_database(pg_admin_url, "sup_fallback") as url:
        with psycopg.connect(url, autocommit=True) as con:
            con.execute('CREATE TABLE apt_trade ("시군구" text, "전용면적" numeric, "계약년월" int, "거래금액" int)')
            con.execute("INSERT INTO apt_trade VALUES ('서울특별시 강남구 역삼동', 84.9, 202502, 230900), "
                        "('서울특별시 서초구 반포동', 84.9, 202502, 210000), "
                        "('서울특별시 강남구 삼성동', 59.9, 202503, 1)")
        found = fallback_query(url, {"region": {"sigungu": "강남구"}})
        assert found is not None and "ILIKE %s" in found["sql"] and found["params"] == ["%강남구%"]
        assert [r[0] for r in found["table"]["rows"]] == ["서울특별시 강남구 역삼동", "서울특별시 강남구 삼성동"]
        assert fallback_query(url, {"region": {"sigungu": "종로구"}}) is None
