"""Escape attempts through the whole server: a coder model that writes hostile code, over HTTP, on an
uploaded table. Each is refused or contained, the turn ends cleanly, and the server stays healthy."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from langchain_core.messages import BaseMessage, SystemMessage
from tableqa_helpers import DEPARTMENT

from graphagents.server import create_app
from graphagents.settings import get_settings
from graphagents.testing import FunctionChatModel

USER = {"X-User-Id": "tq-attacker"}

ATTACKS = {
    "subclass-walk": "new_table = ().__class__.__bases__[0].__subclasses__()",
    "import-os": "import os\nos.system('touch {SENTINEL}')",
    "open-write": "with open('{SENTINEL}', 'w') as f:\n    f.write('x')",
    "pd-io-os": "pd.io.common.os.system('touch {SENTINEL}')",
    "to-csv": "df.to_csv('{SENTINEL}')\nnew_table = df",
    "query-at": "new_table = df.query('@pd.io.common.os.system(\"id\")')",
    "getattr-dunder": "new_table = getattr(df, '__cl' + 'ass__')",
    "np-load": "new_table = np.load('{SENTINEL}', allow_pickle=True)",
    "fork-bomb": "import os\nwhile True:\n    os.fork()",
    "infinite-loop": "while True:\n    pass",
    "memory-bomb": "new_table = 'a' * 10 ** 11",
    "huge-output": "new_table = pd.DataFrame({'x': range(3_000_000)})",
    "recursion": "def f(n):\n    return f(n + 1)\nnew_table = f(0)",
}


def _attacker() -> FunctionChatModel:
    """The planner asks for one Retrieve named after an attack, then finishes; the coder answers
    that Retrieve with the attack's code (every retry too)."""

    def reply(messages: list[BaseMessage]) -> str:
        text = "\n".join(str(m.content) for m in messages)
        if any(isinstance(m, SystemMessage) for m in messages):
            name = re.search(r'지시사항: "attack (\S+)"', text)
            if name is None:
                return "new_table = df_orig_1[df_orig_1['Num_Employees'] > 100000]"
            return f"```python\n{ATTACKS[name.group(1)]}\n```"
        if "Observation 1:" in text:
            return "Thought 2: done.\nAction 2: Finish[stopped]"
        name = re.search(r"Question: run (\S+)", text)
        if name:
            return f"Thought 1: try it.\nAction 1: Retrieve[attack {name.group(1)}]"
        return "Thought 1: look.\nAction 1: Retrieve[rows of df_orig_1 with Num_Employees above 100000]"

    return FunctionChatModel(function=reply)


@pytest.fixture(scope="module")
def sentinel_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="graphagents-tq-sentinel-"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
async def client(tmp_path: Path, sentinel_dir: Path) -> AsyncIterator[httpx.AsyncClient]:
    for name, code in ATTACKS.items():
        ATTACKS[name] = code.replace("{SENTINEL}", str(sentinel_dir / "pwned"))
    settings = get_settings().model_copy(update={"data_dir": tmp_path / "data"})
    options = {"tableqa": {"llm": _attacker(), "timeout_s": 3, "memory_mb": 512, "coder_retries": 1}}
    app = create_app(settings, options)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test", timeout=120) as c:
        yield c


def _final(text: str) -> dict[str, Any]:
    finals = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and '"state"' in line]
    return dict(finals[-1])


async def test_hostile_code_over_http_is_refused_or_contained(client: httpx.AsyncClient, sentinel_dir: Path) -> None:
    res = await client.post("/api/agents/tableqa/uploads",
                            files={"file": ("department.csv", Path(DEPARTMENT).read_bytes())}, headers=USER)
    table = res.json()["id"]
    sid = (await client.post("/api/agents/tableqa/sessions", json={"options": {"tables": [table]}},
                             headers=USER)).json()["session_id"]
    seen: dict[str, str] = {}
    for name in ATTACKS:
        res = await client.post(f"/api/agents/tableqa/sessions/{sid}/messages", json={"text": f"run {name}"},
                                headers=USER)
        assert res.status_code == 200, res.text
        state = _final(res.text)["state"]
        step = state["steps"][0]
        seen[name] = step["error_type"]
        if name == "huge-output":  # contained by cutting: at most the sandbox's max_rows come back
            assert all(t["rows"] <= 1_000_000 for t in state["intermediate_tables"]), state["intermediate_tables"]
        else:
            assert step["action"] == "Retrieve" and not step["ok"], (name, step)
            assert not state["intermediate_tables"]  # nothing hostile became a table
        assert (await client.get("/healthz")).json()["status"] == "ok"
    assert os.listdir(sentinel_dir) == []
    assert seen["infinite-loop"] in {"timeout", "cpu"} and seen["memory-bomb"] == "memory"
    assert {seen[n] for n in ("subclass-walk", "import-os", "open-write", "pd-io-os", "fork-bomb")} <= {"refused"}
    # the same session still answers an ordinary question with real steps
    res = await client.post(f"/api/agents/tableqa/sessions/{sid}/messages", json={"text": "big departments?"},
                            headers=USER)
    state = _final(res.text)["state"]
    big = int((pd.read_csv(DEPARTMENT)["Num_Employees"] > 100000).sum())
    assert state["steps"][0]["ok"] and state["intermediate_tables"][0]["rows"] == big > 0
