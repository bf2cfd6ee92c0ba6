"""A run that a crash cut short between two steps is finished before the user's next text is applied.

The crash is reproduced deterministically: the checkpoints written after slotfill's ``process``
step are deleted from the saver (as if the process died right after ``process`` saved its writes),
and the agent is reloaded as in a fresh process. ``process`` had already shown the corrected phone
number (a ``state_update`` event); the user's "네 맞아요" must confirm that number, not the old one.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import graphagents as ga
from graphagents import _connections
from graphagents._turn import Turn
from graphagents.agents.slotfill.spec import SPEC as SLOTFILL
from graphagents.registry import unregister
from graphagents.settings import Settings

NEW_PHONE = "010-9999-8888"


@pytest.fixture(autouse=True)
def _slotfill() -> Iterator[None]:
    ga.register(SLOTFILL)
    yield
    unregister(SLOTFILL.name)


def _sqlite_delete(settings: Settings) -> Callable[[str, list[str]], None]:
    def delete(thread: str, ids: list[str]) -> None:
        path = Path(settings.resolved_checkpoint_url.removeprefix("sqlite:///"))
        with sqlite3.connect(path) as con:
            for cid in ids:
                con.execute("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?", (thread, cid))
                con.execute("DELETE FROM writes WHERE thread_id = ? AND checkpoint_id = ?", (thread, cid))

    return delete


def _postgres_delete(url: str) -> Callable[[str, list[str]], None]:
    def delete(thread: str, ids: list[str]) -> None:
        import psycopg

        with psycopg.connect(url, autocommit=True) as con:
            for cid in ids:
                con.execute("DELETE FROM checkpoints WHERE thread_id = %s AND checkpoint_id = %s", (thread, cid))
                con.execute("DELETE FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_id = %s", (thread, cid))

    return delete


def _crash_after_process(settings: Settings, delete: Callable[[str, list[str]], None]) -> str:
    """A session whose last turn corrected the phone and then 'crashed' right after ``process``."""
    agent = ga.load("slotfill", settings=settings)
    s = agent.session()
    s.send("안녕하세요")
    shown = s.send(f"전화번호는 {NEW_PHONE}이에요")
    assert shown.state["slots"]["customer_phone"] == NEW_PHONE  # what the user was shown
    history = list(agent.graph.get_state_history(s.config))
    process_step = max(h.metadata["step"] for h in history if h.next == ("process",))
    later = [h.config["configurable"]["checkpoint_id"] for h in history if h.metadata["step"] > process_step]
    assert later  # the checkpoint after process (ask's interrupt): what the crash lost
    _connections.reset()
    delete(s.config["configurable"]["thread_id"], later)
    _connections.reset()
    return s.id


def _reloaded(settings: Settings, sid: str) -> ga.Session:
    s = ga.load("slotfill", settings=settings).get_session(sid)
    assert s.state["slots"]["customer_phone"] == NEW_PHONE  # the writes are there...
    assert s.pending is None  # ...but nobody waits for the user: the run was cut short
    turn = Turn(s.agent.spec, s.config, s.agent.step_cap)
    assert turn.cut_short(s.agent.graph.get_state(s.config))
    return s


def _check_confirmed(reply: ga.Reply) -> None:
    assert reply.state["slots"]["customer_phone"] == NEW_PHONE, reply.state
    assert reply.state["confirmed_groups"] == ["basic_info"]
    assert reply.state["stage"] == "ask_lifelong_account"


def test_a_crashed_run_is_finished_before_the_next_text_sqlite(tmp_path: Path, fresh_resources: None) -> None:
    settings = Settings(data_dir=tmp_path)
    sid = _crash_after_process(settings, _sqlite_delete(settings))
    _check_confirmed(_reloaded(settings, sid).send("네 맞아요"))


def test_reading_a_session_finishes_a_crashed_run(tmp_path: Path, fresh_resources: None) -> None:
    """The last message of a conversation has no next one: reading the session finishes its run."""
    settings = Settings(data_dir=tmp_path)
    sid = _crash_after_process(settings, _sqlite_delete(settings))
    session = _reloaded(settings, sid)
    assert session.settle() is True
    assert session.pending is not None  # the run reached its question: the user is asked again
    assert session.settle() is False  # nothing left to finish
    _check_confirmed(session.send("네 맞아요"))


def test_reading_a_crashed_session_over_http_finishes_its_run(tmp_path: Path, fresh_resources: None) -> None:
    from fastapi.testclient import TestClient

    from graphagents.server import create_app

    settings = Settings(data_dir=tmp_path, warm_on_start=False)
    sid = _crash_after_process(settings, _sqlite_delete(settings))
    _connections.reset()
    with TestClient(create_app(settings), client=("127.0.0.1", 50000)) as client:
        body = client.get(f"/api/agents/slotfill/sessions/{sid}").json()
    assert body["pending"] and body["state"]["slots"]["customer_phone"] == NEW_PHONE


def test_a_crashed_run_is_finished_on_the_async_path_too(tmp_path: Path, fresh_resources: None) -> None:
    settings = Settings(data_dir=tmp_path)
    sid = _crash_after_process(settings, _sqlite_delete(settings))
    session = _reloaded(settings, sid)
    _check_confirmed(asyncio.run(session.asend("네 맞아요")))


def test_a_crashed_run_is_finished_before_the_next_text_postgres(tmp_path: Path, pg_database: str) -> None:
    settings = Settings(data_dir=tmp_path, checkpoint_url=pg_database)
    sid = _crash_after_process(settings, _postgres_delete(pg_database))
    _check_confirmed(_reloaded(settings, sid).send("네 맞아요"))


def test_a_run_ended_by_the_step_cap_is_not_replayed(example_spec: Any) -> None:
    agent = ga.load("example", loop="raw")
    s = agent.session()
    first = s.send("go")
    assert [e.to_dict()["code"] for e in first.events if e.type == "error"] == ["step_cap"]
    snapshot = agent.graph.get_state(s.config)
    assert snapshot.tasks and not snapshot.interrupts  # LangGraph still has work: the cap stopped it
    assert not Turn(agent.spec, s.config, agent.step_cap).cut_short(snapshot)
    second = s.send("go")
    spins = [e for e in second.events if e.type == "step" and e.to_dict().get("phase") == "end"]
    assert len(spins) <= agent.step_cap  # one capped run, not the old one replayed and then a new one


def test_a_finished_or_waiting_session_is_not_cut_short(example_spec: Any) -> None:
    agent = ga.load("example")
    s = agent.session()
    turn = Turn(agent.spec, s.config, agent.step_cap)
    assert not turn.cut_short(agent.graph.get_state(s.config))  # new: nothing ran
    s.send("hi")
    assert not turn.cut_short(agent.graph.get_state(s.config))  # waiting on a question


@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
def test_durability_decides_which_steps_of_a_turn_are_checkpointed(tmp_path: Path, fresh_resources: None,
                                                                   durability: str) -> None:
    agent = ga.load("slotfill", settings=Settings(data_dir=tmp_path, durability=durability))  # type: ignore[arg-type]
    s = agent.session()
    s.send("안녕하세요")
    before = len(list(agent.graph.get_state_history(s.config)))
    assert s.send(f"전화번호는 {NEW_PHONE}이에요").state["slots"]["customer_phone"] == NEW_PHONE
    added = len(list(agent.graph.get_state_history(s.config))) - before
    # per step (resume ask, process) or once when the turn ends at ask's next question
    assert added == (1 if durability == "exit" else 2)
    _check_confirmed(ga.load("slotfill", settings=Settings(data_dir=tmp_path)).get_session(s.id).send("네 맞아요"))
