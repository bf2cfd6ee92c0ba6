"""The whole reply is in the language of the question: the agent's frame around the composer's
answer (row counts, refusals) follows the question, not a fixed Korean template."""

from __future__ import annotations

import graphagents as ga


def test_an_english_question_gets_an_english_reply() -> None:
    s = ga.load("text2sql", cache=False).session()
    reply = s.send("Show the top 3 customers by total spending")
    assert reply.done and reply.state["status"] == "submitted"
    assert reply.text.startswith("3 rows:") and "Confidence: high" in reply.text
    assert "결과" not in reply.text and "행" not in reply.text


def test_an_english_refusal_is_english_and_a_korean_one_korean() -> None:
    agent = ga.load("text2sql", cache=False)
    en = agent.session().send("How many unicorns live in the warehouse?")
    ko = agent.session().send("창고에 유니콘은 몇 마리야?")
    assert en.state["status"] != "submitted" and ko.state["status"] != "submitted"
    assert en.text.startswith("I could not write SQL for this question.")
    assert ko.text.startswith("이 질문으로는 SQL을 만들 수 없어요.")


def test_an_english_superlative_nobody_computed_declines() -> None:
    """'the happiest' is a superlative the composer cannot express: listing every employee would
    look like an answer and be wrong."""
    reply = ga.load("text2sql", cache=False).session().send("Which employee is the happiest?")
    assert reply.state["status"] != "submitted" and reply.state["sql"] is None
    assert "happiest" in reply.text
