"""The rag agent end to end, offline: real retrieval over a slice of the medical corpus, citations,
"not found", greetings, the public state the web page renders, and the step cap."""

from __future__ import annotations

import re
from typing import Any

import pytest

PUBLIC_KEYS = {"intent", "dynamic_k", "emergency", "profile", "profile_summary", "token_plan", "retrieved_docs",
               "refine_iteration_logs", "cache_hit", "cache_similarity_score", "answer"}


def test_english_question_is_answered_with_citations(make_agent: Any) -> None:
    reply = make_agent().session(None, user_id="u-en").send("What are the symptoms of type 2 diabetes?")
    state = reply.state
    assert set(state) == PUBLIC_KEYS
    assert state["retrieved_docs"], "retrieval found nothing"
    refs = sorted({int(n) for n in re.findall(r"\[(\d+)\]", reply.text)})
    citations = [a for a in reply.artifacts if a.kind == "citation"]
    assert refs and [c.ref for c in citations] == [f"[{n}]" for n in refs]
    docs = {d["id"]: d for d in state["retrieved_docs"]}
    for c in citations:  # every citation is a retrieved passage, and its text is what the page shows
        assert c.source in docs and c.text == docs[c.source]["text"]
    assert any(docs[c.source]["title"] == "Diabetes Type 2" for c in citations)


def test_korean_question_retrieves_english_passages(make_agent: Any) -> None:
    reply = make_agent().session(None, user_id="u-ko").send("제2형 당뇨병의 증상은 무엇인가요?")
    assert "문서에서 찾은 내용" in reply.text and re.search(r"\[1\]", reply.text)
    assert reply.state["intent"] in ("simple", "moderate")
    assert reply.state["dynamic_k"] in (3, 8)
    for doc in reply.state["retrieved_docs"]:
        assert set(doc) == {"id", "title", "text", "score", "bm25_rank", "dense_rank", "iteration"}
        assert len(doc["text"]) <= 400


def test_nothing_in_the_documents_is_said_plainly(make_agent: Any) -> None:
    reply = make_agent().session(None, user_id="u-nf").send("How do I repair a carburetor on a motorcycle?")
    assert "I could not find this in the documents" in reply.text
    assert not [a for a in reply.artifacts if a.kind == "citation"]


def test_greeting_skips_retrieval(make_agent: Any) -> None:
    reply = make_agent().session(None, user_id="u-hi").send("안녕하세요!")
    assert reply.state["intent"] == "greeting" and reply.state["dynamic_k"] == 0
    assert reply.state["retrieved_docs"] == [] and "안녕하세요" in reply.text
    assert not any(e.type == "step" and getattr(e, "node", "") == "retrieve" for e in reply.events)


def test_token_plan_is_recorded(make_agent: Any) -> None:
    reply = make_agent(agent_config={"context_window": 25_600}).session(None, user_id="u-tp").send(
        "How is high blood pressure treated?")
    plan = reply.state["token_plan"]
    assert plan["window"] == 25_600 and set(plan) == {"window", "sections", "estimator"}
    sections = plan["sections"]
    assert sections["evidence"]["budget"] == 12_800 and sections["system"]["budget"] == 1_280
    assert 0 < sections["evidence"]["used"] <= sections["evidence"]["budget"] + sections["profile"]["budget"] \
        + sections["history"]["budget"]
    assert sections["query"]["used"] > 0


def test_every_refine_decision_is_an_event(make_agent: Any) -> None:
    reply = make_agent().session(None, user_id="u-ev").send("How is high blood pressure treated?")
    logs = reply.state["refine_iteration_logs"]
    decisions = [e for e in reply.events if e.type == "decision" and e.kind == "refine"]
    assert logs and len(decisions) == len(logs)
    assert [d.choice for d in decisions] == [entry["decision"] for entry in logs]
    assert logs[-1]["decision"] in ("accept", "stop")


def test_a_low_step_cap_still_ends_the_turn_with_a_reply(make_agent: Any) -> None:
    agent = make_agent()
    agent.step_cap = 6
    reply = agent.session(None, user_id="u-cap").send("How is high blood pressure treated?")
    assert reply.text.strip()
    assert any(e.type == "decision" and e.kind == "step_cap" for e in reply.events)


def test_an_emergency_notice_comes_first_even_from_the_cache(make_agent: Any) -> None:
    agent = make_agent()
    question = "가슴이 너무 아프고 숨쉬기가 힘들어요. 고혈압 약 먹어요"
    for _ in range(2):
        reply = agent.session(None, user_id="u-er").send(question)
        assert reply.state["emergency"] is True
        assert reply.text.startswith("[응급]") and "119" in reply.text.split("\n")[0]
    assert reply.state["cache_hit"] is True  # the second time came from the cache, notice still first
    calm = agent.session(None, user_id="u-er").send("How is high blood pressure treated?")
    assert calm.state["emergency"] is False and "119" not in calm.text


@pytest.mark.parametrize("text", ["죽고 싶어요", "I took too many sleeping pills and my blood pressure is high"])
def test_after_an_emergency_notice_only_symptom_text_or_nothing(make_agent: Any, text: str) -> None:
    reply = make_agent().session(None, user_id="u-er2").send(text)
    assert reply.state["emergency"] is True
    notice, _, rest = reply.text.partition("\n\n")
    assert "119" in notice
    # the corpus slice is about diabetes, blood pressure and leukaemia: none of it is about the symptom
    assert [a for a in reply.artifacts if a.kind == "citation"] == []
    assert "[1]" not in rest and ("위 응급 안내" in rest or "emergency advice above" in rest)
