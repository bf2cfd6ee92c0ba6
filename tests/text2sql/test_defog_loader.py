"""Loading the defog-data databases and running defog's own gold queries against them."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphagents.errors import InputError, ServiceUnavailableError, UsageError
from graphagents.sql import Question, load_questions, matches_gold
from graphagents.sql._defog import (
    available_defog_databases,
    database_url,
    defog_dump_sql,
    iter_dump,
    load_defog_database,
)

DEFOG_DBS = ("academic", "geography", "advising", "atis")


@pytest.fixture(scope="session")
def defog_admin_url(pg_admin_url: str) -> str:
    return pg_admin_url


@pytest.fixture(scope="session")
def defog_questions(defog_csv: Path) -> list[Question]:
    return load_questions(defog_csv)


@pytest.fixture(scope="session")
def defog_urls(defog_admin_url: str) -> dict[str, str]:
    return {name: load_defog_database(name, defog_admin_url) for name in DEFOG_DBS}


# ------------------------------------------------------------------ the installed dumps and their parsing


def test_installed_package_has_the_benchmark_dumps() -> None:
    names = available_defog_databases()
    assert set(DEFOG_DBS) <= set(names)
    text = defog_dump_sql("academic")
    assert "CREATE TABLE public.author" in text and "FROM stdin;" in text


def test_unknown_database_names_the_choices() -> None:
    with pytest.raises(UsageError, match="academic"):
        defog_dump_sql("academic; DROP DATABASE test")


def test_iter_dump_separates_statements_and_copy_blocks() -> None:
    dump = (
        "--\n-- PostgreSQL database dump\n--\n\n"
        "SET client_encoding = 'UTF8';\n"
        "\\restrict abc123\n"
        "CREATE TABLE public.t (\n    a integer,\n    b text\n);\n\n"
        "COMMENT ON TABLE public.t IS 'semi; colon\n-- not a comment\nend';\n"
        "COPY public.t (a, b) FROM stdin;\n"
        "1\tx; y\n2\t\\N\n3\tback\\\\slash\n"
        "\\.\n\n"
        "ALTER TABLE ONLY public.t\n    ADD CONSTRAINT t_pkey PRIMARY KEY (a);\n"
    )
    parts = list(iter_dump(dump))
    assert [p[0].split()[0] for p in parts] == ["SET", "CREATE", "COMMENT", "COPY", "ALTER"]
    assert parts[2][0].endswith("end';")
    assert parts[3][1] == "1\tx; y\n2\t\\N\n3\tback\\\\slash\n"
    assert all(data is None for stmt, data in parts if not stmt.startswith("COPY"))


def test_iter_dump_reads_every_real_dump() -> None:
    for name in DEFOG_DBS:
        text = defog_dump_sql(name)
        parts = list(iter_dump(text))
        copies = [p for p in parts if p[1] is not None]
        assert len(copies) == text.count("FROM stdin;"), name
        assert all(stmt.rstrip().endswith(";") for stmt, _ in parts), name


def test_database_url_swaps_only_the_database() -> None:
    assert database_url("postgresql://postgres@127.0.0.1:5432/test", "academic") == (
        "postgresql://postgres@127.0.0.1:5432/academic"
    )
    assert database_url("postgresql://u:p@h/test?sslmode=disable", "atis") == "postgresql://u:p@h/atis?sslmode=disable"
    dsn = database_url("host=127.0.0.1 user=postgres dbname=test", "geography")
    assert "dbname=geography" in dsn and "host=127.0.0.1" in dsn


def test_unreachable_server_is_a_one_line_service_error() -> None:
    with pytest.raises(ServiceUnavailableError, match="cannot connect to PostgreSQL at 'postgresql://x:\\*\\*\\*@"):
        load_defog_database("geography", "postgresql://x:secret@127.0.0.1:1/test")


# ------------------------------------------------------------------ question CSVs


def test_load_questions_reads_defog_layout(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text(
        "\ufeffquestion,query,db_name,query_category,instructions\n"
        '"Who, exactly?","SELECT {a.x, a.y} FROM a;SELECT 1",academic,group_by,\n'
        "Count,SELECT COUNT(*) FROM t,geography,ratio,Use ILIKE\n",
        encoding="utf-8",
    )
    questions = load_questions(path)
    first = questions[0]
    assert first == Question("Who, exactly?", "SELECT {a.x, a.y} FROM a;SELECT 1", "academic", "group_by", "")
    assert first.gold_queries == [
        "SELECT a.x FROM a", "SELECT a.y FROM a", "SELECT a.x, a.y FROM a", "SELECT 1",
    ]
    assert [q.db_name for q in load_questions(path, db_name="geography")] == ["geography"]
    with pytest.raises(AttributeError):
        questions[0].db_name = "x"  # type: ignore[misc]


def test_load_questions_explains_a_bad_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_questions(tmp_path / "missing.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("question,sql\nq,SELECT 1\n", encoding="utf-8")
    with pytest.raises(InputError, match="query, db_name, query_category"):
        load_questions(bad)


# ------------------------------------------------------------------ against the server


@pytest.mark.postgres
def test_loaded_databases_have_the_dumped_tables(defog_urls: dict[str, str]) -> None:
    import psycopg

    for name, url in defog_urls.items():
        expected = defog_dump_sql(name).count("CREATE TABLE")
        with psycopg.connect(url) as conn:
            tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
            assert tables == (expected,), name
    with psycopg.connect(defog_urls["academic"]) as conn:
        authors = conn.execute("SELECT count(*) FROM author").fetchone()
    assert authors and authors[0] > 0


@pytest.mark.postgres
def test_loading_again_is_a_no_op_and_recreate_reloads(defog_admin_url: str) -> None:
    import psycopg

    # restaurants is not in the dev question set, so nothing else is reading it while it is recreated
    url = load_defog_database("restaurants", defog_admin_url, recreate=True)
    with psycopg.connect(url) as conn:
        before = conn.execute("SELECT count(*) FROM restaurant").fetchone()
    assert before and before[0] > 0
    assert load_defog_database("restaurants", defog_admin_url) == url
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM restaurant").fetchone() == before


@pytest.mark.postgres
def test_every_dev_gold_query_runs_and_matches_itself(
    defog_urls: dict[str, str], defog_questions: list[Question]
) -> None:
    import psycopg

    failures, checked = [], 0
    for q in defog_questions:
        if q.db_name not in defog_urls:
            continue
        with psycopg.connect(defog_urls[q.db_name], autocommit=True) as conn:

            def run(sql: str, conn: psycopg.Connection = conn) -> list[tuple[object, ...]]:
                return conn.execute(sql).fetchall()

            for sql in q.gold_queries:
                try:
                    rows = run(sql)
                except psycopg.Error as exc:
                    failures.append(f"{q.db_name}: {sql[:120]} -> {exc}")
                    continue
                checked += 1
                if not matches_gold(q.query, rows, run, question=q.question):
                    failures.append(f"{q.db_name}: own result of {sql[:120]} did not match its gold")
    assert not failures, "\n".join(failures)
    assert checked >= 200
