"""Issue 26's hostile uploads, each a clear 413/422 over HTTP: tables are checked while they are
read (columns from the header, SQLite tables counted and views planned before any is read, XLSX
sizes from the zip before openpyxl parses it), in a child process of the upload pool."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from graphagents.agents.tableqa.uploads import upload_runner
from graphagents.server import create_app
from graphagents.settings import get_settings
from graphagents.testing.hostile import xlsx_bytes

ALICE = {"X-User-Id": "alice-hostile"}


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    settings = get_settings().model_copy(update={"data_dir": tmp_path / "data"})
    app = create_app(settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
        yield c


async def upload(client: httpx.AsyncClient, name: str, data: bytes, **params: str) -> httpx.Response:
    return await client.post("/api/agents/tableqa/uploads", files={"file": (name, data)}, headers=ALICE,
                             params=params)


def sqlite_file(path: Path, *statements: str) -> Path:
    with sqlite3.connect(path) as conn:
        for statement in statements:
            conn.execute(statement)
    return path


def randomblob_sqlite(tmp_path: Path) -> Path:
    """The issue's 4 KB file: 3.8 GB of server memory and a 500 before."""
    return sqlite_file(tmp_path / "blob.sqlite", "CREATE VIEW v AS SELECT randomblob(400000000) AS b")


def cross_join_sqlite(tmp_path: Path) -> Path:
    return sqlite_file(tmp_path / "cross.sqlite", "CREATE TABLE a (x INTEGER)",
                       "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000) "
                       "INSERT INTO a SELECT x FROM n",
                       "CREATE VIEW v AS SELECT * FROM a a1, a a2, a a3 WHERE a1.x + a2.x + a3.x < 0")




async def test_a_randomblob_view_is_413_from_a_child_process(client: httpx.AsyncClient, tmp_path: Path) -> None:
    runner = upload_runner()
    started = runner.started
    data = randomblob_sqlite(tmp_path).read_bytes()
    assert len(data) <= 4096
    res = await upload(client, "blob.sqlite", data, table="v")
    assert res.status_code == 413, res.text
    assert "over 1,000,000 bytes" in res.json()["error"] and "\n" not in res.json()["error"]
    assert runner.started == started + 1 and runner.running == 0  # read in a child, which is gone
    res = await upload(client, "blob.sqlite", data)
    assert res.status_code == 413  # the file's only object, picked without ?table=
    assert (await client.get("/healthz")).status_code == 200


async def test_100000_columns_are_refused_from_the_header(client: httpx.AsyncClient) -> None:
    header = ",".join(f"c{i}" for i in range(100_000))
    data = (header + "\n" + ",".join("1" for _ in range(100_000)) + "\n").encode()
    assert len(data) > 800_000
    res = await upload(client, "wide.csv", data)
    assert res.status_code == 413 and "100,000 columns; the limit is 1,000" in res.json()["error"]


async def test_sqlite_tables_are_counted_and_views_planned_before_reading(client: httpx.AsyncClient,
                                                                          tmp_path: Path) -> None:
    data = cross_join_sqlite(tmp_path).read_bytes()
    res = await upload(client, "cross.sqlite", data)
    assert res.status_code == 422 and "holds 2 tables (a, v); choose one with ?table=NAME" in res.json()["error"]
    res = await upload(client, "cross.sqlite", data, table="v")
    assert res.status_code == 413 and "would visit more than" in res.json()["error"], res.text
    res = await upload(client, "cross.sqlite", data, table="a")
    assert res.status_code == 201 and res.json()["rows"] == 1000


async def test_a_view_too_slow_for_its_plan_is_stopped_at_the_deadline(client: httpx.AsyncClient, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHAGENTS_UPLOAD_SECONDS", "2")
    path = sqlite_file(tmp_path / "slow.sqlite", "CREATE VIEW slow AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
                       "SELECT x + 1 FROM c WHERE x < 10000000000) SELECT count(*) AS n FROM c")
    res = await upload(client, "slow.sqlite", path.read_bytes())
    assert res.status_code == 413 and "took longer than 2 s" in res.json()["error"], res.text


async def test_an_xlsx_that_expands_is_refused_before_it_is_parsed(client: httpx.AsyncClient) -> None:
    for dimension in (True, False):  # openpyxl scans a sheet without <dimension> whole: counted on the zip first
        data = xlsx_bytes(400_000, 20, dimension=dimension)
        assert len(data) < 700_000
        res = await upload(client, "big.xlsx", data)
        assert res.status_code == 413, res.text
        assert "5,000,000 cells" in res.json()["error"]
    res = await upload(client, "small.xlsx", xlsx_bytes(3, 2, dimension=False))
    assert res.status_code == 201 and res.json()["rows"] == 2 and len(res.json()["columns"]) == 2


@pytest.mark.parametrize("kind", ["blob", "wide"])
def test_the_cli_prints_one_line_and_fails(tmp_path: Path, kind: str) -> None:
    if kind == "blob":
        path = randomblob_sqlite(tmp_path)
    else:
        path = tmp_path / "wide.csv"
        path.write_text(",".join(f"c{i}" for i in range(5000)) + "\n" + ",".join("1" * 5000) + "\n")
    res = subprocess.run([sys.executable, "-m", "graphagents", "ask", "tableqa", "How many rows?", "--table",
                          str(path)], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "GRAPHAGENTS_DATA_DIR": str(tmp_path / "data")})
    assert res.returncode != 0, res.stdout
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert ("over 1,000,000 bytes" if kind == "blob" else "5,000 columns") in res.stderr


