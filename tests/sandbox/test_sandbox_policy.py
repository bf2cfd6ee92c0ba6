"""The AST policy on its own: what it refuses, and that ordinary generated pandas code passes."""

from __future__ import annotations

import pytest

import graphagents.sandbox as sandbox
from graphagents.sandbox import CodeRefused, check_code
from graphagents.sandbox.policy import MAX_CODE_CHARS, attribute_problem

ORDINARY = [
    "new_table = df[df['budget'] > 100]",
    "new_table = df_orig_1.merge(df_orig_2, left_on='department_id', right_on='dept_id')",
    "df.groupby('city', as_index=False)['sales'].sum().sort_values('sales', ascending=False).head(3)",
    "df.query('year == 2020 and `team name` != \"x\"')",
    "limit = 5\ndf.query('rank <= @limit')",
    "df.eval('ratio = a / b')",
    "df['d'] = pd.to_datetime(df['date'], errors='coerce')\ndf[df['d'].dt.year == 2019]",
    "df.agg({'sales': 'sum', 'price': ['mean', 'max']})",
    "df.apply(lambda r: r['a'] if r['kind'] == 'open' else 0, axis=1)",
    "s = df['x'].map({'open': 1, 'load': 2})",
    "'{:.2f}%'.format(12.345)",
    "f'{df.shape[0]} rows, {df[\"a\"].mean():.1f} mean'",
    "import numpy as np\nfrom datetime import datetime, timedelta\nimport re",
    "from collections import Counter, defaultdict\nimport itertools, statistics, math",
    "def top(g):\n    return g.nlargest(1, 'v')\ndf.groupby('k', group_keys=False).apply(top)",
    "try:\n    v = float(x)\nexcept (ValueError, TypeError):\n    v = None",
    "rows = [r for r in df.itertuples(index=False) if r.a > 1]",
    "getattr(df, 'shape')",
    "df.columns = [c.strip().lower() for c in df.columns]",
    "import numpy.random\nnp.random.default_rng(0).normal(size=3)",
    "del df['tmp']",
    "result = df.pivot_table(index='a', columns='b', values='c', aggfunc='sum', fill_value=0)",
]


@pytest.mark.parametrize("code", ORDINARY)
def test_ordinary_generated_code_passes(code: str) -> None:
    check_code(code)


@pytest.mark.parametrize(
    ("code", "line", "words"),
    [
        ("x = 1\nimport os", 2, "import of 'os'"),
        ("df.__dict__", 1, "dunder"),
        ("df.to_parquet('x')", 1, "file I/O"),
        ("pd.read_sql('select 1', 'sqlite://')", 1, "file I/O"),
        ("@staticmethod\ndef f():\n    pass", 2, "decorators"),
        ("x = 1\nwith x:\n    pass", 2, "with blocks"),
        ("global x", 1, "global"),
        ("'{0.real}'.format(1)", 1, "format fields"),
        ("'{:{w.x}}'.format(1, w=2)", 1, "format fields"),
        ("df.apply('to_csv')", 1, "function name"),
        ("df.agg({'a': 'to_pickle'})", 1, "function name"),
        ("hasattr(df, name)", 1, "literal attribute name"),
        ("f = df.query", 1, "literal expression"),
        ("df.query('a > 1', resolvers=[{}])", 1, "does not accept"),
    ],
)
def test_refusals_name_line_and_reason(code: str, line: int, words: str) -> None:
    with pytest.raises(CodeRefused) as info:
        check_code(code)
    assert info.value.line == line and info.value.kind == "refused"
    assert words in info.value.reason


def test_syntax_errors_are_a_separate_kind() -> None:
    with pytest.raises(CodeRefused) as info:
        check_code("df[")
    assert info.value.kind == "syntax" and str(info.value).startswith("SyntaxError at line 1")


def test_size_and_depth_limits() -> None:
    with pytest.raises(CodeRefused, match="characters"):
        check_code("x = 1\n" * (MAX_CODE_CHARS // 6 + 1))
    with pytest.raises(CodeRefused) as info:
        check_code("(" * 500 + ")" * 500)
    assert info.value.kind == "syntax"


def test_attribute_problem_is_the_single_rule() -> None:
    assert attribute_problem("shape") is None
    for name in ("_x", "__class__", "gi_frame", "read_csv", "to_csv", "io", "f_globals"):
        assert attribute_problem(name)


def test_public_surface() -> None:
    assert sorted(sandbox.__all__) == sorted(
        [
            "ALLOWED_MODULES", "ArtifactStore", "CodeRefused", "ErrorType", "Limits", "SandboxPool",
            "SandboxResult", "TableInfo", "ValueKind", "check_code", "get_pool", "get_store", "run_code",
        ]
    )  # fmt: skip
    for name in sandbox.__all__:
        assert name in vars(sandbox)
