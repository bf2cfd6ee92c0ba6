"""The message path opens a session from the record this process read or created lately, without a
query; the turn then checks that record against the database under the session's lock. A session
deleted, or created again under the same id, by another process (simulated here by changing the
table directly, behind this process's back) is never run on a stale record."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import graphagents as ga
from graphagents.agents.slotfill.spec import SPEC as SLOTFILL
from graphagents.errors import UnknownSessionError
from graphagents.registry import unregister
from graphagents.settings import Settings


@pytest.fixture(autouse=True)
def _slotfill(fresh_resources: None) -> Iterator[None]:
    ga.register(SLOTFILL)
    yield
    unregister(SLOTFILL.name)


@pytest.fixture(params=["sqlite", "postgres"])
def agent(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    url = None
    if request.param == "postgres":
        url = request.getfixturevalue("pg_database")
    return ga.load("slotfill", settings=Settings(data_dir=tmp_path, checkpoint_url=url, warm_on_start=False))


def _behind_its_back(agent: Any, sql: str, *params: Any) -> None:
    """Change the session table as another process would: not through this process's store."""
    db = agent.sessions.db
    db.execute(sql, params)


def _queries(agent: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    fetchall = agent.sessions.db.fetchall

    def counted(sql: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(sql)
        return fetchall(sql, *args, **kwargs)

    monkeypatch.setattr(agent.sessions.db, "fetchall", counted)
    return seen


def test_a_recent_session_opens_without_a_query(agent: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    session = agent.session(user_id="u1")
    seen = _queries(agent, monkeypatch)
    again = asyncio.run(agent.aget_session(session.id, "u1"))
    assert seen == [] and again.user_id == "u1" and again.created_at == session.created_at
    with pytest.raises(UnknownSessionError):  # another user's id is never confirmed, hint or not
        asyncio.run(agent.aget_session(session.id, "u2"))


def test_a_session_deleted_elsewhere_takes_no_turn(agent: Any) -> None:
    session = agent.session(user_id="u1")
    asyncio.run(session.asend("안녕하세요"))
    _behind_its_back(agent, "DELETE FROM ga_sessions WHERE agent = ? AND session_id = ?", "slotfill", session.id)
    stale = asyncio.run(agent.aget_session(session.id, "u1"))  # the hint still has it
    before = agent.graph.get_state(stale.config).values
    with pytest.raises(UnknownSessionError):
        asyncio.run(stale.asend("전화번호는 010-4001-7919이에요"))
    assert agent.graph.get_state(stale.config).values == before  # no turn ran
    with pytest.raises(UnknownSessionError):  # and the hint is gone
        asyncio.run(agent.aget_session(session.id, "u1"))


def test_a_session_created_again_by_someone_else_is_theirs(agent: Any) -> None:
    session = agent.session(user_id="u1")
    _behind_its_back(agent, "DELETE FROM ga_sessions WHERE agent = ? AND session_id = ?", "slotfill", session.id)
    _behind_its_back(agent, "INSERT INTO ga_sessions (agent, session_id, options, created_at, user_id)"
                     " VALUES (?, ?, ?, ?, ?)", "slotfill", session.id, "{}", time.time(), "u2")
    stale = asyncio.run(agent.aget_session(session.id, "u1"))
    with pytest.raises(UnknownSessionError):
        asyncio.run(stale.asend("안녕하세요"))
    theirs = asyncio.run(agent.aget_session(session.id, "u2"))
    assert asyncio.run(theirs.asend("안녕하세요")).text


def test_a_session_created_again_by_its_user_runs_with_the_new_options(agent: Any) -> None:
    session = agent.session(user_id="u1")
    profile = {"customer_name": "김민수"}
    _behind_its_back(agent, "UPDATE ga_sessions SET options = ?, created_at = ? WHERE agent = ? AND session_id = ?",
                     json.dumps({"profile": profile}), time.time() + 1, "slotfill", session.id)
    stale = asyncio.run(agent.aget_session(session.id, "u1"))
    assert stale.options.get("profile") is None
    asyncio.run(stale.asend("안녕하세요"))
    assert stale.options["profile"] == profile
