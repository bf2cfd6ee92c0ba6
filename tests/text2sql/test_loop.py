"""The ReAct loop with scripted models: policy rewrites, repair, budget, tool errors, streaming, cache."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from graphagents.agents.text2sql.demo import demo_sqlite_path
from graphagents.agents.text2sql.spec import SPEC, STEP_CAP
from graphagents.events import DecisionEvent, ErrorEvent, TokenEvent, ToolCallEvent, ToolResultEvent
from graphagents.llm import GARBAGE, ScriptedChatModel, render_response, scripted
from graphagents.runtime import Agent
from graphagents.settings import get_settings
from snapshot_check import assert_snapshot

SNAPSHOTS = Path(__file__).parent / "snapshots"
SQL = "SELECT COUNT(*) AS n FROM customers"
BAD_SQL = "SELECT COUNT(*) FROM customers WHERE regionn = 'SEL'"
Q = "고객은 모두 몇 명이야?"


@pytest.fixture(scope="module")
def demo_url() -> str:
    return f"sqlite:///{demo_sqlite_path(get_settings().data_dir)}"


def agent(llm: Any, demo_url: str, **options: Any) -> Agent:
    return Agent(SPEC, llm=llm, checkpoint_url="memory", db=demo_url, cache=False, **options)


def resp(tool: str | None = None, reasoning: str = "생각 중", user_facing: str = "진행 중", **params: str) -> str:
    return render_response(reasoning=reasoning, user_facing=user_facing, tool=tool, parameters=params)


def of(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def rewrites(events: list[Any]) -> list[tuple[str, str, str]]:
    return [(e.details["from"], e.details["to"], e.reason) for e in of(events, DecisionEvent)
            if e.kind == "policy_rewrite"]


def test_well_behaved_model_runs_explore_explain_preview_submit(demo_url: str) -> None:
    llm = scripted(resp("search_tables", query="고객"), resp("explain", sql=SQL), resp("execute_sql_preview", sql=SQL),
                   resp("submit_sql", user_facing="고객은 5000명입니다.", sql=SQL))
    reply = agent(llm, demo_url).session().send(Q)
    assert reply.done and reply.state["status"] == "submitted"
    assert reply.state["table"] == {"columns": ["n"], "rows": [[5000]], "truncated": False}
    assert reply.state["sql"].startswith("SELECT COUNT(*)")
    assert reply.state["tool_calls"] == ["search_tables", "explain", "execute_sql_preview", "submit_sql"]
    assert rewrites(reply.events) == []
    assert "고객은 5000명입니다." in reply.text
    calls = [e.tool for e in of(reply.events, ToolCallEvent)]
    results = [(e.tool, e.ok) for e in of(reply.events, ToolResultEvent)]
    assert calls == reply.state["tool_calls"] and all(ok for _, ok in results)
    # the model saw the system prompt (XML package data), the question and every observation
    last_prompt = llm.prompt_texts[-1]
    assert "<tools>" in last_prompt and "customers(" in last_prompt and "고객은 모두 몇 명이야?" in last_prompt
    assert '<observation tool="execute_sql_preview" status="ok">' in last_prompt


def test_immediate_submit_is_rewritten_to_explain(demo_url: str) -> None:
    llm = scripted(resp("submit_sql", sql=SQL), resp("submit_sql", sql=SQL))
    reply = agent(llm, demo_url, min_exploration=0).session().send(Q)
    assert rewrites(reply.events) == [("submit_sql", "explain", "require_explain_first")]
    assert reply.state["tool_calls"] == ["explain", "submit_sql"]
    assert reply.state["status"] == "submitted"
    assert "[policy] your submit_sql call was run as explain" in llm.prompt_texts[1]


def test_immediate_submit_needs_exploration_then_explain(demo_url: str) -> None:
    llm = scripted(*[resp("submit_sql", sql=SQL)] * 3)
    reply = agent(llm, demo_url).session().send(Q)
    assert rewrites(reply.events) == [("submit_sql", "search_tables", "require_exploration_first"),
                                      ("submit_sql", "explain", "require_explain_first")]
    assert reply.state["tool_calls"] == ["search_tables", "explain", "submit_sql"]
    assert reply.state["rewrites"][0]["reason"] == "require_exploration_first"


def test_garbage_ends_as_a_clean_error_reply(demo_url: str) -> None:
    llm = scripted(GARBAGE, GARBAGE, GARBAGE, GARBAGE)  # answer + reprint, twice
    reply = agent(llm, demo_url).session().send(Q)
    assert reply.done and reply.state["status"] == "error"
    assert "해석하지 못해" in reply.text
    assert not [e for e in of(reply.events, ErrorEvent) if e.code == "internal"]
    repairs = [e for e in of(reply.events, DecisionEvent) if e.kind == "xml_repair"]
    assert [e.choice for e in repairs] == ["error", "error"]
    assert reply.state["tool_calls"] == []
    assert "could not be parsed" in llm.prompt_texts[2]  # the first failure went back as an observation


def test_malformed_answer_is_repaired_by_reprint(demo_url: str) -> None:
    raw_lt = ("<response><reasoning>a < b</reasoning><tool_call><name>search_tables</name>"
              "<parameters><query>고객</query></parameters></tool_call></response>")
    llm = scripted(raw_lt, resp("search_tables", query="고객"), resp("explain", sql=SQL), resp("submit_sql", sql=SQL))
    reply = agent(llm, demo_url).session().send(Q)
    assert [e.choice for e in of(reply.events, DecisionEvent) if e.kind == "xml_repair"] == ["reprint"]
    assert reply.state["status"] == "submitted"
    assert "malformed" in llm.prompt_texts[1]


def test_model_that_never_submits_is_forced_to_submit_on_the_last_call(demo_url: str) -> None:
    llm = ScriptedChatModel(responses=[resp("search_tables", query="고객"), resp("explain", sql=SQL)],
                            default=resp("search_columns", query="고객 수"))
    reply = agent(llm, demo_url, max_calls=4).session().send(Q)
    assert reply.state["tool_calls"] == ["search_tables", "explain", "search_columns", "submit_sql"]
    assert rewrites(reply.events) == [("search_columns", "submit_sql", "last_call_force_submit")]
    assert reply.state["status"] == "submitted" and reply.state["table"]["rows"] == [[5000]]


def test_budget_without_any_sql_ends_cleanly(demo_url: str) -> None:
    llm = ScriptedChatModel(default=resp("search_tables", query="고객"))
    reply = agent(llm, demo_url, max_calls=3).session().send(Q)
    assert reply.done and reply.state["status"] == "budget"
    assert reply.state["tool_calls"] == ["search_tables"] * 3
    assert "3번 안에" in reply.text
    assert any(e.kind == "budget" for e in of(reply.events, DecisionEvent))
    assert SPEC.step_cap == STEP_CAP and STEP_CAP >= 2 * 20 + 5


def test_tool_error_goes_back_to_the_model_with_a_fix(demo_url: str) -> None:
    good = "SELECT COUNT(*) FROM customers WHERE region_code = 'SEL'"
    llm = scripted(resp("search_tables", query="고객"), resp("explain", sql=BAD_SQL), resp("explain", sql=good),
                   resp("submit_sql", sql=good))
    reply = agent(llm, demo_url).session().send(Q)
    failed = [e for e in of(reply.events, ToolResultEvent) if not e.ok]
    assert [e.tool for e in failed] == ["explain"]
    observation = llm.prompt_texts[2]
    assert '<observation tool="explain" status="error">' in observation
    assert "regionn" in observation and "How to fix" in observation
    assert reply.state["status"] == "submitted" and reply.state["table"]["rows"][0][0] > 0


def test_guard_refusal_is_an_observation_not_a_crash(demo_url: str) -> None:
    llm = scripted(resp("search_tables", query="x"), resp("explain", sql="DELETE FROM customers"),
                   resp("explain", sql=SQL), resp("submit_sql", sql=SQL))
    reply = agent(llm, demo_url).session().send(Q)
    assert "refused by the guard" in llm.prompt_texts[2]
    assert reply.state["status"] == "submitted"


def test_model_failure_ends_the_turn_cleanly(demo_url: str) -> None:
    llm = scripted(RuntimeError("provider down"))
    reply = agent(llm, demo_url).session().send(Q)
    assert reply.done and reply.state["status"] == "error"
    assert [e.code for e in of(reply.events, ErrorEvent)] == ["model"]


def test_answer_without_tool_call_ends_the_turn(demo_url: str) -> None:
    llm = scripted(resp(None, user_facing="이 데이터베이스에는 날씨 정보가 없어요."))
    reply = agent(llm, demo_url).session().send("내일 날씨는?")
    assert reply.state["status"] == "answered" and reply.text == "이 데이터베이스에는 날씨 정보가 없어요."
    assert reply.state["sql"] is None


def test_sections_stream_as_tokens(demo_url: str) -> None:
    steps = [resp("search_tables", reasoning="테이블부터 찾아보겠습니다", user_facing="찾는 중", query="고객"),
             resp("explain", sql=SQL), resp("submit_sql", sql=SQL)]
    llm = scripted(*steps, chunk_size=4)
    events = list(agent(llm, demo_url).session().stream(Q))
    tokens = of(events, TokenEvent)
    reasoning = "".join(t.text for t in tokens if t.section == "reasoning")
    assert reasoning.startswith("테이블부터 찾아보겠습니다")
    assert len([t for t in tokens if t.section == "reasoning"]) > 1 or len(tokens) >= 3
    assert {t.section for t in tokens} == {"reasoning", "user_facing"}


def test_each_turn_is_a_new_question(demo_url: str) -> None:
    llm = ScriptedChatModel(responses=[resp("search_tables", query="x"), resp("explain", sql=SQL),
                                       resp("submit_sql", sql=SQL)] * 2)
    s = agent(llm, demo_url).session()
    first, second = s.send(Q), s.send("다시 한 번 고객 수")
    assert first.state["tool_calls"] == second.state["tool_calls"] == ["search_tables", "explain", "submit_sql"]
    assert second.state["question"] == "다시 한 번 고객 수"


def test_query_cache_answers_a_repeated_question_without_the_model(demo_url: str) -> None:
    llm = scripted(resp("search_tables", query="x"), resp("explain", sql=SQL), resp("submit_sql", sql=SQL))
    ag = Agent(SPEC, llm=llm, checkpoint_url="memory", db=demo_url)
    first = ag.session().send("캐시 테스트: 고객 수는?")
    second = ag.session().send("캐시 테스트: 고객 수는?")
    assert first.state["status"] == "submitted" and second.state["status"] == "cache"
    assert second.state["table"] == first.state["table"] and second.state["sql"] == first.state["sql"]
    hits = [e for e in of(second.events, DecisionEvent) if e.kind == "query_cache"]
    assert [e.choice for e in hits] == ["hit"]
    assert llm.remaining == 0 and len(llm.prompts) == 3


def test_query_cache_never_serves_one_users_result_to_another(demo_url: str) -> None:
    """Issue 10: the cache is scoped per user, whose access to the data may differ from another's."""
    steps = (resp("search_tables", query="x"), resp("explain", sql=SQL), resp("submit_sql", sql=SQL))
    llm = scripted(*steps, *steps)
    ag = Agent(SPEC, llm=llm, checkpoint_url="memory", db=demo_url)
    question = "캐시 범위 테스트: 고객 수는?"
    kim = ag.session(user_id="kim").send(question)
    lee = ag.session(user_id="lee").send(question)
    kim_again = ag.session(user_id="kim").send(question)
    assert [r.state["status"] for r in (kim, lee, kim_again)] == ["submitted", "submitted", "cache"]
    choices = [[e.choice for e in of(r.events, DecisionEvent) if e.kind == "query_cache"]
               for r in (kim, lee, kim_again)]
    assert choices == [["miss"], ["miss"], ["hit"]]
    assert llm.remaining == 0 and len(llm.prompts) == 6  # lee's question ran the whole loop again


