"""The per-user profile: stored in the user's namespace of the long-term store (SQLite, PostgreSQL),
scoped by user, shown and cleared through the CLI and HTTP, exported and erased by the core with the
user's data (no hook), moved over from the old table, and kept across a restart with the session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphagents.agents.rag.profiles import ProfileStore, empty_profile

PROFILE = {"demographics": {"age": 65, "sex": "male"}, "conditions": ["type 2 diabetes"],
           "symptoms": [], "medications": [{"name": "metformin", "dose": "500 mg", "frequency": "하루 2회"}],
           "vitals": {"blood_pressure": "140/90 mmHg"}, "labs": {"fasting_glucose": "180 mg/dL"}}


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    import shutil

    from graphagents import _connections
    from graphagents.settings import get_settings

    embeddings = get_settings().data_dir / "embeddings"  # a cache: copied so nothing is embedded twice
    if embeddings.is_dir():
        shutil.copytree(embeddings, tmp_path / "data" / "embeddings")
    monkeypatch.setenv("GRAPHAGENTS_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    _connections.reset()
    yield tmp_path / "data"
    get_settings.cache_clear()
    _connections.reset()


def _store() -> ProfileStore:
    from graphagents._connections import store_for
    from graphagents.settings import get_settings

    return ProfileStore(store_for(get_settings().resolved_store_url))


def test_profiles_round_trip_and_stay_per_user(data_dir: Path) -> None:
    store = _store()
    assert store.get("alice").profile == empty_profile() and store.get("alice").updated_at is None
    store.put("alice", PROFILE)
    assert store.get("alice").profile == PROFILE
    assert store.get("bob").profile == empty_profile()  # one user never sees another's
    store.put("alice", {**PROFILE, "symptoms": ["dizziness"], "unknown_slot": 1})
    got = store.get("alice").profile
    assert got["symptoms"] == ["dizziness"] and "unknown_slot" not in got
    assert store.delete("alice") == 1 and store.delete("alice") == 0
    assert store.get("alice").profile == empty_profile()


def test_profiles_in_postgres(pg_database: str) -> None:
    from graphagents._connections import store_for

    store = ProfileStore(store_for(pg_database))
    store.put("alice", PROFILE)
    store.put("alice", {**PROFILE, "labs": {}})
    assert store.get("alice").profile["labs"] == {} and store.get("alice").profile["vitals"] == PROFILE["vitals"]
    assert store.get("bob").profile == empty_profile()
    assert store.delete("alice") == 1


async def test_http_profile_routes_show_and_clear_only_the_callers(data_dir: Path) -> None:
    from graphagents.server import create_app
    from graphagents.settings import get_settings

    _store().put("alice", PROFILE)
    _store().put("bob", {**PROFILE, "demographics": {"age": 30}})
    app = create_app(get_settings())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        res = await client.get("/api/agents/rag/profile", headers={"X-User-Id": "alice"})
        assert res.status_code == 200
        body = res.json()
        assert set(body) == {"user_id", "profile", "summary", "updated_at"}
        assert body["user_id"] == "alice" and body["profile"] == PROFILE and body["updated_at"]
        res = await client.delete("/api/agents/rag/profile", headers={"X-User-Id": "alice"})
        assert res.status_code == 200 and res.json()["profile"] == empty_profile() and res.json()["deleted"] >= 1
        res = await client.get("/api/agents/rag/profile", headers={"X-User-Id": "bob"})
        assert res.json()["profile"]["demographics"] == {"age": 30}  # bob's survives alice's clear
        res = await client.get("/api/agents/rag/profile", headers={"X-User-Id": "a b"})
        assert res.status_code in (400, 401, 422)


@pytest.mark.parametrize("dialect", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_profiles_of_the_old_table_move_into_the_store_once(data_dir: Path, dialect: str, request: Any) -> None:
    """Profiles written by the table-backed store stay readable: the first open moves them into the
    user's namespace (a profile already there wins) and drops the table, so an erasure misses none."""
    import json

    from graphagents._connections import store_for
    from graphagents.agents.rag.profiles import LEGACY_TABLE, profile_store_for
    from graphagents.settings import get_settings
    from graphagents.store import database_for

    url = request.getfixturevalue("pg_database") if dialect == "postgres" else get_settings().resolved_database_url
    db = database_for(url)
    db.execute(f"CREATE TABLE {LEGACY_TABLE} (user_id TEXT PRIMARY KEY, profile TEXT NOT NULL, "
               "updated_at DOUBLE PRECISION NOT NULL)")
    db.execute(f"INSERT INTO {LEGACY_TABLE} VALUES (?, ?, ?)", ("olga", json.dumps(PROFILE), 1_700_000_000.0))
    db.execute(f"INSERT INTO {LEGACY_TABLE} VALUES (?, ?, ?)", ("pia", json.dumps({"conditions": ["asthma"]}), 1.0))
    store = store_for(get_settings().resolved_store_url)
    ProfileStore(store).put("pia", {"conditions": ["migraine"]})  # newer, already in the store

    profiles = profile_store_for(store, db)
    assert profiles.get("olga").profile == PROFILE and profiles.get("olga").updated_at == 1_700_000_000.0
    assert profiles.get("pia").profile["conditions"] == ["migraine"]
    exists = ("SELECT to_regclass('ga_rag_profiles') IS NOT NULL" if dialect == "postgres"
              else "SELECT count(*) FROM sqlite_master WHERE name = 'ga_rag_profiles'")
    assert not db.fetchall(exists)[0][0]


