"""Result comparison and defog gold-query conventions."""

from __future__ import annotations

import math
import sqlite3
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
import sqlglot

from graphagents.sql import (
    expand_gold_alternatives,
    gold_is_ordered,
    load_questions,
    matches_gold,
    normalize_value,
    question_asks_for_order,
    results_match,
)

# ------------------------------------------------------------------ expand_gold_alternatives


def test_brace_group_expands_to_every_non_empty_subset_like_defog() -> None:
    assert expand_gold_alternatives("SELECT {author.name,author.authorid} FROM author") == [
        "SELECT author.name FROM author",
        "SELECT author.authorid FROM author",
        "SELECT author.name, author.authorid FROM author",
    ]


def test_empty_braces_repeat_the_columns_chosen_before_them() -> None:
    gold = "SELECT {d.name, d.did}, COUNT(*) AS n FROM domain d GROUP BY {} ORDER BY n DESC LIMIT 5"
    assert expand_gold_alternatives(gold) == [
        "SELECT d.name, COUNT(*) AS n FROM domain d GROUP BY d.name ORDER BY n DESC LIMIT 5",
        "SELECT d.did, COUNT(*) AS n FROM domain d GROUP BY d.did ORDER BY n DESC LIMIT 5",
        "SELECT d.name, d.did, COUNT(*) AS n FROM domain d GROUP BY d.name, d.did ORDER BY n DESC LIMIT 5",
    ]


def test_several_brace_groups_multiply() -> None:
    out = expand_gold_alternatives("SELECT {a, b}, {c, d} FROM t")
    assert len(out) == 9
    assert "SELECT a, c FROM t" in out
    assert "SELECT a, b, c, d FROM t" in out


def test_semicolons_separate_golds_but_not_inside_literals_or_comments() -> None:
    gold = (
        "SELECT name FROM t WHERE note = 'a;b' -- trailing; comment\n;"
        "SELECT \"odd;name\" FROM t /* block; {x,y} */;  ;"
    )
    assert expand_gold_alternatives(gold) == [
        "SELECT name FROM t WHERE note = 'a;b' -- trailing; comment",
        'SELECT "odd;name" FROM t /* block; {x,y} */',
    ]


def test_braces_inside_string_literals_are_untouched() -> None:
    gold = "SELECT {a.x, a.y} FROM a WHERE a.tag = '{p,q}' AND a.j = E'it\\'s {r}'"
    out = expand_gold_alternatives(gold)
    assert out[0] == "SELECT a.x FROM a WHERE a.tag = '{p,q}' AND a.j = E'it\\'s {r}'"
    assert len(out) == 3


def test_options_with_function_calls_split_on_top_level_commas_only() -> None:
    out = expand_gold_alternatives("SELECT {COALESCE(a, b), c} FROM t")
    assert out == ["SELECT COALESCE(a, b) FROM t", "SELECT c FROM t", "SELECT COALESCE(a, b), c FROM t"]


def test_duplicate_alternatives_are_dropped_and_plain_sql_passes_through() -> None:
    assert expand_gold_alternatives("SELECT 1;SELECT 1;") == ["SELECT 1"]
    assert expand_gold_alternatives("  ") == []


def test_empty_braces_without_a_column_set_is_an_error() -> None:
    with pytest.raises(ValueError, match="empty"):
        expand_gold_alternatives("SELECT a FROM t GROUP BY {}")


def test_defog_style_row_with_alias_after_braces() -> None:
    gold = (
        "SELECT DISTINCT {course.name, course.course_id, course.number} AS course_name FROM course "
        "WHERE course.department ILIKE '%Computer Science%';"
    )
    out = expand_gold_alternatives(gold)
    assert len(out) == 7
    assert out[3] == (
        "SELECT DISTINCT course.name, course.course_id AS course_name FROM course "
        "WHERE course.department ILIKE '%Computer Science%'"
    )


def test_every_real_defog_gold_expands_to_parseable_postgres(defog_csv: Path) -> None:
    questions = load_questions(defog_csv)
    assert len(questions) == 110
    for q in questions:
        alternatives = q.gold_queries
        assert alternatives, q.query
        for sql in alternatives:
            assert "{" not in sql.replace("'{", "")
            sqlglot.parse_one(sql, read="postgres")