def test_erasure_reaches_the_users_cached_results(demo_url: str) -> None:
    """Issue 10: erasing a user removes the results cached for them (their next question runs the
    loop again) and leaves another user's cached result in place."""
    from graphagents.settings import get_settings
    from graphagents.userdata import delete_user

    steps = (resp("search_tables", query="x"), resp("explain", sql=SQL), resp("submit_sql", sql=SQL))
    llm = scripted(*steps, *steps, *steps)
    ag = Agent(SPEC, llm=llm, checkpoint_url="memory", db=demo_url)
    tag = uuid.uuid4().hex[:8]
    kim, lee = f"kim-{tag}", f"lee-{tag}"
    question = f"캐시 삭제 테스트 {tag}: 고객 수는?"
    ag.session(user_id=kim).send(question)
    ag.session(user_id=lee).send(question)
    removed = delete_user(kim, settings=get_settings())
    assert removed["text2sql"] >= 1
    replies = [ag.session(user_id=kim).send(question), ag.session(user_id=lee).send(question)]
    choices = [[e.choice for e in of(r.events, DecisionEvent) if e.kind == "query_cache"] for r in replies]
    assert choices == [["miss"], ["hit"]]
    assert llm.remaining == 0


def test_graph_snapshot(demo_url: str) -> None:
    drawing = agent(scripted(), demo_url).graph.get_graph().draw_mermaid()
    assert_snapshot(drawing, SNAPSHOTS / "text2sql_graph.mmd")


