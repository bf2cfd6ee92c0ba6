"""rag on the real-model path (the real OpenAI client, a scripted OpenAI-compatible server): issue 24
defects 3, 7, 9, 10 and issue 26 items 6 and 7."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from graphagents.events import DegradedEvent, FinalEvent, TokenEvent
from graphagents.llm import override_allow_model_requests
from graphagents.settings import Settings
from graphagents.testing.openai_server import OpenAIServer, Reply

INTENT = '{"intent": "moderate", "reason": "x"}'
GOOD_JUDGE = json.dumps({"grounding_score": 0.9, "completeness_score": 0.9, "accuracy_score": 0.9,
                         "overall_score": 0.9, "missing_info": [], "improvement_suggestions": [],
                         "safety_concerns": []})
ANSWER = "고혈압은 생활 습관 개선과 약물로 치료합니다 [1].\n※ 의료진과 상의하세요."


def role_of(body: dict[str, Any]) -> str:
    text = "\n".join(str(m.get("content") or "") for m in body["messages"])
    for marker, role in (("메시지를 분류하세요", "intent"), ("6개 슬롯으로 추출", "slots"),
                         ("품질을 평가하는 심사위원", "judge"), ("검색 질의를 다시", "rewrite")):
        if marker in text:
            return role
    return "answer"


@pytest.fixture
def rag_on(rag_options: dict[str, Any], mini_store: Any, tmp_path: Any) -> Iterator[Callable[..., Any]]:
    """``rag_on(replies, **settings)``: (agent, server); ``replies[role]`` is a reply or a function of
    the request body."""
    from graphagents.agents.rag.spec import SPEC
    from graphagents.runtime import Agent

    servers: list[OpenAIServer] = []

    def make(replies: dict[str, Any], **overrides: Any) -> tuple[Any, OpenAIServer]:
        def script(body: dict[str, Any]) -> Any:
            reply = replies.get(role_of(body), "{}")
            return reply(body) if callable(reply) else reply

        server = OpenAIServer(script)
        server.start()
        servers.append(server)
        values = {"data_dir": tmp_path, "llm_timeout_seconds": 1.0, "llm_max_retries": 0, **overrides}
        settings = Settings(**values)
        agent = Agent(SPEC, llm=server.model_spec, settings=settings, checkpoint_url="memory",
                      embedder="offline", **rag_options)
        return agent, server

    with override_allow_model_requests(True):
        yield make
    for server in servers:
        server.stop()


def test_a_trailing_comma_in_the_slots_keeps_the_profile(rag_on: Any) -> None:
    slots = ('{"demographics": {"age": 65, "sex": "male"}, "conditions": ["type 2 diabetes"],\n'
             ' "medications": [], "vitals": {}, "labs": {}, "symptoms": [], "removals": [],\n}')
    agent, server = rag_on({"intent": INTENT, "slots": slots, "judge": GOOD_JUDGE, "answer": ANSWER})
    reply = agent.session(None, user_id="f1").send("65세 남성이고 2형 당뇨가 있어요. 혈압약은 어떻게 먹나요?")
    assert reply.state["profile"]["demographics"]["age"] == 65
    assert "type 2 diabetes" in json.dumps(reply.state["profile"]["conditions"])
    # the answer was read as it came: no repair request was needed (a repair is a second slots request)
    assert [role_of(body) for body in server.requests].count("slots") == 1


def test_the_judge_overall_is_recomputed_and_safety_concerns_reach_the_reply(rag_on: Any) -> None:
    judge = json.dumps({"grounding_score": 0.1, "completeness_score": 0.1, "accuracy_score": 0.1,
                        "overall_score": 0.9, "missing_info": [], "improvement_suggestions": [],
                        "safety_concerns": ["advises stopping a prescribed medicine"]})
    agent, _ = rag_on({"intent": INTENT, "slots": "{}", "judge": judge, "answer": ANSWER,
                       "rewrite": '{"query": "high blood pressure treatment"}'})
    reply = agent.session(None, user_id="f2").send("How is high blood pressure treated?")
    logs = reply.state["refine_iteration_logs"]
    assert logs[0]["overall"] == pytest.approx(0.1)  # before: 0.9 accepted as given
    assert logs[0]["decision"] != "accept"
    assert "advises stopping a prescribed medicine" in reply.text and "⚠" in reply.text


def test_the_answer_streams_as_tokens(rag_on: Any) -> None:
    agent, server = rag_on({"intent": INTENT, "slots": "{}", "judge": GOOD_JUDGE,
                            "answer": Reply(text=ANSWER, chunk_chars=3)})
    events = list(agent.session(None, user_id="f3").stream("How is high blood pressure treated?"))
    tokens = [e for e in events if isinstance(e, TokenEvent) and e.section == "reply"]
    assert len(tokens) > 5 and "".join(t.text for t in tokens).strip() == ANSWER
    answer_call = next(b for b in server.requests if role_of(b) == "answer")
    assert answer_call["stream"] is True and answer_call["stream_options"] == {"include_usage": True}
    final = events[-1]
    assert isinstance(final, FinalEvent) and final.usage is not None and final.usage.input_tokens > 0


def test_a_stalled_answer_falls_back_with_a_degraded_event(rag_on: Any) -> None:
    agent, _ = rag_on({"intent": INTENT, "slots": "{}", "judge": GOOD_JUDGE,
                       "answer": Reply(fault="stall", delay=5, text=ANSWER)}, llm_timeout_seconds=0.4)
    events = list(agent.session(None, user_id="f4").stream("How is high blood pressure treated?"))
    assert [(e.step, e.reason) for e in events if isinstance(e, DegradedEvent)] == [("answer", "timeout")]
    final = events[-1]
    assert isinstance(final, FinalEvent) and "From the documents" in final.text  # the offline answer


def test_garbage_slots_fall_back_with_a_degraded_event(rag_on: Any) -> None:
    agent, _ = rag_on({"intent": INTENT, "slots": "<html>oops</html>", "judge": GOOD_JUDGE, "answer": ANSWER})
    events = list(agent.session(None, user_id="f5").stream("I'm 42 and take lisinopril 10 mg. Is that ok?"))
    assert ("slots", "unusable") in [(e.step, e.reason) for e in events if isinstance(e, DegradedEvent)]


def test_values_that_cannot_be_stored_fall_back(rag_on: Any) -> None:
    """Issue 26, item 6: a 10**30 weight (beyond 64 bits), a lone surrogate in a slot and in the answer."""
    slots = ('{"demographics": {"age": 42, "weight": 1000000000000000000000000000000}, "conditions": [],'
             ' "medications": [{"name": "lisinopril\\ud800x"}], "vitals": {}, "labs": {}, "symptoms": [],'
             ' "removals": []}')
    agent, _ = rag_on({"intent": INTENT, "slots": slots, "judge": GOOD_JUDGE,
                       "answer": "고혈압 치료 \ud800 [1]"})
    session = agent.session(None, user_id="f6")
    reply = session.send("I'm 42 and take lisinopril 10 mg. How is high blood pressure treated?")
    assert reply.text and "\ud800" not in reply.text
    assert "weight" not in json.dumps(reply.state["profile"].get("demographics", {}))
    again = session.send("How is high blood pressure treated?")  # the cache and the checkpoint hold up
    assert again.text


def test_an_answer_over_the_cap_is_cut_and_says_so(rag_on: Any) -> None:
    long = ("고혈압은 생활 습관으로 관리합니다 [1]. " * 400)
    agent, _ = rag_on({"intent": INTENT, "slots": "{}", "judge": GOOD_JUDGE, "answer": long},
                      max_model_output_chars=2000)
    reply = agent.session(None, user_id="f7").send("고혈압은 어떻게 치료하나요?")
    assert "2,000자에서 잘랐어요" in reply.text
    assert len(reply.text) < 4000


def test_past_the_turn_deadline_no_model_is_asked_and_the_session_goes_on(rag_on: Any) -> None:
    """Issue 24, defect 1: a turn has a deadline; past it every decision point takes its offline
    result (said by degraded events) and the next turn of the same session works."""
    agent, server = rag_on({"intent": INTENT, "slots": "{}", "judge": GOOD_JUDGE,
                            "answer": Reply(text=ANSWER, delay=0.3)}, turn_deadline_seconds=0.25)
    session = agent.session(None, user_id="f8")
    events = list(session.stream("How is high blood pressure treated?"))
    reasons = {(e.step, e.reason) for e in events if isinstance(e, DegradedEvent)}
    assert ("judge", "deadline") in reasons  # the answer call took the budget; the judge was not asked
    assert not any(role_of(b) == "judge" for b in server.requests)
    final = events[-1]
    assert isinstance(final, FinalEvent) and final.text
    again = session.send("What about low blood pressure?")
    assert again.text and again.usage is not None


def test_a_model_judge_spares_the_offline_judge(rag_on: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 26, item 7: the offline judge embeds every sentence of the answer; with a model judge
    configured it runs only when the model's verdict is unusable."""
    from graphagents.agents.rag import nodes

    calls: list[str] = []
    real = nodes.offline_feedback
    monkeypatch.setattr(nodes, "offline_feedback", lambda *a, **k: calls.append("offline") or real(*a, **k))
    agent, _ = rag_on({"intent": INTENT, "slots": "{}", "judge": GOOD_JUDGE, "answer": ANSWER})
    agent.session(None, user_id="f9").send("How is high blood pressure treated?")
    assert calls == []
    agent, _ = rag_on({"intent": INTENT, "slots": "{}", "judge": "not json", "answer": ANSWER})
    agent.session(None, user_id="f10").send("How is high blood pressure treated?")
    assert calls  # the unusable verdict: the offline judge decides
