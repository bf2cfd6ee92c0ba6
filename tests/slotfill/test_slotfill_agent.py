"""The agent through the public runtime: events, caps, records, masking, options, restarts."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

import graphagents as ga
from graphagents.agents.slotfill.records import application_id, load_application, save_application
from graphagents.agents.slotfill.spec import DEMO_PROFILE
from graphagents.errors import ConfigError, InputError
from graphagents.settings import Settings
from graphagents.store import database_for

HAPPY = ["안녕하세요", "네 맞아요", "네", "네", "OTP로 하고 1회 300만원", "하루 천만원", "네",
         "모두 사용할게요", "네", "네"]

MakeAgent = Callable[..., ga.Agent]


def test_public_state_is_small_and_carries_stage_and_slots(make_agent: MakeAgent) -> None:
    reply = make_agent().session().send("안녕하세요")
    assert set(reply.state) == {"stage", "stage_type", "slots", "confirmed_groups", "completed", "status"}
    assert reply.state["stage"] == "confirm_basic_info"
    assert reply.state["slots"] == {"customer_name": "김민수", "customer_phone": "010-1234-5678"}


def test_state_update_events_follow_changes(make_agent: MakeAgent) -> None:
    s = make_agent().session()
    first = s.send("안녕하세요")
    updates = [e for e in first.events if e.type == "state_update"]
    assert updates and updates[-1].to_dict()["state"]["stage"] == "confirm_basic_info"
    repeat = s.send("다시 말해주세요")  # nothing changed: no state_update
    assert [e for e in repeat.events if e.type == "state_update"] == []
    assert "이 정보가 맞으신가요" in repeat.text
    moved = s.send("네")
    states = [e.to_dict()["state"] for e in moved.events if e.type == "state_update"]
    assert states[-1]["stage"] == "ask_lifelong_account"
    assert states[-1]["confirmed_groups"] == ["basic_info"]


def test_completion_writes_one_record_keyed_by_session(make_agent: MakeAgent, settings: Settings) -> None:
    agent = make_agent()
    s = agent.session()
    replies = [s.send(t) for t in HAPPY]
    assert replies[-1].done and replies[-1].state["completed"] is True
    assert replies[-1].state["application_id"] == application_id(s.id)
    db = database_for(settings.resolved_database_url)
    record = load_application(db, "slotfill_applications", s.id)
    assert record is not None and record["slots"]["transfer_limit_per_day"] == 10_000_000
    # Re-running the finishing node (a LangGraph re-execution) must not duplicate the record.
    save_application(db, "slotfill_applications", s.id, "bank_account", record["slots"])
    rows = db.fetchall("SELECT COUNT(*) FROM slotfill_applications WHERE session_id = ?", (s.id,))
    assert rows[0][0] == 1


@pytest.mark.postgres
def test_record_in_postgres(pg_admin_url: str, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, database_url=pg_admin_url)
    agent = ga.load("slotfill", settings=settings)
    s = agent.session()
    for text in HAPPY:
        reply = s.send(text)
    assert reply.done
    db = database_for(pg_admin_url)
    record = load_application(db, "slotfill_applications", s.id)
    assert record is not None and record["slots"]["security_medium"] == "OTP"
    db.execute("DELETE FROM slotfill_applications WHERE session_id = ?", (s.id,))


def test_phones_are_masked_in_every_log_line(make_agent: MakeAgent, caplog: pytest.LogCaptureFixture) -> None:
    """Even with content logging on (GRAPHAGENTS_LOG_CONTENT, for debugging), no full phone number."""
    from graphagents.privacy import set_log_content

    caplog.set_level(logging.INFO, logger="graphagents.slotfill")
    s = make_agent().session(profile={"customer_name": "이서연", "customer_phone": "010-2468-1357"})
    turns = ["안녕하세요", "번호가 틀렸어요 010-9876-5432", "공일공 일이삼사 오육칠팔로 바꿔주세요", "네", *HAPPY[2:]]
    set_log_content(True)
    try:
        for text in turns:
            s.send(text)
    finally:
        set_log_content(None)
    lines = [r.getMessage() for r in caplog.records if r.name == "graphagents.slotfill"]
    assert any("application" in line for line in lines)
    joined = "\n".join(lines)
    assert "010-****-5432" in joined
    for number in ("010-9876-5432", "010-1234-5678", "010-2468-1357", "01098765432"):
        assert number not in joined


def test_profile_from_session_options_and_demo_default(make_agent: MakeAgent) -> None:
    agent = make_agent()
    custom = agent.session(profile={"customer_name": "최유진", "customer_phone": "01055556666"}).send("hi")
    assert custom.state["slots"] == {"customer_name": "최유진", "customer_phone": "010-5555-6666"}
    demo = agent.session().send("hi")
    assert demo.state["slots"]["customer_name"] == DEMO_PROFILE["customer_name"]
    with pytest.raises(InputError, match="profile"):
        agent.session(profile="김민수").send("hi")
    with pytest.raises(ConfigError, match="no option 'colour'"):
        make_agent(colour="blue")


def test_unanswerable_loop_ends_cleanly(make_agent: MakeAgent) -> None:
    """Nonsense forever: the caps end the conversation with a handoff, never a step-cap error."""
    s = make_agent().session()
    s.send("안녕하세요")
    replies = [s.send("음...") for _ in range(8)]
    assert all(not any(e.type == "error" for e in r.events) for r in replies)
    done = [r for r in replies if r.done]
    assert done and done[0].state["status"] == "handoff"
    texts = [r.text for r in replies[: replies.index(done[0])]]
    assert max(texts.count(t) for t in texts) <= 3


def test_other_scenario_file(make_agent: MakeAgent, tmp_path: Path) -> None:
    scenario = {
        "name": "newsletter", "start_stage_id": "ask_email_ok",
        "slots": {"agree": {"type": "boolean", "label": "수신 동의", "ask": "소식지를 받아보시겠어요?"}},
        "stages": {
            "ask_email_ok": {"id": "ask_email_ok", "slot": "agree", "default_next_stage_id": "confirm"},
            "confirm": {"id": "confirm", "stage_type": "confirmation", "prompt": "수신 동의: %{agree}% 맞나요?",
                        "fields_to_confirm": ["agree"],
                        "transitions": [{"next_stage_id": "END_SCENARIO", "condition": "confirmed"},
                                        {"next_stage_id": "ask_email_ok", "condition": "needs_correction"}]},
        },
    }
    path = tmp_path / "news.json"
    path.write_text(json.dumps(scenario, ensure_ascii=False), encoding="utf-8")
    s = make_agent(scenario=str(path)).session()
    assert s.send("시작").text == "소식지를 받아보시겠어요?"
    assert "수신 동의: 예 맞나요?" in s.send("네").text
    assert s.send("네").done


def test_session_resumes_in_a_new_agent(make_agent: MakeAgent) -> None:
    first = make_agent()
    s = first.session()
    s.send("안녕하세요")
    s.send("네")
    again = make_agent().get_session(s.id)
    assert again.pending is not None and "평생계좌번호" in again.pending
    assert again.send("아니요").state["slots"]["use_lifelong_account"] is False


def test_state_keeps_the_note_fields(make_agent: MakeAgent) -> None:
    agent = make_agent()
    s = agent.session()
    for text in ["안녕하세요", "아니요"]:
        s.send(text)
    values = agent.graph.get_state(s.config).values
    assert values["current_stage_type"] == "correction"
    assert values["previous_stage_id"] == "confirm_basic_info"
    assert values["correction_context"]["group"] == "basic_info"
    assert values["stage_visit_count"] == {"confirm_basic_info": 1, "correct_basic_info": 1}
    assert values["pending_confirmation_groups"] == ["basic_info"]
    assert values["confirmed_groups"] == []