def test_cli_profile_show_and_clear(data_dir: Path) -> None:
    from typer.testing import CliRunner

    from graphagents.agents.rag.cli import app

    _store().put("u1", PROFILE)
    runner = CliRunner()
    shown = runner.invoke(app, ["profile", "show", "--user", "u1", "--json"])
    assert shown.exit_code == 0, shown.output
    assert '"metformin"' in shown.output and '"user_id": "u1"' in shown.output
    cleared = runner.invoke(app, ["profile", "clear", "--user", "u1"])
    assert cleared.exit_code == 0 and "cleared" in cleared.output
    assert _store().get("u1").profile == empty_profile()


def test_user_data_export_and_erasure_include_the_profile_and_cached_answers(data_dir: Path) -> None:
    from graphagents.agents.rag.nodes import CACHE_LABEL
    from graphagents.registry import BuildContext
    from graphagents.retrieval import load_embedder
    from graphagents.settings import get_settings
    from graphagents.userdata import delete_user, export_user

    settings = get_settings()
    _store().put("carol", PROFILE)
    _store().put("dave", PROFILE)
    build = BuildContext(None, None, settings, agent="rag", embedder_factory=lambda: load_embedder("fake"))
    cache = build.semantic_cache(CACHE_LABEL)  # the cache the rag graph uses
    cache.store("메트포르민 부작용?", {"answer": "x"}, scope="carol", signature="s")
    cache.store("메트포르민 부작용?", {"answer": "y"}, scope="dave", signature="s")
    exported = export_user("carol", settings=settings)
    profiles = [m for m in exported["memory"] if m["namespace"][2:] == ["rag", "profile"]]
    assert [p["value"]["profile"] for p in profiles] == [PROFILE]  # from the store, by the core, no hook
    assert "rag" not in exported["data"]  # cached answers are erased, not exported
    removed = delete_user("carol", settings=settings)
    assert removed["memory"] >= 1 and removed["rag"] == 1  # the profile (a memory item) and one cached answer
    assert _store().get("carol").profile == empty_profile()
    assert _store().get("dave").profile == PROFILE
    assert cache.lookup("메트포르민 부작용?", scope="carol", signature="s") is None
    assert cache.lookup("메트포르민 부작용?", scope="dave", signature="s") is not None


def test_a_restart_keeps_the_session_and_the_profile(data_dir: Path, rag_options: dict[str, Any],
                                                    mini_store: Any) -> None:
    from graphagents import _connections
    from graphagents.agents.rag.corpus import reset_corpora
    from graphagents.agents.rag.spec import SPEC
    from graphagents.runtime import Agent

    options = rag_options
    agent = Agent(SPEC, embedder="offline", **options)
    session = agent.session(None, user_id="erin")
    first = session.send("How is high blood pressure treated?")
    assert first.state["retrieved_docs"]
    _store().put("erin", PROFILE)
    _connections.reset()  # a new process: every connection closed and reopened
    reset_corpora()
    again = Agent(SPEC, embedder="offline", **options)
    resumed = again.get_session(session.id)
    assert resumed.user_id == "erin"
    assert resumed.state["answer"] == first.state["answer"]
    second = resumed.send("How is low blood pressure treated?")
    assert second.state["profile"] == PROFILE  # the stored profile is used by later turns
    from graphagents.agents.rag.language import profile_summary

    assert second.state["profile_summary"] == profile_summary(PROFILE)
