"""Issue 23: meanings the composer used to drop while answering with full confidence.

A small schema of its own (not the demo, not a defog database) with the three traps: a flag column
("open"), a table whose rows store a count ("visits ... count"), and nouns no table is called. Each
declined question has a control that differs only in the trap, and that the composer must answer,
so a check that declines everything fails as surely as one that declines nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from t2s_helpers import rows as _rows

from graphagents.agents.text2sql.offline import ComposeContext, compose
from graphagents.agents.text2sql.schema import load_schema_graph
from graphagents.sql import Database, matches_gold, open_database

SCHEMA = """
CREATE TABLE shop (shop_id INTEGER PRIMARY KEY, name TEXT, city TEXT, is_open INTEGER, rating REAL);
CREATE TABLE visit (visit_id INTEGER PRIMARY KEY, shop_id INTEGER REFERENCES shop(shop_id), day TEXT,
                    count INTEGER);
INSERT INTO shop VALUES (1, 'Blue Door', 'Seattle', 1, 4.5), (2, 'Red Lamp', 'Seattle', 0, 3.9),
  (3, 'Green Cup', 'Portland', 1, 4.1), (4, 'Gold Fork', 'Portland', 0, 2.8), (5, 'Grey Mill', 'Boise', 1, 4.9);
INSERT INTO visit VALUES (1, 1, 'Friday', 12), (2, 2, 'Friday', 30), (3, 3, 'Monday', 7), (4, 1, 'Monday', 4),
  (5, 5, 'Friday', 9);
"""


@pytest.fixture(scope="module")
def shops(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ComposeContext, Database]]:
    root = tmp_path_factory.mktemp("shops")
    path = root / "shops.sqlite"
    with closing(sqlite3.connect(path)) as con:
        con.executescript(SCHEMA)
        con.commit()
    db = open_database(str(path))
    yield ComposeContext(graph=load_schema_graph(db, data_dir=Path(root) / "graph"), db=db, dialect="sqlite"), db
    db.close()


DECLINED = [
    # a flag column named by the question but missing from the SQL (it counted every shop)
    ("How many shops are currently open?", "is_open"),
    ("How many open shops are there?", "is_open"),
    # a state after a copula that no column expressed (it listed every shop)
    ("Which shops are closed?", "closed"),
    # rows that store a count: COUNT(*) or SUM(count)? (it counted rows)
    ("How many visits were there on Friday?", "count"),
    # the counted noun is no table (it counted shops)
    ("How many widgets does each shop have?", "widgets"),
    ("How many widgets are there in Seattle?", "widgets"),
]  # fmt: skip

ANSWERED = [
    ("How many shops are there?", "SELECT COUNT(*) FROM shop"),
    ("How many shops are there in each city?", "SELECT city, COUNT(*) FROM shop GROUP BY city"),
    ("Which shops are located in Portland?", "SELECT name FROM shop WHERE city = 'Portland'"),
    ("What is the average rating of shops in Seattle?", "SELECT AVG(rating) FROM shop WHERE city = 'Seattle'"),
]  # fmt: skip


@pytest.mark.parametrize(("question", "word"), DECLINED)
def test_dropped_meaning_is_declined_naming_it(shops: tuple[ComposeContext, Database], question: str,
                                               word: str) -> None:
    ctx, _ = shops
    result = compose(question, ctx)
    assert result.sql is None, (question, result.sql)
    assert word in result.reason, result.reason


@pytest.mark.parametrize(("question", "gold"), ANSWERED)
def test_controls_are_still_answered(shops: tuple[ComposeContext, Database], question: str, gold: str) -> None:
    ctx, db = shops
    result = compose(question, ctx)
    assert result.sql is not None, result.reason
    assert matches_gold(gold, _rows(db, result.sql), lambda s: _rows(db, s), question=question, dialect="sqlite")
