"""The locks behind the AST policy, tested with the policy switched off.

A script in a separate process turns the policy into a plain parse, then runs attacks through
the real worker code path (warm-up, audit hook, fork, rlimits, restricted namespace). Each attack
gets real builtins or real modules through a class walk, which the policy would have refused,
and must still fail to touch files, processes or the worker.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

SCRIPT = r"""
import ast, json, sys
import pandas as pd
from graphagents.sandbox import audit, child, warmup, worker
from graphagents.sandbox.protocol import decode_body, unframe
from graphagents.sandbox.result import Limits

child.parse_checked = lambda code: ast.parse(code)  # the policy is off: only the runtime locks remain
warmup.run()
audit.install()
limits = dict(Limits(timeout_seconds=5, memory_mb=512).wire(), result_var=None)
out = {}
for name, code in json.load(open(sys.argv[1])).items():
    reply, payload = worker._run(code, {"df": pd.DataFrame({"a": [1, 2]})}, limits)
    header = decode_body(unframe(payload))[0] if payload else {}
    out[name] = {"status": reply["status"], "ok": header.get("ok"), "value": header.get("value"),
                 "error": header.get("error")}
print(json.dumps(out))
"""

WALK = "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0].__init__.__globals__"
BUILTINS = f"({WALK})['__builtins__']"


def attacks(sentinel: Path) -> dict[str, str]:
    return {
        "no-open-builtin": "open('/etc/passwd').read()",
        "guarded-import": "__import__('os')",
        "walk-os-system": f"({WALK})['system']('touch {sentinel}')",
        "walk-os-open": f"({WALK})['open']('{sentinel}', 0o101)",
        "walk-real-open": f"{BUILTINS}['open']('{sentinel}', 'w')",
        "walk-read-passwd": f"{BUILTINS}['open']('/etc/passwd').read()",
        "walk-fork": f"({WALK})['fork']()",
        "walk-exec": f"{BUILTINS}['exec']('x = 1')",
        "walk-import-socket": f"{BUILTINS}['__import__']('socket').socket()",
        "walk-ctypes": f"{BUILTINS}['__import__']('ctypes').CDLL(None)",
        "walk-kill-worker": f"({WALK})['kill']({WALK}['getppid'](), 9)",
        "walk-subprocess": f"{BUILTINS}['__import__']('subprocess').run(['id'])",
        "walk-listdir": f"({WALK})['listdir']('/')",
        "generator-frame": "def g():\n    yield 1\nx = g()\nx.gi_frame",
        "no-new-descriptors": f"({WALK})['pipe']()",
        "no-dup": f"({WALK})['dup'](0)",
        "rlimit-nofile": f"{BUILTINS}['__import__']('resource').getrlimit(7)",
        "cannot-raise-limits": f"{BUILTINS}['__import__']('resource').setrlimit(7, (1024, 1024))",
    }


@pytest.fixture(scope="module")
def outcomes() -> tuple[dict[str, dict], Path]:
    sentinel_dir = Path(tempfile.mkdtemp(prefix="graphagents-locks-"))
    sentinel_dir.chmod(0o777)
    sentinel = sentinel_dir / "pwned"
    spec = sentinel_dir / "attacks.json"
    spec.write_text(json.dumps(attacks(sentinel)))
    env = dict(os.environ, JE_ARROW_MALLOC_CONF="background_thread:false", OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(spec)], capture_output=True, text=True, timeout=300, env=env
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    spec.unlink()
    return json.loads(proc.stdout.strip().splitlines()[-1]), sentinel


BLOCKED = "blocked"


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("no-open-builtin", "NameError"),
        ("guarded-import", "not allowed in the sandbox"),
        ("walk-os-system", BLOCKED),
        ("walk-os-open", BLOCKED),
        ("walk-real-open", BLOCKED),
        ("walk-read-passwd", BLOCKED),
        ("walk-fork", BLOCKED),
        ("walk-exec", BLOCKED),
        ("walk-import-socket", BLOCKED),
        ("walk-ctypes", BLOCKED),
        ("walk-kill-worker", BLOCKED),
        ("walk-subprocess", BLOCKED),
        ("walk-listdir", BLOCKED),
        ("generator-frame", BLOCKED),
        ("no-new-descriptors", "Too many open files"),
        ("no-dup", "Too many open files"),
        ("cannot-raise-limits", BLOCKED),
    ],
)
def test_runtime_lock_holds_without_the_policy(outcomes: tuple[dict[str, dict], Path], name: str, needle: str) -> None:
    results, sentinel = outcomes
    outcome = results[name]
    assert outcome["status"] == "done" and outcome["ok"] is False, outcome
    assert needle in outcome["error"], outcome
    assert not sentinel.exists()


def test_child_has_no_free_file_descriptors(outcomes: tuple[dict[str, dict], Path]) -> None:
    results, _ = outcomes
    assert results["rlimit-nofile"]["ok"] is True
    assert results["rlimit-nofile"]["value"] == [4, 4]
