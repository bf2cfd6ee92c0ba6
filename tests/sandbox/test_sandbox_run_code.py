"""run_code as a coder model uses it: values round-trip, errors read well, inputs never change."""

from __future__ import annotations

import datetime as dt
import os
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest
from sandbox_helpers import FAST, assert_healthy

from graphagents.errors import InputError
from graphagents.sandbox import ArtifactStore, SandboxPool, run_code


def test_dataframe_round_trips_with_dtypes(pool: SandboxPool) -> None:
    frame = pd.DataFrame(
        {
            "i": [1, 2, 3],
            "f": [1.5, np.nan, -2.0],
            "s": ["a", "b", None],
            "b": [True, False, True],
            "t": pd.to_datetime(["2020-01-01", "2021-06-30", None]),
            "c": pd.Categorical(["x", "y", "x"]),
        }
    )
    result = pool.run("df", {"df": frame})
    assert result.ok and result.kind == "table"
    pd.testing.assert_frame_equal(result.value, frame)


def test_index_survives_a_groupby(pool: SandboxPool, people: pd.DataFrame) -> None:
    result = pool.run("df.groupby('dept')[['salary']].sum()", {"df": people})
    assert result.ok
    assert result.value.index.name == "dept"
    assert result.value.loc["x", "salary"] == 275


def test_series_comes_back_as_series(pool: SandboxPool, people: pd.DataFrame) -> None:
    result = pool.run("df.set_index('name')['salary'] * 2", {"df": people})
    assert result.ok and result.kind == "series"
    assert isinstance(result.value, pd.Series) and result.value.name == "salary"
    assert result.value["Bob"] == 500
    assert result.table is not None and result.table.shape == (4, 1)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("1 + 1", 2),
        ("np.int64(7)", 7),
        ("2.5", 2.5),
        ("True", True),
        ("'한글 text'", "한글 text"),
        ("None", None),
        ("[1, 'a', None]", [1, "a", None]),
        ("{'a': 1, 'b': [2.0]}", {"a": 1, "b": [2.0]}),
        ("(1, 2)", [1, 2]),
        ("pd.Timestamp('2024-05-01 10:00')", pd.Timestamp("2024-05-01 10:00")),
        ("datetime.date(2024, 5, 1)", dt.date(2024, 5, 1)),
        ("pd.Timedelta(days=2)", pd.Timedelta(days=2)),
        ("np.array([1, 2, 3])", [1, 2, 3]),
        ("2 ** 70", 2**70),
    ],
)
def test_plain_values_round_trip(pool: SandboxPool, code: str, expected: object) -> None:
    result = pool.run(("import datetime\n" if "datetime" in code else "") + code)
    assert result.ok, result.error
    assert result.value == expected
    assert type(result.value) is type(expected)


def test_nan_and_infinity_survive(pool: SandboxPool) -> None:
    result = pool.run("[float('nan'), float('inf')]")
    assert np.isnan(result.value[0]) and result.value[1] == float("inf")


def test_value_choice_result_var_then_last_expression_then_result(pool: SandboxPool, people: pd.DataFrame) -> None:
    code = "new_table = df[df['salary'] > 100]\nresult = 'other'"
    chosen = pool.run(code, {"df": people}, result_var="new_table")
    assert chosen.ok and list(chosen.value["name"]) == ["Bob", "Cid"]
    assert pool.run(code, {"df": people}).value == "other"
    assert pool.run("x = 1\nx + 1").value == 2
    assert pool.run("x = 1").kind == "none"


def test_stdout_is_captured(pool: SandboxPool) -> None:
    result = pool.run("print('hello', 3, sep='-')\nprint(pd.Series([1]).sum())")
    assert result.ok and result.stdout == "hello-3\n1\n"


def test_callers_dataframes_are_never_changed(pool: SandboxPool, people: pd.DataFrame) -> None:
    before = people.copy()
    code = (
        "df.drop(columns=['dept'], inplace=True)\n"
        "df.loc[0, 'salary'] = -1\n"
        "df['extra'] = 1\n"
        "df.sort_values('salary', inplace=True)\n"
        "df"
    )
    result = pool.run(code, {"df": people})
    assert result.ok and "extra" in result.value.columns
    pd.testing.assert_frame_equal(people, before)


def test_two_names_for_one_table_are_independent(pool: SandboxPool, people: pd.DataFrame) -> None:
    result = pool.run("df_orig_1.loc[0, 'salary'] = 0\ndf.loc[0, 'salary']", {"df_orig_1": people, "df": people})
    assert result.value == 100


def test_syntax_error_names_the_line(pool: SandboxPool) -> None:
    result = pool.run("x = 1\ny = df[df['a'] > ]")
    assert result.error_type == "syntax" and result.line == 2
    assert result.error and result.error.startswith("SyntaxError at line 2")


def test_exception_text_is_short_and_points_at_generated_code(pool: SandboxPool, people: pd.DataFrame) -> None:
    result = pool.run("x = 1\nnew_table = df[df['budget'] > 100]", {"df": people})
    assert result.error_type == "exception" and result.line == 2
    assert result.error == "KeyError: 'budget' (line 2: new_table = df[df['budget'] > 100])"