# ------------------------------------------------------------------ gold_is_ordered


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT a FROM t ORDER BY a", True),
        ("SELECT a FROM t", False),
        ("SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 3) s", False),
        ("WITH x AS (SELECT a FROM t ORDER BY a) SELECT a FROM x", False),
        ("SELECT a, RANK() OVER (ORDER BY b) FROM t", False),
        ("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", True),
        ("SELECT {a.x, a.y}, COUNT(*) AS n FROM a GROUP BY {} ORDER BY n DESC NULLS LAST", True),
        ("SELECT a FROM t WHERE b IN (SELECT b FROM u ORDER BY b)", False),
    ],
)
def test_gold_is_ordered_looks_only_at_the_top_level(sql: str, expected: bool) -> None:
    assert gold_is_ordered(sql) is expected


def test_gold_is_ordered_falls_back_when_sqlglot_cannot_parse() -> None:
    assert gold_is_ordered("SELECT a FROM t WHERE (x ??? y) ORDER BY a") is True
    assert gold_is_ordered("SELECT a FROM (SELECT a FROM t ORDER BY a) ??? s") is False


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("List the flights sorted by departure time", True),
        ("What are the top 5 airlines by flights?", True),
        ("지역별 매출 상위 5개", True),
        ("평점이 높은 순으로 보여줘", True),
        ("How many orders were cancelled?", False),
        ("서울에 사는 VIP 고객 수", False),
    ],
)
def test_question_asks_for_order(question: str, asks: bool) -> None:
    assert question_asks_for_order(question) is asks


# ------------------------------------------------------------------ normalize_value


def test_normalize_value_maps_driver_types_onto_one_form() -> None:
    assert normalize_value(Decimal("3.00")) == 3 and isinstance(normalize_value(Decimal("3.00")), int)
    assert normalize_value(Decimal("2.5")) == 2.5
    assert normalize_value(float("nan")) is None
    assert normalize_value(Decimal("NaN")) is None
    assert normalize_value(True) == 1
    assert normalize_value(date(2024, 1, 5)) == "2024-01-05"
    assert normalize_value(datetime(2024, 1, 1)) == "2024-01-01"
    assert normalize_value(datetime(2024, 1, 1, 12, 30)) == "2024-01-01 12:30:00"
    assert normalize_value(timedelta(minutes=2)) == 120.0
    assert normalize_value(memoryview(b"ab")) == b"ab"


# ------------------------------------------------------------------ results_match


def test_same_rows_in_another_order_match_when_unordered() -> None:
    assert results_match([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], ordered=False)
    assert not results_match([(1, "a"), (2, "b")], [(2, "b"), (1, "a")], ordered=True)
    assert results_match([(1, "a"), (2, "b")], [(1, "a"), (2, "b")], ordered=True)


def test_rows_are_a_multiset_not_a_set() -> None:
    assert not results_match([(1,), (1,), (2,)], [(1,), (2,), (2,)], ordered=False)
    assert not results_match([(1,), (2,)], [(1,), (1,), (2,)], ordered=False)


def test_column_order_and_names_do_not_matter() -> None:
    assert results_match([("서울", 10), ("부산", 7)], [(7, "부산"), (10, "서울")], ordered=False)


def test_prediction_may_add_columns_defog_subset_rule() -> None:
    gold = [("Alice",), ("Bob",)]
    pred = [(1, "Alice", 0.5), (2, "Bob", 0.7)]
    assert results_match(gold, pred, ordered=False)
    assert not results_match(pred, gold, ordered=False)  # missing gold columns is wrong


def test_projection_tries_other_column_assignments() -> None:
    gold = [(1, 1), (2, 3), (3, 2)]
    pred = [(3, 1, 1), (1, 2, 3), (2, 3, 2)]  # the first value-compatible pair of columns pairs rows wrongly
    assert results_match(gold, pred, ordered=False)


def test_numbers_compare_across_decimal_float_int_with_tolerance() -> None:
    assert results_match([(Decimal("161635.666666666667"),)], [(161635.66666666666,)], ordered=False)
    assert results_match([(3,)], [(3.0,)], ordered=False)
    assert results_match([(0.1 + 0.2,)], [(0.3,)], ordered=False)
    assert not results_match([(0.3,)], [(0.31,)], ordered=False)
    assert not results_match([(1_000_000,)], [(1_000_001,)], ordered=False)  # integers are exact


def test_null_and_nan_are_the_same_and_differ_from_zero() -> None:
    assert results_match([(None, 1)], [(math.nan, 1)], ordered=False)
    assert not results_match([(None,)], [(0,)], ordered=False)


def test_dates_match_their_iso_strings() -> None:
    assert results_match([(date(2024, 1, 1), 42)], [("2024-01-01", 42)], ordered=True)
    assert results_match([(datetime(2024, 1, 1), 3)], [(date(2024, 1, 1), 3)], ordered=False)
    assert not results_match([("2024-01-01",)], [("2024-01-02",)], ordered=False)


