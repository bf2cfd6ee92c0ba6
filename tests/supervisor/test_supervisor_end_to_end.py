"""The supervisor through every front door, offline: the API over SSE (plan, decisions and team
outputs arrive live, artifacts on the final frame), the CLI and the
done-means questions of the issue."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import graphagents as ga
from graphagents.server import create_app
from graphagents.settings import get_settings
from server.sse_client import parse_sse

COMPLEX = "강남구 30평대 아파트 매매 시세 알려주고 대출 가능 금액과 계약서 주의사항 정리해줘"
SIMPLE = "전세 계약 갱신청구권이 뭐야?"


@pytest.fixture(scope="module")
def agent() -> Any:
    return ga.load("supervisor", checkpoint_url="memory")


def test_the_complex_question_runs_every_team_and_answers_with_articles_and_numbers(agent: Any) -> None:
    reply = agent.session().send(COMPLEX)
    state = reply.state
    assert state["completed_teams"] == ["search", "analysis", "document"]
    assert {"laws", "market", "loans"} <= set(state["plan"]["teams"][0]["scopes"])
    assert [d["action"] for d in state["decisions"]][0] == "continue"
    kinds = {a.kind for a in reply.artifacts}
    assert {"citation", "sql", "intermediate_table", "table", "document"} <= kinds
    text = reply.text
    assert "공인중개사법 제26조" in text and "부동산 거래신고 등에 관한 법률 제3조" in text
    assert "합성(가상) 거래 데이터" in text and "실제 시세가 아닙니다" in text
    assert "30평대(공급면적 기준 평형)" in text  # the size assumption is said
    assert "규칙 파일 기준 추정 최대 대출 가능 금액" in text and "연소득" in text  # what the DSR limit still needs
    assert "규칙상 최대" not in text and "미검증" in text  # an unchecked rule's figure is never stated as fact


def test_the_simple_question_runs_one_team(agent: Any) -> None:
    reply = agent.session().send(SIMPLE)
    assert reply.state["completed_teams"] == ["search"] and "주택임대차보호법 제6조의3" in reply.text
    assert reply.usage.model_calls == 0


def test_a_missing_decree_amount_is_said_not_invented(agent: Any) -> None:
    query = "보증금 2억 중 1억을 월세로 돌리려는데 월세 상한이 얼마야? 기준금리 2.5%라고 치고 계산해줘"
    reply = agent.session().send(query)
    assert "대통령령" in reply.text and "확인이 필요한 정보" in reply.text
    assert "37.5만" not in reply.text and "375,000" not in reply.text  # the decree's rate is not in our data


def test_plan_decisions_and_team_outputs_stream_live_over_sse() -> None:
    # A sync client (the app runs on the portal's own loop): the session's Playwright loop may be live.
    with TestClient(create_app(get_settings()), client=("127.0.0.1", 50000)) as client:
        sid = client.post("/api/agents/supervisor/sessions", json={}).json()["session_id"]
        res = client.post(f"/api/agents/supervisor/sessions/{sid}/messages", json={"text": COMPLEX})
    frames = parse_sse(res.text)
    decisions = [d for k, d in frames if k == "decision"]
    assert decisions[0]["kind"] == "plan" and decisions[0]["details"]["teams"]
    assert any(d["kind"] == "orchestration" and d["reason"] for d in decisions)
    assert any(d["kind"] == "tool_selection" and d["namespace"] == ["search_team"] for d in decisions)
    team_results = [d["state"] for k, d in frames if k == "state_update" and "team_result" in d["state"]]
    assert {t["team_result"]["team"] for t in team_results} == {"search", "analysis", "document"}
    document = next(t for t in team_results if t["team_result"]["team"] == "document")
    assert document["artifacts"][0]["kind"] == "document"
    final = frames[-1][1]
    assert frames[-1][0] == "final" and {a["kind"] for a in final["artifacts"]} >= {"citation", "document"}
    last = [i for i, (k, d) in enumerate(frames) if k == "state_update" and "team_result" in d["state"]][-1]
    assert last < len(frames) - 1  # team outputs came before the end of the turn


def test_cli_ask_prints_decisions_and_the_answer() -> None:
    from graphagents.cli.main import _mount_agent_commands, app

    _mount_agent_commands()
    out = CliRunner().invoke(app, ["ask", "supervisor", SIMPLE, "--verbose"])
    assert out.exit_code == 0, out.output
    assert "orchestration" in out.output and "주택임대차보호법 제6조의3" in out.output
