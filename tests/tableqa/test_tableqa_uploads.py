"""Table uploads over HTTP: formats, limits, one-line 4xx errors, per-user scoping, use in a session."""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from tableqa_helpers import DEPARTMENT, MANAGEMENT

import graphagents as ga
from graphagents.sandbox import get_store
from graphagents.server import create_app
from graphagents.settings import Settings, get_settings

ALICE = {"X-User-Id": "alice-tq"}
BOB = {"X-User-Id": "bob-tq"}


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = get_settings().model_copy(update={"max_upload_bytes": 200_000, "data_dir": tmp_path / "data"})
    app = create_app(settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


async def upload(client: httpx.AsyncClient, name: str, data: bytes, headers: dict[str, str] = ALICE,
                 **params: str) -> httpx.Response:
    return await client.post("/api/agents/tableqa/uploads", files={"file": (name, data)}, headers=headers,
                             params=params)


def _sse_final(text: str) -> dict[str, Any]:
    finals = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and '"state"' in line]
    return dict(finals[-1])


def _xlsx(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.to_excel(buf, index=False)
    return buf.getvalue()


def _sqlite(tmp_path: Path, tables: dict[str, pd.DataFrame]) -> bytes:
    path = tmp_path / "t.sqlite"
    with sqlite3.connect(path) as conn:
        for name, frame in tables.items():
            frame.to_sql(name, conn, index=False)
    return path.read_bytes()


async def test_every_format_uploads_with_its_shape(client: httpx.AsyncClient, tmp_path: Path) -> None:
    frame = pd.read_csv(DEPARTMENT)
    bodies = {
        "department.csv": Path(DEPARTMENT).read_bytes(),
        "department.tsv": frame.to_csv(sep="\t", index=False).encode(),
        "department.json": frame.to_json(orient="records").encode(),
        "department.jsonl": frame.to_json(orient="records", lines=True).encode(),
        "department.xlsx": _xlsx(frame),
        "department.sqlite": _sqlite(tmp_path, {"department": frame}),
    }
    ids = set()
    for name, data in bodies.items():
        res = await upload(client, name, data)
        assert res.status_code == 201, (name, res.text)
        body = res.json()
        assert body["name"] == "department" and body["rows"] == 15 and body["bytes"] == len(data)
        assert body["columns"] == list(frame.columns) and body["id"].startswith("tbl_")
        ids.add(body["id"])
    listed = (await client.get("/api/agents/tableqa/uploads", headers=ALICE)).json()
    assert {u["id"] for u in listed} == ids


async def test_bad_files_are_one_line_4xx(client: httpx.AsyncClient, tmp_path: Path) -> None:
    cases = [
        ("evil.exe", b"MZ\x90\x00", 415, "unsupported file type"),
        ("notes.txt", b"a,b\n1,2\n", 415, "unsupported file type"),
        ("broken.xlsx", b"PK\x03\x04 not really a zip", 422, "cannot read"),
        ("broken.sqlite", b"SQLite format 3\x00" + b"\x00" * 50, 422, ""),
        ("bad.json", b"{not json", 422, "cannot read"),
        ("empty.csv", b"", 422, "empty"),
        ("two.sqlite", _sqlite(tmp_path, {"a": pd.DataFrame({"x": [1]}), "b": pd.DataFrame({"y": [2]})}), 422,
         "?table="),
    ]
    for name, data, status, words in cases:
        res = await upload(client, name, data)
        assert res.status_code == status, (name, res.text)
        body = res.json()
        assert "\n" not in body["detail"] and body["detail"] == body["error"] and words in body["detail"], body
        assert "/tmp/" not in body["detail"]  # the server's temporary path is not shown
    res = await client.post("/api/agents/tableqa/uploads", json={"file": "a,b"}, headers=ALICE)
    assert res.status_code == 415
    res = await client.post("/api/agents/tableqa/uploads", files={"other": ("a.csv", b"a\n1\n")}, headers=ALICE)
    assert res.status_code == 422 and "field 'file'" in res.json()["detail"]
    assert (await client.get("/api/agents/tableqa/uploads", headers=ALICE)).json() == []


async def test_a_sheet_or_table_is_picked_by_name(client: httpx.AsyncClient, tmp_path: Path) -> None:
    data = _sqlite(tmp_path, {"a": pd.DataFrame({"x": [1, 2]}), "b": pd.DataFrame({"y": [3]})})
    res = await upload(client, "two.sqlite", data, table="b")
    assert res.status_code == 201 and res.json()["name"] == "b" and res.json()["columns"] == ["y"]
    res = await upload(client, "two.sqlite", data, table="nope")
    assert res.status_code == 422 and "has no table 'nope'" in res.json()["detail"]


async def test_over_the_limit_is_413_and_the_server_stays_up(client: httpx.AsyncClient) -> None:
    big = b"a,b\n" + b"1,2\n" * 60_000  # 240 kB > 200 kB
    res = await upload(client, "big.csv", big)
    assert res.status_code == 413 and "200,000 bytes" in res.json()["detail"]

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted while reading
        yield b"--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.csv\"\r\n\r\n"
        for _ in range(100):
            yield b"1,2\n" * 1000
        yield b"\r\n--x--\r\n"

    res = await client.post("/api/agents/tableqa/uploads", content=chunks(),
                            headers={**ALICE, "Content-Type": "multipart/form-data; boundary=x"})
    assert res.status_code == 413
    assert (await client.get("/healthz")).json()["status"] == "ok"
    small = await upload(client, "ok.csv", b"a,b\n1,2\n")
    assert small.status_code == 201
    just_over_json_limit = b"a,b\n" + b"10,20\n" * 15_000  # 90 kB: above max_body_bytes, below the upload limit
    res = await upload(client, "mid.csv", just_over_json_limit)
    assert res.status_code == 201 and res.json()["rows"] == 15_000


async def test_uploads_are_scoped_to_their_user(client: httpx.AsyncClient) -> None:
    res = await upload(client, "secret.csv", b"SecretColumn,v\nx,1\n")
    table_id = res.json()["id"]
    assert (await client.get("/api/agents/tableqa/uploads", headers=BOB)).json() == []
    res = await client.delete(f"/api/agents/tableqa/uploads/{table_id}", headers=BOB)
    assert res.status_code == 404 and "SecretColumn" not in res.text
    for bad in ("tbl_" + "0" * 32, "..", "x"):
        assert (await client.delete(f"/api/agents/tableqa/uploads/{bad}", headers=ALICE)).status_code == 404
    # bob cannot use alice's id in a session: refused when the session is created, not at its first message
    for body in ({"tables": [table_id]}, {"tables": [f"mine={table_id}"]}, {"tables": ["tbl_" + "1" * 32]}):
        res = await client.post("/api/agents/tableqa/sessions", json={"options": body}, headers=BOB)
        assert res.status_code == 404 and "no uploaded table" in res.json()["error"], res.text
        assert "SecretColumn" not in res.text
    res = await client.post("/api/agents/tableqa/sessions", json={"options": {"tables": [table_id]}}, headers=ALICE)
    assert res.status_code == 201


async def test_a_session_answers_over_uploaded_tables(client: httpx.AsyncClient) -> None:
    dep = (await upload(client, "department.csv", Path(DEPARTMENT).read_bytes())).json()["id"]
    man = (await upload(client, "management.csv", Path(MANAGEMENT).read_bytes())).json()["id"]
    res = await client.post("/api/agents/tableqa/sessions", json={"options": {"tables": [dep, f"heads={man}"]}},
                            headers=ALICE)
    assert res.status_code == 201, res.text
    sid = res.json()["session_id"]
    res = await client.post(f"/api/agents/tableqa/sessions/{sid}/messages",
                            json={"text": "Which department has the most employees, and what is its budget?"},
                            headers=ALICE)
    final = _sse_final(res.text)
    state = final["state"]
    assert state["answer"] == ["Defense", "439.3"]
    assert [t["name"] for t in state["original_tables"]] == ["department", "heads"]
    assert state["intermediate_tables"] and state["tables_used"] == ["department"]
    shown = [a for a in final["artifacts"] if a["kind"] == "intermediate_table"]  # what the page draws
    assert len(shown) == len(state["intermediate_tables"]) and shown[-1]["rows"] == [["Defense", 439.3]]
    res = await client.post("/api/agents/tableqa/sessions", json={"options": {"tables": ["/etc/passwd"]}},
                            headers=ALICE)
    assert res.status_code == 422 and "not an uploaded table id" in res.json()["error"]


def test_erasing_a_user_erases_their_uploads(tmp_path: Path) -> None:
    from graphagents.agents.tableqa.uploads import Uploads
    from graphagents.store import database_for
    from graphagents.userdata import delete_user, export_user

    settings = Settings(data_dir=tmp_path)
    uploads = Uploads(database_for(settings.resolved_database_url))
    mine = uploads.add("carol-tq", "scores.csv", b"name,score\nkim,3\nlee,5\n")
    uploads.add("dave-tq", "other.csv", b"k\n1\n")
    exported = export_user("carol-tq", settings=settings)
    assert exported["data"]["tableqa"]["uploads"][0]["id"] == mine.id
    delete_user("carol-tq", settings=settings)
    assert uploads.list("carol-tq") == [] and mine.id not in get_store()
    assert [u.name for u in uploads.list("dave-tq")] == ["other"]
    # the agent's own session path: an id of someone else is refused in the library too
    agent = ga.load("tableqa", settings=settings)
    reply = agent.session(None, user_id="carol-tq", tables=[uploads.list("dave-tq")[0].id]).send("How many?")
    assert reply.state["status"] == "error" and "no uploaded table" in reply.text


def test_a_session_whose_upload_was_deleted_says_so(tmp_path: Path) -> None:
    from graphagents.agents.tableqa.uploads import Uploads
    from graphagents.store import database_for

    settings = Settings(data_dir=tmp_path)
    uploads = Uploads(database_for(settings.resolved_database_url))
    data = Path(DEPARTMENT).read_bytes().replace(b"Defense", b"Defence")  # content of its own: its own id
    mine = uploads.add("erin-tq", "department.csv", data)
    session = ga.load("tableqa", settings=settings).session(None, user_id="erin-tq", tables=[mine.id])
    first = session.send("Which department has the most employees, and what is its budget?")
    assert first.state["answer"] == ["Defence", "439.3"]
    uploads.delete("erin-tq", mine.id)
    second = session.send("Which department has the fewest employees?")
    assert second.state["status"] == "error" and "was deleted" in second.text and "\n" not in second.state["reason"]


async def test_uploads_per_user_are_capped(client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphagents.agents.tableqa import uploads as module

    monkeypatch.setattr(module, "MAX_UPLOADS_PER_USER", 2)
    for i in range(2):
        assert (await upload(client, f"t{i}.csv", f"a\n{i}\n".encode())).status_code == 201
    res = await upload(client, "t3.csv", b"a\n3\n")
    assert res.status_code == 422 and "delete some" in res.json()["detail"]
    assert (await upload(client, "t3.csv", b"a\n3\n", headers=BOB)).status_code == 201  # per user