def test_strings_are_not_numbers() -> None:
    assert not results_match([("1",)], [(1,)], ordered=False)


def test_empty_results() -> None:
    assert results_match([], [], ordered=False)
    assert not results_match([], [(1,)], ordered=False)
    assert not results_match([(1,)], [], ordered=False)


def test_order_is_relaxed_when_the_question_does_not_ask_for_it() -> None:
    gold, pred = [(1,), (2,)], [(2,), (1,)]
    assert results_match(gold, pred, ordered=True, question="Which customers live in Seoul?")
    assert not results_match(gold, pred, ordered=True, question="List customers sorted by id")
    assert not results_match(gold, pred, ordered=True, question="매출 상위 2개 지역")


def test_float_noise_that_changes_sort_order_still_matches() -> None:
    gold = [(1.0000000001, "b"), (1.0, "a")]
    pred = [(1.0, "b"), (1.0000000001, "a")]
    assert results_match(gold, pred, ordered=False)


# ------------------------------------------------------------------ matches_gold


@pytest.fixture
def tiny_db() -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.executescript(
        """
        CREATE TABLE author (aid INTEGER PRIMARY KEY, name TEXT, oid INTEGER);
        INSERT INTO author VALUES (1, 'Kim', 10), (2, 'Lee', 10), (3, 'Kim', 20), (4, 'Park', NULL);
        CREATE TABLE writes (aid INTEGER, pid INTEGER);
        INSERT INTO writes VALUES (1, 100), (1, 101), (2, 102), (3, 103), (3, 104), (3, 105);
        """
    )
    return con


def test_matches_any_expanded_gold(tiny_db: sqlite3.Connection) -> None:
    def run(sql: str) -> list[tuple[object, ...]]:
        return tiny_db.execute(sql).fetchall()

    gold = (
        "SELECT {author.name, author.aid}, COUNT(writes.pid) AS n FROM author "
        "JOIN writes ON writes.aid = author.aid GROUP BY {} ORDER BY n DESC"
    )
    question = "Which authors wrote the most papers? Sort by paper count."
    by_id = run(
        "SELECT a.aid, COUNT(*) AS cnt FROM writes w JOIN author a ON a.aid = w.aid "
        "GROUP BY a.aid ORDER BY cnt DESC"
    )
    assert matches_gold(gold, by_id, run, question=question, dialect="sqlite")
    with_extra = run(
        "SELECT a.name, COUNT(*) AS cnt, a.aid FROM writes w JOIN author a ON a.aid = w.aid "
        "GROUP BY a.aid, a.name ORDER BY cnt DESC"
    )
    assert matches_gold(gold, with_extra, run, question=question, dialect="sqlite")
    wrong_order = list(reversed(by_id))
    assert not matches_gold(gold, wrong_order, run, question=question, dialect="sqlite")
    # the name-only alternative is accepted, as in defog, even though it merges the two Kims
    by_name = run(
        "SELECT a.name, COUNT(*) AS c FROM writes w JOIN author a ON a.aid = w.aid "
        "GROUP BY a.name ORDER BY c DESC"
    )
    assert matches_gold(gold, by_name, run, question=question, dialect="sqlite")
    wrong_counts = run("SELECT aid, COUNT(*) AS c FROM writes WHERE pid > 100 GROUP BY aid ORDER BY c DESC")
    assert not matches_gold(gold, wrong_counts, run, question=question, dialect="sqlite")


def test_distinct_name_with_duplicates_needs_the_combined_alternative(tiny_db: sqlite3.Connection) -> None:
    def run(sql: str) -> list[tuple[object, ...]]:
        return tiny_db.execute(sql).fetchall()

    gold = "SELECT DISTINCT {name, aid} FROM author WHERE oid IS NOT NULL"
    pred = run("SELECT DISTINCT aid, name FROM author WHERE oid IS NOT NULL")
    assert matches_gold(gold, pred, run, dialect="sqlite")
    assert matches_gold(gold, run("SELECT DISTINCT name FROM author WHERE oid IS NOT NULL"), run)
    assert not matches_gold(gold, run("SELECT name FROM author"), run)


def test_broken_gold_alternative_is_skipped_but_all_broken_raises(tiny_db: sqlite3.Connection) -> None:
    def run(sql: str) -> list[tuple[object, ...]]:
        return tiny_db.execute(sql).fetchall()

    pred = run("SELECT COUNT(*) FROM author")
    assert matches_gold("SELECT COUNT(*) FROM no_such_table; SELECT COUNT(*) FROM author", pred, run)
    with pytest.raises(sqlite3.OperationalError):
        matches_gold("SELECT COUNT(*) FROM no_such_table", pred, run)
