"""Escape attempts through the public entry point: each is refused before it runs or contained
while it runs, nothing is written, and the same pool answers a normal question afterwards."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from sandbox_helpers import assert_healthy

from graphagents.sandbox import Limits, SandboxPool

REFUSED = {"refused", "syntax"}

# (id, code, what must happen): "refused" = stopped by the AST policy before any process sees it;
# otherwise the set of error types that count as contained. {SENTINEL} is a world-writable path.
CASES: list[tuple[str, str, set[str] | str]] = [
    # class-hierarchy walks and dunders
    ("subclass-walk", "().__class__.__bases__[0].__subclasses__()", "refused"),
    ("subclass-walk-comprehension", "[c for c in ''.__class__.__mro__[1].__subclasses__()]", "refused"),
    ("mro-method", "df.mro()", "refused"),
    ("func-globals", "f = lambda: 0\nf.__globals__['__builtins__']", "refused"),
    ("code-object", "(lambda: 0).__code__", "refused"),
    ("builtins-name", "__builtins__['open']('/etc/passwd').read()", "refused"),
    ("import-dunder", "__import__('os').system('id')", "refused"),
    ("dunder-string-agg", "df.agg('__class__')", "refused"),
    ("private-attribute", "df._mgr", "refused"),
    ("private-pandas-libs", "pd._libs", "refused"),
    # getattr tricks
    ("getattr-built-name", "getattr((), '__cl' + 'ass__')", "refused"),
    ("getattr-literal-dunder", "getattr(df, '__class__')", "refused"),
    ("getattr-as-value", "g = getattr\ng(df, 'to_csv')('{SENTINEL}')", "refused"),
    ("getattr-via-pipe", "df.pipe(getattr, '__class__')", "refused"),
    ("getattr-io-method", "getattr(df, 'to_pickle')('{SENTINEL}')", "refused"),
    # hidden code
    ("eval", "eval('1 + 1')", "refused"),
    ("exec", "exec('x = 1')", "refused"),
    ("compile", "compile('1', 'x', 'eval')", "refused"),
    ("pipe-eval", "df.pipe(eval, '1')", "refused"),
    ("apply-open", "df['name'].apply(open)", "refused"),
    ("globals", "globals()['__builtins__']", "refused"),
    ("vars", "vars(df)", "refused"),
    ("class-definition", "class A:\n    pass", "refused"),
    ("type-three-args", "type('A', (), {})", "refused"),
    ("async", "async def f():\n    pass", "refused"),
    # pandas expression strings
    ("query-at-module-walk", "df.query('@pd.io.common.os.system(\"id\")')", "refused"),
    ("query-dunder-import", "df.query(\"__import__('os').system('id')\")", "refused"),
    ("query-backtick-dunder", "df.query('`salary` > 1 and @__builtins__')", "refused"),
    ("query-non-literal", "q = 'salary > 1'\ndf.query(q)", "refused"),
    ("eval-local-dict", "df.eval('salary', local_dict={'x': 1})", "refused"),
    ("pd-eval-attribute", "pd.eval('df.__class__')", "refused"),
    # format strings
    ("format-dunder", "'{0.__class__}'.format(df)", "refused"),
    ("format-built-string", "s = '{0.__cl' + 'ass__}'\ns.format(df)", "refused"),
    ("format-item", "'{0[0]}'.format(['a'])", "refused"),
    ("format-map", "'{x}'.format_map({'x': 1})", "refused"),
    # frames and tracebacks
    ("generator-frame", "def g():\n    yield 1\nx = g()\nx.gi_frame.f_globals", "refused"),
    ("traceback-frame", "try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__.tb_frame", "refused"),
    ("with-traceback", "try:\n    1 / 0\nexcept Exception as e:\n    e.with_traceback(None)", "refused"),
    # modules
    ("import-os", "import os\nos.system('touch {SENTINEL}')", "refused"),
    ("import-subprocess", "import subprocess\nsubprocess.run(['id'])", "refused"),
    ("import-sys-modules", "import sys\nsys.modules['os']", "refused"),
    ("import-importlib", "import importlib\nimportlib.import_module('os')", "refused"),
    ("import-ctypes", "import ctypes\nctypes.CDLL(None)", "refused"),
    ("import-signal", "import signal\nsignal.alarm(1)", "refused"),
    ("import-pickle", "import pickle\npickle.loads(b'x')", "refused"),
    ("import-socket", "import socket\nsocket.create_connection(('127.0.0.1', 80))", "refused"),
    ("fork-bomb-multiprocessing", "import multiprocessing\nwhile 1:\n    multiprocessing.Process().start()", "refused"),
    ("fork-bomb-os", "import os\nwhile True:\n    os.fork()", "refused"),
    ("from-pandas-io", "from pandas.io import common\ncommon.os.system('id')", "refused"),
    ("pd-io-os", "pd.io.common.os.system('touch {SENTINEL}')", "refused"),
    ("pd-compat-os", "pd.compat.os.system('id')", "refused"),
    ("np-lib-os", "np.lib.npyio.os.system('id')", "refused"),
    ("np-ctypeslib", "np.ctypeslib.load_library('libc', '/lib')", "refused"),
    ("ndarray-ctypes", "df.values.ctypes.data", "refused"),
    ("relative-import", "from . import x", "refused"),
    # file I/O
    ("open", "open('/etc/passwd').read()", "refused"),
    ("with-open", "with open('{SENTINEL}', 'w') as f:\n    f.write('x')", "refused"),
    ("read-csv", "pd.read_csv('/etc/passwd')", "refused"),
    ("read-pickle", "pd.read_pickle('{SENTINEL}')", "refused"),
    ("to-csv", "df.to_csv('{SENTINEL}')", "refused"),
    ("to-pickle", "df.to_pickle('{SENTINEL}')", "refused"),
    ("agg-to-pickle", "df.agg('to_pickle', '{SENTINEL}')", "refused"),
    ("np-load", "np.load('{SENTINEL}', allow_pickle=True)", "refused"),
    ("np-fromfile", "np.fromfile('/etc/passwd')", "refused"),
    ("ndarray-tofile", "df.values.tofile('{SENTINEL}')", "refused"),
    ("set-option", "pd.set_option('display.max_rows', 1)", "refused"),
    # enforced at run time (the AST policy lets these through)
    ("to-string-buf-writes", "df.to_string(buf='{SENTINEL}')", {"exception"}),
    ("monkeypatch-pandas", "pd.DataFrame.sum = lambda self: 42\ndf.sum()", set()),
    ("infinite-loop", "while True:\n    pass", {"timeout", "cpu"}),
    ("cpu-bomb", "10 ** 10 ** 8", {"cpu", "timeout"}),
    ("regex-bomb", "import re\nre.match('(a+)+$', 'a' * 40 + 'b')", {"cpu", "timeout"}),
    ("memory-bomb-string", "'a' * 10 ** 11", {"memory"}),
    ("memory-bomb-numpy", "np.ones((10 ** 5, 10 ** 5))", {"memory"}),
    ("memory-bomb-list", "x = []\nwhile True:\n    x.append(' ' * 10 ** 7)", {"memory", "cpu", "timeout"}),
    ("recursion", "def f(n):\n    return f(n + 1)\nf(0)", {"exception"}),
    ("lazy-import-plot", "df.plot()", {"exception"}),
]


@pytest.fixture(scope="module")
def sentinel_dir() -> Iterator[Path]:
    """World-writable in a world-searchable parent, so that only the sandbox (not file
    permissions, nor the drop to 'nobody' when tests run as root) stands between code and it."""
    path = Path(tempfile.mkdtemp(prefix="graphagents-sentinel-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.parametrize(("code", "expect"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_escape_is_refused_or_contained(
    pool: SandboxPool, people: pd.DataFrame, sentinel_dir: Path, code: str, expect: set[str] | str
) -> None:
    sentinel = sentinel_dir / "pwned"
    before = people.copy()
    result = pool.run(code.replace("{SENTINEL}", str(sentinel)), {"df": people})
    if expect == "refused":
        assert result.error_type in REFUSED, (result.ok, result.error)
        assert result.exec_ms is None  # no process ran it
    elif expect:
        assert not result.ok and result.error_type in expect, (result.ok, result.error_type, result.error)
    assert not sentinel.exists()
    assert os.listdir(sentinel_dir) == []
    pd.testing.assert_frame_equal(people, before)
    assert_healthy(pool)


def test_there_are_at_least_forty_attempts() -> None:
    assert len(CASES) >= 40
    assert len({c[0] for c in CASES}) == len(CASES)


def test_monkeypatching_pandas_does_not_reach_the_next_run(pool: SandboxPool, people: pd.DataFrame) -> None:
    poisoned = pool.run("pd.DataFrame.sum = lambda self: 42\nnp.random.seed(7)\ndf.sum()", {"df": people})
    assert poisoned.ok and poisoned.value == 42  # it did change pandas, inside its own child
    clean = pool.run("df['salary'].sum()", {"df": people})
    assert clean.value == 615


def test_blocked_file_write_names_the_reason(pool: SandboxPool, people: pd.DataFrame, sentinel_dir: Path) -> None:
    result = pool.run(f"df.to_string(buf={str(sentinel_dir / 'x')!r})", {"df": people})
    assert result.error_type == "exception"
    assert "PermissionError" in (result.error or "") and "blocked" in (result.error or "")


def test_huge_stdout_is_truncated(pool: SandboxPool) -> None:
    result = pool.run("for i in range(100000):\n    print('x' * 100)")
    assert result.ok
    assert result.stdout.endswith("[output truncated]")
    assert len(result.stdout) < pool.limits.max_stdout_chars + 100


def test_huge_string_value_is_truncated(pool: SandboxPool) -> None:
    result = pool.run("'x' * 10 ** 7")
    assert result.ok and result.truncated
    assert len(result.value) == pool.limits.max_value_chars


def test_huge_table_is_cut_to_max_rows(pool: SandboxPool) -> None:
    result = pool.run("pd.DataFrame({'a': range(50_000)})", limits=pool.limits.with_(max_rows=1000))
    assert result.ok and result.truncated
    assert len(result.value) == 1000 and result.rows_total == 50_000


def test_result_over_the_byte_limit_is_stopped(pool: SandboxPool) -> None:
    limits = Limits(timeout_seconds=10, memory_mb=512, max_result_bytes=1 << 20)
    result = pool.run("pd.DataFrame({'a': ['x' * 1000] * 20_000})", limits=limits)
    assert result.error_type == "output"
    assert_healthy(pool)


def test_a_300_mb_result_is_the_documented_output_error(pool: SandboxPool) -> None:
    """Issue 26: a 320 MB table (1,000,000 x 40 floats, under max_rows) was "exit code 70": the child
    ran out of memory copying it to send. The child now checks the size before and after encoding."""
    limits = Limits(timeout_seconds=60, memory_mb=2048)
    for code in ("pd.DataFrame(np.zeros((1_000_000, 40)))",  # floats: caught from their buffers, before encoding
                 "pd.DataFrame({'a': ['x' * 400] * 700_000})"):  # a text column
        result = pool.run(code, limits=limits)
        assert not result.ok and result.error_type == "output", (code, result.error)
        assert result.error is not None and result.error.startswith("Output too large: the result is over 256 MB")
        assert "exit code" not in result.error
    assert_healthy(pool)


def test_long_lists_are_cut(pool: SandboxPool) -> None:
    result = pool.run("list(range(10 ** 6))")
    assert result.ok and result.truncated
    assert len(result.value) == pool.limits.max_items
