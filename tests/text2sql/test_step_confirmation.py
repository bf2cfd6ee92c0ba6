"""Step Confirmation Mode: the graph asks before each SQL tool call and obeys yes / no / edited SQL."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest
from typer.testing import CliRunner

import graphagents as ga
from graphagents.agents.text2sql.confirm import MAX_REASKS, parse_confirm_steps, read_answer
from graphagents.agents.text2sql.demo import demo_sqlite_path
from graphagents.agents.text2sql.spec import SPEC
from graphagents.cli.main import app
from graphagents.errors import ConfigError
from graphagents.events import DecisionEvent, ToolResultEvent
from graphagents.llm import render_response, scripted
from graphagents.runtime import Agent, Reply, Session
from graphagents.settings import get_settings

ga.register(SPEC)

Q = "고객은 모두 몇 명이야?"
SQL = "SELECT COUNT(*) AS n FROM customers"
EDITED = "SELECT COUNT(*) AS n FROM customers WHERE region_code = 'SEL'"
ASK = "진행할까요"


@pytest.fixture(scope="module")
def demo_path() -> str:
    return str(demo_sqlite_path(get_settings().data_dir))


@pytest.fixture(scope="module")
def confirming() -> Agent:
    return ga.load("text2sql", cache=False, confirm_steps=True)


def sql_results(replies: list[Reply]) -> list[ToolResultEvent]:
    return [e for r in replies for e in r.events
            if isinstance(e, ToolResultEvent) and e.tool in ("explain", "execute_sql_preview", "submit_sql")]


def confirmations(replies: list[Reply]) -> list[str]:
    return [e.choice for r in replies for e in r.events
            if isinstance(e, DecisionEvent) and e.kind == "step_confirmation"]


def answer_until_done(s: Session, first: Reply, text: str = "네", limit: int = 10) -> list[Reply]:
    replies = [first]
    while not replies[-1].done and len(replies) <= limit:
        replies.append(s.send(text))
    return replies


def scripted_agent(demo_path: str, *steps: str, **options: Any) -> tuple[Agent, Any]:
    llm = scripted(*steps)
    return Agent(SPEC, llm=llm, checkpoint_url="memory", db=f"sqlite:///{demo_path}", cache=False,
                 confirm_steps=True, **options), llm


def resp(tool: str | None, **params: str) -> str:
    return render_response(reasoning="생각 중", user_facing="진행 중", tool=tool, parameters=params)


def test_first_send_shows_the_sql_and_waits(confirming: Agent) -> None:
    s = confirming.session()
    reply = s.send(Q)
    assert not reply.done and reply.state["status"] == "running"
    assert ASK in reply.text and "도구: explain" in reply.text
    assert "SELECT COUNT(*)" in reply.text and "FROM customers" in reply.text
    assert reply.state["tool_calls"] == ["search_tables"]  # exploration is not asked about
    assert sql_results([reply]) == [] and confirmations([reply]) == []
    assert s.pending == reply.text


def test_yes_to_every_step_gives_the_same_result_as_without_confirmation(confirming: Agent) -> None:
    plain = ga.load("text2sql", cache=False).session().send(Q)
    s = confirming.session()
    replies = answer_until_done(s, s.send(Q))
    final = replies[-1]
    assert final.done and final.state["status"] == "submitted"
    assert (final.state["sql"], final.state["table"]) == (plain.state["sql"], plain.state["table"])
    assert final.state["tool_calls"] == plain.state["tool_calls"]
    assert final.text == plain.text
    asked = [r for r in replies[:-1] if ASK in r.text]
    assert len(asked) == len(replies) - 1 == 3  # explain, preview, submit
    assert confirmations(replies) == ["yes"] * 3


def test_no_cancels_and_nothing_runs(confirming: Agent) -> None:
    s = confirming.session()
    first = s.send(Q)
    reply = s.send("아니요")
    assert reply.done and reply.state["status"] == "cancelled"
    assert "하나도 실행하지 않았어요" in reply.text
    assert sql_results([first, reply]) == []
    assert confirmations([reply]) == ["no"]
    assert reply.state["sql"] is None and reply.state["table"] is None
    # the session goes on: the next message is a new question, asked about again
    again = s.send(Q)
    assert not again.done and ASK in again.text and again.state["status"] == "running"


def test_no_after_a_yes_names_the_step_that_did_not_run(confirming: Agent) -> None:
    s = confirming.session()
    replies = [s.send(Q), s.send("네"), s.send("취소해 주세요")]
    assert replies[-1].done and replies[-1].state["status"] == "cancelled"
    assert "execute_sql_preview 단계는 실행하지 않았어요" in replies[-1].text
    assert [e.tool for e in sql_results(replies)] == ["explain"]
    assert confirmations(replies) == ["yes", "no"]


def test_edited_sql_is_what_is_submitted(confirming: Agent, demo_path: str) -> None:
    s = confirming.session()
    replies = [s.send(Q), s.send("네"), s.send("네")]
    assert "도구: submit_sql" in replies[-1].text
    final = s.send(EDITED)
    assert final.done and final.state["status"] == "submitted"
    assert "region_code = 'SEL'" in final.state["sql"]
    with sqlite3.connect(demo_path) as conn:
        expected = conn.execute(EDITED).fetchall()
    assert final.state["table"]["rows"] == [list(r) for r in expected]
    edits = [e for e in final.events if isinstance(e, DecisionEvent) and e.kind == "step_confirmation"]
    assert [(e.choice, e.details["sql"]) for e in edits] == [("edit", EDITED)]


def test_destructive_edit_is_refused_by_the_guard_not_run(confirming: Agent, demo_path: str) -> None:
    """The user hears that the guard refused the edit, and why, before anything else runs; the
    pending step is asked about again with its original SQL."""
    with sqlite3.connect(demo_path) as conn:
        before = conn.execute("SELECT COUNT(*) FROM customers").fetchone()[0]
    s = confirming.session()
    first = s.send(Q)
    reply = s.send("DROP TABLE customers")
    assert sql_results([reply]) == []
    assert confirmations([reply]) == ["refused"]
    assert not reply.done and reply.text.startswith("수정하신 SQL은 안전 검사에서 거부되어 실행하지 않았어요. 이유:")
    assert ASK in reply.text and "도구: explain" in reply.text and "SELECT COUNT(*)" in reply.text
    with sqlite3.connect(demo_path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM customers").fetchone()[0] == before
    # the original step still runs when approved
    final = answer_until_done(s, s.send("네"))[-1]
    assert final.done and final.state["status"] == "submitted"
    assert final.state["sql"] == ga.load("text2sql", cache=False).session().send(Q).state["sql"]
    assert first.state["status"] == "running"


def test_edit_goes_back_to_the_model_and_policy_still_applies(demo_path: str) -> None:
    agent, llm = scripted_agent(demo_path, resp("search_tables", query="고객"), resp("explain", sql=SQL),
                                resp("submit_sql", sql=EDITED))
    s = agent.session()
    assert "도구: explain" in s.send(Q).text
    asked = s.send(EDITED)  # explain runs the user's SQL, then the model submits it: asked again
    assert not asked.done and "도구: submit_sql" in asked.text and EDITED in asked.text
    assert "[user] before this call ran, the user replaced its SQL with: " + EDITED in llm.prompt_texts[-1]
    final = s.send("네")
    assert final.done and final.state["status"] == "submitted"
    assert final.state["tool_calls"] == ["search_tables", "explain", "submit_sql"]


def test_user_confirms_the_call_after_the_policy_rewrite(demo_path: str) -> None:
    agent, _ = scripted_agent(demo_path, resp("submit_sql", sql=SQL), resp("submit_sql", sql=SQL),
                              min_exploration=0)
    s = agent.session()
    first = s.send(Q)
    assert "도구: explain" in first.text and "정책에 따라 submit_sql 대신 explain" in first.text
    rewrites = [e for e in first.events if isinstance(e, DecisionEvent) and e.kind == "policy_rewrite"]
    assert [e.reason for e in rewrites] == ["require_explain_first"]
    second = s.send("네")
    assert "도구: submit_sql" in second.text and "정책에 따라" not in second.text
    final = s.send("네")
    assert final.state["tool_calls"] == ["explain", "submit_sql"]
    assert final.state["rewrites"] == [{"from": "submit_sql", "to": "explain", "reason": "require_explain_first"}]


def test_unclear_answers_are_asked_again_then_cancelled(confirming: Agent) -> None:
    s = confirming.session()
    replies = [s.send(Q)]
    for text in ("블라블라", "SELECT * FROM"):
        replies.append(s.send(text))
        assert not replies[-1].done and ASK in replies[-1].text
    assert "답을 이해하지 못했어요" in replies[1].text
    assert "SQL을 해석하지 못했어요" in replies[2].text and "취소돼요" in replies[2].text
    final = s.send("asdf qwer")
    assert final.done and final.state["status"] == "cancelled"
    assert "이해하지 못해" in final.text and "실행하지 않았어요" in final.text
    assert confirmations([*replies, final]) == ["reask"] * MAX_REASKS + ["cancel"]
    assert sql_results([*replies, final]) == []


def test_no_after_unclear_answers_cancels(confirming: Agent) -> None:
    s = confirming.session()
    replies = [s.send(Q), s.send("음..."), s.send("아니 하지 마")]
    assert replies[-1].done and replies[-1].state["status"] == "cancelled"
    assert confirmations(replies) == ["reask", "no"]


def test_budget_still_ends_the_question_in_confirm_mode(demo_path: str) -> None:
    llm_steps = [resp("search_tables", query="고객")] + [resp("explain", sql=SQL)] * 10
    agent, _ = scripted_agent(demo_path, *llm_steps, max_calls=3)
    s = agent.session()
    replies = answer_until_done(s, s.send(Q))
    assert replies[-1].done and replies[-1].state["status"] == "submitted"
    assert replies[-1].state["tool_calls"] == ["search_tables", "explain", "submit_sql"]  # last call forced
    assert len(replies) == 3


def test_confirm_all_asks_before_exploration_too() -> None:
    s = ga.load("text2sql", cache=False, confirm_steps="all").session()
    first = s.send(Q)
    assert not first.done and "도구: search_tables" in first.text and "(네 / 아니요)" in first.text
    assert first.state["tool_calls"] == []
    sql_to_search = s.send("SELECT 1")
    assert not sql_to_search.done and "SQL을 받지 않아요" in sql_to_search.text
    nxt = s.send("네")
    assert nxt.state["tool_calls"] == ["search_tables"] and "도구: explain" in nxt.text


def test_confirmation_off_changes_nothing() -> None:
    reply = ga.load("text2sql", cache=False, confirm_steps=False).session().send(Q)
    assert reply.done and reply.state["status"] == "submitted"
    assert confirmations([reply]) == []


@pytest.mark.parametrize(
    ("text", "kind", "sql"),
    [
        ("네", "yes", ""),
        ("네 진행해 주세요", "yes", ""),
        ("진행", "yes", ""),
        ("ok", "yes", ""),
        ("아니요", "no", ""),
        ("진행하지 마세요", "no", ""),
        ("취소", "no", ""),
        ("SELECT 1", "sql", "SELECT 1"),
        ("```sql\nselect name from customers;\n```", "sql", "select name from customers"),
        ("DROP TABLE customers", "sql", "DROP TABLE customers"),
        ("블라블라", "unclear", ""),
        ("hello world", "unclear", ""),
        ("SELECT * FROM", "unclear", ""),
    ],
)
def test_read_answer(text: str, kind: str, sql: str) -> None:
    answer = read_answer(text, dialect="sqlite", takes_sql=True)
    assert (answer.kind, answer.sql) == (kind, sql)


def test_option_values() -> None:
    assert [parse_confirm_steps(v) for v in (None, False, "false", True, "true", "sql", "all")] == [
        "off", "off", "off", "sql", "sql", "sql", "all"]
    with pytest.raises(ConfigError) as info:
        ga.load("text2sql", confirm_steps="sometimes")
    assert "confirm_steps" in str(info.value) and "\n" not in str(info.value)
    assert "confirm_steps" in SPEC.options_help


def test_cli_ask_returns_the_pending_confirmation() -> None:
    result = CliRunner().invoke(app, ["ask", "text2sql", Q, "-o", "confirm_steps=true", "-o", "cache=false",
                                      "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["done"] is False and ASK in data["reply"] and "도구: explain" in data["reply"]
    assert data["state"]["status"] == "running"
