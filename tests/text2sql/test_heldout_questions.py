"""The held-out demo questions: defog layout, and every gold query runs and answers on SQLite."""

from __future__ import annotations

import csv
import sqlite3
from collections import Counter
from contextlib import closing
from pathlib import Path

import pytest

from graphagents.agents.text2sql.demo import build_sqlite, demo_questions_path
from graphagents.sql import load_questions

HELDOUT_PATH = demo_questions_path().with_name("questions_heldout.csv")
QUESTIONS = load_questions(HELDOUT_PATH)
CATEGORIES = {
    "lookup",
    "filter",
    "aggregate",
    "group_by",
    "top_n",
    "join",
    "date_range",
    "code_value",
    "having",
}


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sqlite(tmp_path_factory.mktemp("heldout") / "demo.sqlite")


def test_heldout_file_follows_the_defog_layout() -> None:
    with HELDOUT_PATH.open(encoding="utf-8", newline="") as f:
        header = next(csv.reader(f))
    assert header == ["question", "query", "db_name", "query_category", "instructions"]
    assert len(QUESTIONS) == 36
    assert {q.db_name for q in QUESTIONS} == {"demo"}
    assert set(Counter(q.query_category for q in QUESTIONS)) == CATEGORIES
    assert len({q.question for q in QUESTIONS}) == len(QUESTIONS)


def test_heldout_does_not_repeat_a_development_question() -> None:
    development = {q.question for q in load_questions(demo_questions_path())}
    assert not development & {q.question for q in QUESTIONS}


def _gold_cases() -> list[tuple[str, str]]:
    return [(f"{i:02d}-{q.query_category}", sql) for i, q in enumerate(QUESTIONS) for sql in q.gold_queries]


@pytest.mark.parametrize(("qid", "sql"), _gold_cases(), ids=[c[0] for c in _gold_cases()])
def test_heldout_gold_query_is_non_empty_on_sqlite(demo_db: Path, qid: str, sql: str) -> None:
    with closing(sqlite3.connect(demo_db)) as con:
        rows = con.execute(sql).fetchall()
    assert rows and any(v is not None for v in rows[0]), qid
