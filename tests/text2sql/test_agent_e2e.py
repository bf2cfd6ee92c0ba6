"""The agent end to end: offline brain and oracle on SQLite and PostgreSQL, streaming, clear failures."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from t2s_helpers import temporary_pg_database

import graphagents as ga
from graphagents.agents.text2sql.demo import demo_questions_path, load_postgres
from graphagents.agents.text2sql.spec import SPEC
from graphagents.errors import ConfigError, ServiceUnavailableError
from graphagents.evals import run_evaluation
from graphagents.events import DecisionEvent, TokenEvent, ToolCallEvent, ToolResultEvent
from graphagents.sql import load_questions

ga.register(SPEC)


@pytest.fixture(scope="module")
def demo_pg_url(pg_url: str) -> Iterator[str]:
    """A private database holding the demo data, dropped afterwards."""
    with temporary_pg_database(pg_url, "gg_t2s_agent") as url:
        load_postgres(url)
        yield url


def test_offline_brain_answers_a_group_by_question_with_events() -> None:
    agent = ga.load("text2sql", cache=False)
    events = list(agent.session().stream("지역별 고객 수"))
    final = events[-1]
    state = final.state  # type: ignore[attr-defined]
    assert state["status"] == "submitted" and "GROUP BY" in state["sql"].upper()
    assert state["table"]["columns"] and len(state["table"]["rows"]) == 10
    assert sum(r[-1] for r in state["table"]["rows"]) == 5000
    tokens = [e for e in events if isinstance(e, TokenEvent)]
    assert {"reasoning", "user_facing"} <= {t.section for t in tokens}
    calls = [e.tool for e in events if isinstance(e, ToolCallEvent)]
    assert calls[0] == "search_tables" and calls[-1] == "submit_sql" and "explain" in calls
    assert len([e for e in events if isinstance(e, ToolResultEvent)]) == len(calls)


def test_offline_brain_says_plainly_when_it_cannot_build_sql() -> None:
    reply = ga.load("text2sql", cache=False).session().send("화성 탐사선의 연료 잔량은?")
    assert reply.done and reply.state["status"] == "answered" and reply.state["sql"] is None
    assert "만들 수 없어요" in reply.text


def test_offline_brain_english_question() -> None:
    reply = ga.load("text2sql", cache=False).session().send("How many customers are there?")
    assert reply.state["status"] == "submitted" and reply.state["table"]["rows"] == [[5000]]


def test_offline_rewrites_are_decisions_when_exploration_is_raised() -> None:
    reply = ga.load("text2sql", cache=False, min_exploration=2).session().send("How many customers are there?")
    assert reply.state["status"] == "submitted"
    kinds = [(e.kind, e.reason) for e in reply.events if isinstance(e, DecisionEvent) and e.kind == "policy_rewrite"]
    assert ("policy_rewrite", "require_exploration_first") in kinds


def test_bad_url_is_one_clear_line() -> None:
    with pytest.raises(ConfigError) as info:
        ga.load("text2sql", db="mysql://localhost/x")
    assert "\n" not in str(info.value) and "unsupported" in str(info.value)


def test_missing_sqlite_file_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(ServiceUnavailableError) as info:
        ga.load("text2sql", db=f"sqlite:///{tmp_path / 'nope.db'}")
    assert "\n" not in str(info.value)


def test_unreachable_server_is_one_clear_line() -> None:
    with pytest.raises(ServiceUnavailableError) as info:
        ga.load("text2sql", db="postgresql://postgres@127.0.0.1:1/nothing")
    assert "\n" not in str(info.value) and "127.0.0.1:1" in str(info.value)


def test_empty_database_is_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    sqlite3.connect(path).close()
    with pytest.raises(ConfigError) as info:
        ga.load("text2sql", db=f"sqlite:///{path}")
    assert "no tables" in str(info.value) and "load-demo" in str(info.value)


def test_bad_option_is_rejected() -> None:
    with pytest.raises(ConfigError):
        ga.load("text2sql", max_calls=99)


@pytest.mark.postgres
def test_offline_brain_on_postgres(demo_pg_url: str) -> None:
    reply = ga.load("text2sql", db=demo_pg_url, cache=False).session().send("지역별 고객 수")
    assert reply.state["status"] == "submitted"
    assert sum(r[-1] for r in reply.state["table"]["rows"]) == 5000


@pytest.mark.postgres
@pytest.mark.slow
def test_oracle_reaches_100_percent_on_the_demo_set_on_postgres(demo_pg_url: str) -> None:
    report = run_evaluation("text2sql", "dev", llm="oracle", eval_options={"db": demo_pg_url})
    wrong = [(r.case.question, r.output.error) for r in report.results if r.status != "right"]
    assert wrong == [] and report.n == len(load_questions(demo_questions_path()))
    assert all(r.output.details["tool_calls"] == ["search_tables", "explain", "execute_sql_preview", "submit_sql"]
               for r in report.results)