def test_refusal_explains_what_is_allowed(pool: SandboxPool) -> None:
    result = pool.run("import os")
    assert result.error_type == "refused"
    assert "allowed: collections, datetime, itertools, math, numpy, pandas, re, statistics" in (result.error or "")


def test_common_generated_code_runs(pool: SandboxPool, people: pd.DataFrame) -> None:
    budgets = pd.DataFrame({"dept": ["x", "y"], "budget": [1000, 50]})
    code = """
import re
from collections import Counter
threshold = 100
merged = df_orig_1.merge(df_orig_2, on='dept', how='inner')
merged = merged.query('salary > @threshold and `budget` >= 50')
merged['label'] = merged['name'].str.upper().map(lambda s: re.sub('[AEIOU]', '', s))
summary = merged.groupby('dept').agg(total=('salary', 'sum'), n=('name', 'count')).reset_index()
print("{:,.1f}".format(summary['total'].sum()), f"{len(summary)} groups", Counter(merged['dept']).most_common(1))
summary.sort_values('total', ascending=False)
"""
    result = pool.run(code, {"df_orig_1": people, "df_orig_2": budgets})
    assert result.ok, result.error
    assert result.value.to_dict("records") == [
        {"dept": "y", "total": 250, "n": 1},
        {"dept": "x", "total": 175, "n": 1},
    ]
    assert result.stdout.startswith("425.0 2 groups [('y', 1)]")


def test_unstorable_results_are_converted_with_a_note(pool: SandboxPool) -> None:
    result = pool.run("pd.DataFrame({'m': [1, 'a', None], 'k': [1, 2, 3]})")
    assert result.ok and list(result.value["m"][:2]) == ["1", "a"] and pd.isna(result.value["m"][2])
    assert any("mixed types" in note for note in result.notes)
    dup = pool.run("pd.DataFrame([[1, 2]], columns=['a', 'a'])")
    assert list(dup.value.columns) == ["a", "a.1"] and dup.notes


def test_bad_table_names_and_values_are_input_errors(pool: SandboxPool, people: pd.DataFrame) -> None:
    for name in ("1df", "_df", "pd", "class", "a b"):
        with pytest.raises(InputError):
            pool.run("1", {name: people})
    with pytest.raises(InputError):
        pool.run("1", {"df": [1, 2, 3]})  # type: ignore[dict-item]
    with pytest.raises(InputError):
        pool.run("1", {"df": "tbl_" + "0" * 32})


def test_stored_tables_are_sent_once(tmp_path: object, people: pd.DataFrame) -> None:
    store = ArtifactStore(str(tmp_path))
    table_id = store.put(people)
    pool = SandboxPool(size=1, limits=FAST, store=store)
    try:
        first = pool.run("len(df)", {"df": table_id})
        assert pool.tables_sent == 1
        again = pool.run("df['salary'].max()", {"df": table_id, "df_orig_1": table_id})
        assert first.value == 4 and again.value == 250
        assert pool.tables_sent == 1  # the worker had it already
        assert pool.started == 1 and first.worker_pid == again.worker_pid
    finally:
        pool.close()


def test_worker_is_reused_and_survives_a_timeout(pool: SandboxPool) -> None:
    pid = pool.run("1").worker_pid
    stopped = pool.run("while True:\n    pass", limits=FAST.with_(timeout_seconds=1, cpu_seconds=5))
    assert stopped.error_type == "timeout"
    assert pool.run("2").worker_pid == pid  # only the child was killed


def test_dead_worker_is_replaced(people: pd.DataFrame) -> None:
    pool = SandboxPool(size=1, limits=FAST)
    try:
        first = pool.run("1")
        assert first.worker_pid is not None
        os.kill(first.worker_pid, signal.SIGKILL)
        time.sleep(0.1)
        second = pool.run("df['salary'].sum()", {"df": people})
        assert second.ok and second.value == 615
        assert second.worker_pid != first.worker_pid and pool.replaced == 1
    finally:
        pool.close()


def test_parallel_runs_use_separate_workers(people: pd.DataFrame) -> None:
    pool = SandboxPool(size=2, limits=FAST)
    results: list[object] = []
    try:
        pool.warm()
        threads = [
            threading.Thread(target=lambda n=n: results.append(pool.run(f"df['salary'].sum() + {n}", {"df": people})))
            for n in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(r.value for r in results) == [615, 616, 617, 618]  # type: ignore[attr-defined]
        assert pool.started <= 2
    finally:
        pool.close()


def test_module_level_run_code_uses_the_shared_pool() -> None:
    result = run_code("pd.DataFrame({'a': [1, 2]})['a'].mean()")
    assert result.ok and result.value == 1.5


def test_memory_limit_is_reported_and_pool_stays_healthy(pool: SandboxPool) -> None:
    result = pool.run("np.zeros(10 ** 9)")
    assert result.error_type == "memory" and "memory" in (result.error or "").lower()
    assert_healthy(pool)