KOREAN_CSV = "부서,예산,직원수\n국방부,543.2,12000\n교육부,46.2,4487\n똠양꿍,1.5,3\n"


@pytest.mark.parametrize("encoding", ["cp949", "euc-kr", "utf-16", "utf-16-le", "utf-8-sig", "utf-8"])
async def test_korean_excel_csvs_upload_in_their_encoding(client: httpx.AsyncClient, encoding: str) -> None:
    text = KOREAN_CSV if encoding != "euc-kr" else KOREAN_CSV.replace("똠양꿍", "환경부")  # 똠 is cp949 only
    if encoding == "utf-16":  # Excel's "Unicode text": UTF-16 with a BOM, tab-separated
        text = text.replace(",", "\t")
    res = await upload(client, "부서.csv", text.encode(encoding))
    assert res.status_code == 201, (encoding, res.text)
    assert res.json()["columns"] == ["부서", "예산", "직원수"] and res.json()["rows"] == 3


def test_the_cli_reads_a_cp949_csv_and_fails_on_a_broken_one(tmp_path: Path) -> None:
    good = tmp_path / "dept.csv"
    good.write_bytes(KOREAN_CSV.encode("cp949"))
    env = {**os.environ, "GRAPHAGENTS_DATA_DIR": str(tmp_path / "data")}
    res = subprocess.run([sys.executable, "-m", "graphagents", "tableqa", "tables", str(good)],
                         capture_output=True, text=True, timeout=300, env=env)
    assert res.returncode == 0 and "국방부" in res.stdout and "int64" in res.stdout, res.stderr
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"a,b\n1,2,3\n4,5,6,7\n")  # ragged: pandas' parser error, as one line
    res = subprocess.run([sys.executable, "-m", "graphagents", "ask", "tableqa", "How many rows?", "--table",
                          str(bad)], capture_output=True, text=True, timeout=300, env=env)
    assert res.returncode != 0 and "Traceback" not in res.stderr and "bad.csv" in res.stderr, res.stderr


async def test_json_records_with_endless_keys_are_refused_before_pandas(client: httpx.AsyncClient) -> None:
    data = ("[" + ",".join(f'{{"k{i}": 1}}' for i in range(50_000)) + "]").encode()  # 50,000 columns if built
    res = await upload(client, "keys.json", data)
    assert res.status_code == 413 and "columns; the limit is 1,000" in res.json()["error"], res.text
    lines = "\n".join(f'{{"k{i}": 1}}' for i in range(5_000)).encode()
    res = await upload(client, "keys.jsonl", lines)
    assert res.status_code == 413


async def test_a_full_upload_pool_is_503_with_retry_after(client: httpx.AsyncClient, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from graphagents.agents.tableqa import routes
    from graphagents.isolation import IsolatedRunner

    runner = IsolatedRunner("uploads", workers=1, queue=0, preload=["graphagents.agents.tableqa.uploads"])
    monkeypatch.setattr(routes, "upload_runner", lambda settings=None: runner)
    monkeypatch.setattr("graphagents.agents.tableqa.uploads.upload_runner", lambda settings=None: runner)
    monkeypatch.setenv("GRAPHAGENTS_UPLOAD_SECONDS", "60")
    slow = sqlite_file(tmp_path / "slow.sqlite", "CREATE VIEW slow AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
                       "SELECT x + 1 FROM c WHERE x < 10000000000) SELECT count(*) AS n FROM c").read_bytes()
    first = asyncio.ensure_future(upload(client, "slow.sqlite", slow))
    for _ in range(600):
        if runner.running:
            break
        await asyncio.sleep(0.05)
    assert runner.running == 1
    res = await upload(client, "ok.csv", b"a,b\n1,2\n")  # the one reader is busy and nothing may wait
    assert res.status_code == 503 and res.headers["retry-after"] == "2" and "too many uploads" in res.json()["error"]
    assert (await client.get("/healthz")).status_code == 200
    runner.cancel_all()
    assert (await first).status_code == 503
