"""The per-user profile: stored in the application database (SQLite, PostgreSQL), scoped by user,
shown and cleared through the CLI and HTTP, part of the user's data export and erasure, and kept
across a restart together with the session."""

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
    from graphagents.settings import get_settings
    from graphagents.store import database_for

    return ProfileStore(database_for(get_settings().resolved_database_url))


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
    from graphagents.store import database_for

    store = ProfileStore(database_for(pg_database))
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
        res = await client.get("/api/rag/profile", headers={"X-User-Id": "alice"})
        assert res.status_code == 200
        body = res.json()
        assert set(body) == {"user_id", "profile", "summary", "updated_at"}
        assert body["user_id"] == "alice" and body["profile"] == PROFILE and body["updated_at"]
        res = await client.delete("/api/rag/profile", headers={"X-User-Id": "alice"})
        assert res.status_code == 200 and res.json()["profile"] == empty_profile() and res.json()["deleted"] >= 1
        res = await client.get("/api/rag/profile", headers={"X-User-Id": "bob"})
        assert res.json()["profile"]["demographics"] == {"age": 30}  # bob's survives alice's clear
        res = await client.get("/api/rag/profile", headers={"X-User-Id": "a b"})
        assert res.status_code in (400, 401, 422)


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
    from graphagents._connections import semantic_cache_for
    from graphagents.agents.rag.nodes import CACHE_NAMESPACE
    from graphagents.retrieval import load_embedder
    from graphagents.settings import get_settings
    from graphagents.userdata import delete_user, export_user

    settings = get_settings()
    _store().put("carol", PROFILE)
    cache = semantic_cache_for(settings.cache_url, CACHE_NAMESPACE, load_embedder("fake"))
    cache.store("메트포르민 부작용?", {"answer": "x"}, scope="carol", signature="s")
    cache.store("메트포르민 부작용?", {"answer": "y"}, scope="dave", signature="s")
    exported = export_user("carol", settings=settings)
    assert exported["data"]["rag"]["profile"] == PROFILE
    removed = delete_user("carol", settings=settings)
    assert removed["rag"] == 2  # the profile and one cached answer
    assert _store().get("carol").profile == empty_profile()
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