def test_similar_query_memory_never_shows_one_users_question_to_another(demo_url: str) -> None:
    """Issue 10: a question is its asker's data; the memory is scoped like the cache, and a user's
    export holds their remembered questions and erasure removes them."""
    from graphagents.userdata import delete_user, export_user

    tag = uuid.uuid4().hex[:8]
    kim, lee = f"kim-{tag}", f"lee-{tag}"
    secret = f"김민서 고객({tag})의 주문 건수는?"
    sql = "SELECT COUNT(*) AS n FROM orders"
    asked = (resp("search_tables", query="주문"), resp("explain", sql=sql), resp("submit_sql", sql=sql))
    probe = resp("find_similar_query", question="주문 건수")
    llm = scripted(*asked, probe, *asked, probe, resp(user_facing="끝"))
    ag = agent(llm, demo_url)
    assert ag.session(user_id=kim).send(secret).state["status"] == "submitted"
    lee_reply = ag.session(user_id=lee).send("주문 건수는?")
    assert lee_reply.state["status"] == "submitted"
    lee_seen = [e for e in of(lee_reply.events, ToolResultEvent) if e.tool == "find_similar_query"]
    assert [e.summary for e in lee_seen] == ["no similar query"]
    assert len(llm.prompt_texts) == 7 and not any(tag in p for p in llm.prompt_texts[3:])  # lee's prompts
    ag.session(user_id=kim).send("주문 건수 알려줘")
    assert tag in llm.prompt_texts[-1]  # kim's own past question is an example for kim
    assert llm.remaining == 0

    settings = get_settings()
    exported = export_user(kim, settings=settings)["data"]["text2sql"]["query_memory"]
    assert [(e["question"], e["sql"]) for e in exported] == [(secret, sql)]
    removed = delete_user(kim, settings=settings)
    assert removed["text2sql"] == 1
    assert export_user(kim, settings=settings)["data"]["text2sql"]["query_memory"] == []
    lee_memory = export_user(lee, settings=settings)["data"]["text2sql"]["query_memory"]
    assert [e["question"] for e in lee_memory] == ["주문 건수는?"]
    delete_user(lee, settings=settings)
