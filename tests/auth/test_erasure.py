"""Export and erasure of one user's data, on SQLite files and on PostgreSQL + Redis.

The stores are searched byte by byte afterwards (SQLite files with their write-ahead logs, every
table of the PostgreSQL database, every Redis key and string value): the erased user's words, name,
phone and id are gone; the other user's are still there (so the search does find what exists)."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from auth_helpers import file_bytes, reset_settings

import graphagents as ga
from graphagents.settings import get_settings
from graphagents.userdata import delete_user, export_user

SLOTFILL_TURNS = ["안녕하세요", "네 맞아요", "네", "아니요", "네 맞아요"]


@pytest.fixture(params=["sqlite", "postgres+redis"])
def backend(request: pytest.FixtureRequest, data_dir: Path,
            monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    info: dict[str, Any] = {"kind": request.param, "data_dir": data_dir}
    if request.param == "postgres+redis":
        info["pg"] = request.getfixturevalue("pg_database")
        info["redis"] = request.getfixturevalue("redis_url")
        monkeypatch.setenv("GRAPHAGENTS_CHECKPOINT_URL", info["pg"])
        monkeypatch.setenv("GRAPHAGENTS_CACHE_URL", info["redis"])
    reset_settings()
    yield info
    reset_settings()


SYLLABLES = "민서지우하윤도현준영수아은채예린주원시연태희나온율별"


def person(tag: str) -> dict[str, str]:
    uid = uuid.uuid4().hex[:8]
    n = int(uid[:4], 16)
    name = "김" + SYLLABLES[n % len(SYLLABLES)] + SYLLABLES[(n // len(SYLLABLES)) % len(SYLLABLES)]
    return {"user": f"{tag}-{uid}", "words": f"{tag.upper()}-WORDS-{uid}", "name": name,
            "phone": f"010-{int(uid[:4], 16) % 9000 + 1000}-{int(uid[4:], 16) % 9000 + 1000}"}


def fill(p: dict[str, str]) -> None:
    """A memo turn (state, store, cache, own table) and a finished slotfill application."""
    ga.load("memo").session(user_id=p["user"]).send(f"remember {p['words']}")
    s = ga.load("slotfill").session(user_id=p["user"], profile={"customer_name": p["name"],
                                                                 "customer_phone": p["phone"]})
    for text in SLOTFILL_TURNS:
        reply = s.send(text)
    assert reply.state.get("application_id"), reply.text


def markers(p: dict[str, str]) -> list[str]:
    return [p["words"], p["name"], p["phone"], p["user"]]


def sqlite_bytes(data_dir: Path) -> bytes:
    return file_bytes(data_dir)


def postgres_bytes(url: str) -> bytes:
    import psycopg

    out = bytearray()
    with psycopg.connect(url) as conn:
        tables = conn.execute("SELECT schemaname, tablename FROM pg_tables"
                              " WHERE schemaname NOT IN ('pg_catalog', 'information_schema')").fetchall()
        for schema, table in tables:
            for row in conn.execute(f'SELECT * FROM "{schema}"."{table}"'):
                for value in row:
                    if isinstance(value, bytes | memoryview):
                        out += bytes(value)
                    elif value is not None:
                        out += json.dumps(value, ensure_ascii=False, default=str).encode()
    return bytes(out)


def redis_bytes(url: str, needles: list[str]) -> bytes:
    """Every key that mentions a needle, and every string value (scanned, never flushed)."""
    import redis

    client = redis.Redis.from_url(url)
    out = bytearray()
    for key in client.scan_iter(count=1000):
        out += key
        if client.type(key) == b"string":
            out += client.get(key) or b""
    return bytes(out)


def everything(info: dict[str, Any], needles: list[str]) -> bytes:
    """The stores' bytes as they are on disk now, with every connection still open (as a running
    server leaves them): deleted rows must not survive in a write-ahead log either."""
    if info["kind"] == "sqlite":
        return sqlite_bytes(info["data_dir"])
    return postgres_bytes(info["pg"]) + redis_bytes(info["redis"], needles) + sqlite_bytes(info["data_dir"])


def found(blob: bytes, words: list[str]) -> list[str]:
    return [w for w in words if w.encode() in blob]


def test_erasure_leaves_no_trace_and_spares_the_other_user(backend: dict[str, Any], memo_spec: Any) -> None:
    a, b = person("ann"), person("ben")
    fill(a)
    fill(b)
    settings = get_settings()
    exported = export_user(a["user"], settings=settings)
    assert {s["agent"] for s in exported["sessions"]} == {"memo", "slotfill"}
    assert exported["data"]["slotfill"]["applications"][0]["slots"]["customer_phone"] == a["phone"]
    assert exported["data"]["memo"]["notes"][0]["text"] == f"remember {a['words']}"
    assert exported["data"]["memo"]["cached"] == {"text": f"remember {a['words']}"}
    assert exported["memory"][0]["value"] == {"text": f"remember {a['words']}"}
    memo_state = next(s for s in exported["sessions"] if s["agent"] == "memo")["state"]
    assert memo_state["notes"] == [f"remember {a['words']}"]
    before = everything(backend, markers(a) + markers(b))
    assert found(before, markers(a)) == markers(a)  # the search finds what is there

    removed = delete_user(a["user"], settings=get_settings())
    # agents that keep nothing for this user (tableqa's uploads, rag's profile) report 0
    assert {k: v for k, v in removed.items() if v} == {"sessions": 2, "threads": 2, "memory": 1, "memo": 1,
                                                       "slotfill": 1}

    after = everything(backend, markers(a) + markers(b))
    assert found(after, markers(a)[:3]) == []  # words, name, phone: nowhere
    assert found(after, markers(b)) == markers(b)  # the other user's data is whole
    empty = export_user(a["user"], settings=get_settings())
    assert (empty["sessions"], empty["memory"]) == ([], [])
    assert {k: empty["data"][k] for k in ("memo", "slotfill")} == {"memo": {"notes": [], "cached": None},
                                                                  "slotfill": {"applications": []}}
    assert found(json.dumps(empty, ensure_ascii=False, default=str).encode(), markers(a)[:3]) == []


def test_cli_exports_and_deletes_with_keys(data_dir: Path, memo_spec: Any, tmp_path: Path) -> None:
    """`graphagents data export|delete` in a separate process, on the same files the server uses."""
    from graphagents.auth.keys import KeyStore
    from graphagents.store import database_for

    a = person("cli")
    ga.load("slotfill").session(user_id=a["user"], profile={"customer_name": a["name"],
                                                            "customer_phone": a["phone"]}).send("안녕하세요")
    KeyStore(database_for(get_settings().resolved_database_url)).create(a["user"], name="laptop")
    env = {"GRAPHAGENTS_DATA_DIR": str(data_dir), "PATH": "/usr/bin:/bin"}
    out = tmp_path / "export.json"

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "graphagents", *args], env=env, capture_output=True,
                              text=True, timeout=120)

    exported = cli("data", "export", "--user", a["user"], "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["sessions"][0]["options"]["profile"]["customer_phone"] == a["phone"]
    refused = cli("data", "delete", "--user", a["user"])  # no --yes and no terminal: nothing happens
    assert refused.returncode == 1
    assert a["phone"].encode() in sqlite_bytes(data_dir)
    done = cli("data", "delete", "--user", a["user"], "--yes", "--keys", "--json")
    assert done.returncode == 0, done.stderr
    deleted = json.loads(done.stdout)["deleted"]
    assert {k: v for k, v in deleted.items() if v} == {"sessions": 1, "threads": 1, "keys": 1}
    assert {"memory", "slotfill", "web_sign_ins"} <= set(deleted)
    assert found(sqlite_bytes(data_dir), markers(a)) == []
    bad = cli("data", "delete", "--user", "not a user", "--yes")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "bad user id" in bad.stderr


def test_a_user_id_with_periods_has_a_store_namespace() -> None:
    """Ids like e-mail addresses or ``127.0.0.1`` are valid users; LangGraph's store refuses periods
    in namespace labels, so the id is encoded there (reversibly, and never two ids to one label)."""
    from langgraph.store.memory import InMemoryStore

    from graphagents.userdata import user_namespace

    store = InMemoryStore()
    for uid in ("hana@example.com", "127.0.0.1", "a%2Eb", "a.b"):
        store.put(user_namespace(uid, "notes"), "k", {"who": uid})
    for uid in ("hana@example.com", "127.0.0.1", "a%2Eb", "a.b"):
        assert [i.value["who"] for i in store.search(user_namespace(uid))] == [uid]
