"""Loading tables from every supported source, typing, names, and clear errors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from tableqa_helpers import DEPARTMENT

from graphagents.agents.tableqa.tables import infer_types, load_sources, load_table_source
from graphagents.errors import InputError
from graphagents.sandbox import get_store


def test_csv_is_typed_per_column() -> None:
    [table] = load_table_source(DEPARTMENT)
    assert table.name == "department" and table.frame.shape == (15, 6)
    assert str(table.frame["Num_Employees"].dtype) == "int64"
    assert str(table.frame["Budget_in_Billions"].dtype) == "float64"
    assert table.frame["Name"].iloc[2] == "Defense"


def test_infer_types_keeps_mixed_columns_as_text() -> None:
    frame = pd.DataFrame({"n": ["1,234", "5", ""], "m": ["1", "x", "2"], "h": ["6'4\"", "5'11\"", "6'0\""]})
    typed = infer_types(frame)
    assert typed["n"].tolist()[:2] == [1234.0, 5.0] and pd.isna(typed["n"].iloc[2])
    assert typed["m"].tolist() == ["1", "x", "2"] and typed["h"].iloc[0] == "6'4\""


def test_tsv_json_jsonl_excel_sqlite(tmp_path: Path) -> None:
    frame = pd.DataFrame({"city": ["Seoul", "Busan"], "people": [9_500_000, 3_300_000]})
    frame.to_csv(tmp_path / "cities.tsv", sep="\t", index=False)
    frame.to_json(tmp_path / "cities.json", orient="records")
    frame.to_json(tmp_path / "cities.jsonl", orient="records", lines=True)
    with pd.ExcelWriter(tmp_path / "book.xlsx") as writer:
        frame.to_excel(writer, sheet_name="Cities", index=False)
        frame.head(1).to_excel(writer, sheet_name="One", index=False)
    with sqlite3.connect(tmp_path / "shop.sqlite") as conn:
        frame.to_sql("cities", conn, index=False)
        frame.to_sql("towns", conn, index=False)
    for name in ("cities.tsv", "cities.json", "cities.jsonl", "book.xlsx#Cities", "shop.sqlite#cities",
                 f"sqlite:///{tmp_path}/shop.sqlite#cities"):
        [table] = load_table_source(str(tmp_path / name) if "://" not in name else name)
        assert table.frame["people"].tolist() == [9_500_000, 3_300_000], name
    assert [t.name for t in load_table_source(str(tmp_path / "book.xlsx"))] == ["cities", "one"]
    assert [t.name for t in load_table_source(str(tmp_path / "shop.sqlite"))] == ["cities", "towns"]


def test_names_are_unique_and_can_be_given(tmp_path: Path) -> None:
    tables = load_sources([DEPARTMENT, DEPARTMENT, f"dept={DEPARTMENT}"])
    assert [t.name for t in tables] == ["department", "department_2", "dept"]
    stored = get_store().put(tables[0].frame)
    [by_id] = load_sources([f"people={stored}"])
    assert by_id.name == "people" and by_id.frame.shape == (15, 6)


@pytest.mark.parametrize(
    ("source", "words"),
    [("missing.csv", "does not exist"), ("x.parquet", "unsupported"), ("ftp://x/y", "unsupported database URL"),
     ("postgresql://u:secret@127.0.0.1:1/db", "name the tables")],
)
def test_bad_sources_are_one_line_errors(tmp_path: Path, source: str, words: str) -> None:
    if source == "x.parquet":
        (tmp_path / "x.parquet").write_text("x")
        source = str(tmp_path / source)
    with pytest.raises(InputError, match=words) as info:
        load_sources([source])
    assert "secret" not in str(info.value)


def test_unknown_sqlite_table(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "a.db") as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(InputError, match="has no table 'nope'; it has: t"):
        load_sources([f"{tmp_path}/a.db#nope"])


@pytest.mark.postgres
def test_postgres_tables(pg_admin_url: str) -> None:
    import uuid

    import psycopg

    name = f"tqa_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {name} (id int, label text)")
        conn.execute(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b')")
        try:
            [table] = load_sources([f"{pg_admin_url}#{name}"])
            assert table.name == name and table.frame["label"].tolist() == ["a", "b"]
        finally:
            conn.execute(f"DROP TABLE {name}")
