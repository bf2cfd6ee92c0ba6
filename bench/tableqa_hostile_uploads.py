"""Issue 26, items 2-3: hostile uploads against a live server, with the server's memory watched.

Each of the issue's files is posted to ``graphagents serve`` (a separate process, its own data
dir) while a thread samples the server's RSS (``/proc/<pid>/status``) and that of its children
(the upload readers). Printed per file: the HTTP status and first words of the answer, seconds,
the server's peak RSS and its RSS after, against the baseline: the same server after one ordinary
CSV upload (department, 15 rows), measured in this run. Before the fix the issue measured: the 4 KB
randomblob SQLite took the server from 785 MB to a 4.6 GB peak and left it at 3.5 GB, with a 500;
the 100,000-column CSV ran more than 14 minutes; the 28 KB cross-join view about 10 minutes; the
515 KB XLSX 7.5 minutes and +428 MB.

    .venv/bin/python bench/tableqa_hostile_uploads.py
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from graphagents.testing.hostile import descendants, xlsx_bytes

EXAMPLE = Path(__file__).resolve().parents[1] / "src/graphagents/agents/tableqa/data/examples/department.csv"


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Sampler(threading.Thread):
    """Peak RSS of the server and of its children while one request runs."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.server_peak = 0.0
        self.children_peak = 0.0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            self.server_peak = max(self.server_peak, rss_mb(self.pid))
            self.children_peak = max(self.children_peak, sum(rss_mb(p) for p in descendants(self.pid)))
            time.sleep(0.05)


def sqlite_bytes(directory: Path, name: str, *statements: str) -> bytes:
    path = directory / name
    with sqlite3.connect(path) as conn:
        for statement in statements:
            conn.execute(statement)
    return path.read_bytes()


def cases(directory: Path) -> list[tuple[str, str, bytes, dict[str, str]]]:
    wide = ",".join(f"c{i}" for i in range(100_000))
    cross = sqlite_bytes(directory, "cross.sqlite", "CREATE TABLE a (x INTEGER)",
                         "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 1000) "
                         "INSERT INTO a SELECT x FROM n",
                         "CREATE VIEW v AS SELECT * FROM a a1, a a2, a a3 WHERE a1.x + a2.x + a3.x < 0")
    return [
        ("randomblob view (4 KB SQLite)", "blob.sqlite",
         sqlite_bytes(directory, "blob.sqlite", "CREATE VIEW v AS SELECT randomblob(400000000) AS b"), {}),
        ("100,000 columns (CSV)", "wide.csv", (wide + "\n" + ",".join("1" * 100_000) + "\n").encode(), {}),
        ("cross join, no table named", "cross.sqlite", cross, {}),
        ("cross join view picked", "cross.sqlite", cross, {"table": "v"}),
        ("slow view (no plan to refuse)", "slow.sqlite",
         sqlite_bytes(directory, "slow.sqlite", "CREATE VIEW s AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
                      "SELECT x + 1 FROM c WHERE x < 100000000000) SELECT count(*) AS n FROM c"), {}),
        ("400,000 x 20 XLSX, <dimension>", "big.xlsx", xlsx_bytes(400_000, 20, dimension=True), {}),
        ("400,000 x 20 XLSX, none", "big.xlsx", xlsx_bytes(400_000, 20, dimension=False), {}),
        ("cp949 Korean CSV", "부서.csv", "부서,예산\n국방부,543.2\n교육부,46.2\n".encode("cp949"), {}),
    ]


def main() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="ga-bench-uploads-") as tmp:
        directory = Path(tmp)
        env = {**os.environ, "GRAPHAGENTS_DATA_DIR": str(directory / "data"), "GRAPHAGENTS_UPLOAD_SECONDS": "15",
               "GRAPHAGENTS_UPLOAD_CPU_SECONDS": "15"}
        server = subprocess.Popen([sys.executable, "-m", "graphagents", "serve", "--port", str(port)], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)

            def post(name: str, data: bytes, params: dict[str, str]) -> tuple[httpx.Response, float, Sampler]:
                sampler = Sampler(server.pid)
                sampler.start()
                started = time.perf_counter()
                res = httpx.post(f"{url}/api/agents/tableqa/uploads", files={"file": (name, data)}, params=params,
                                 timeout=1200)
                seconds = time.perf_counter() - started
                sampler.done.set()
                sampler.join()
                return res, seconds, sampler

            post("department.csv", EXAMPLE.read_bytes(), {})  # the reader's fork server starts
            res, base_seconds, _ = post("department.csv", EXAMPLE.read_bytes(), {})
            base_rss = rss_mb(server.pid)
            print(f"baseline: ordinary CSV upload {res.status_code} in {base_seconds:.2f} s; server RSS "
                  f"{base_rss:.0f} MB")
            print(f"{'case':34} {'status':>6} {'seconds':>8} {'x base':>7} {'server peak':>12} {'after':>7} "
                  f"{'readers peak':>13}  answer")
            for label, name, data, params in cases(directory):
                res, seconds, sampler = post(name, data, params)
                after = rss_mb(server.pid)
                text = res.json().get("error", "") if res.status_code != 201 else f"{res.json()['rows']} rows"
                print(f"{label:34} {res.status_code:>6} {seconds:>8.2f} {seconds / base_seconds:>6.1f}x "
                      f"{sampler.server_peak:>9.0f} MB {after:>4.0f} MB {sampler.children_peak:>10.0f} MB  "
                      f"{text[:70]}")
            print(f"server RSS at the end: {rss_mb(server.pid):.0f} MB ({rss_mb(server.pid) / base_rss:.2f}x the "
                  "baseline)")
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                server.kill()


if __name__ == "__main__":
    main()
