"""A multi-turn chat builds the profile, later answers use it, a negation removes a drug, and the
profile is shared by the user's sessions but never by another user's."""

from __future__ import annotations

from typing import Any


def test_the_profile_builds_over_turns_and_is_used(make_agent: Any) -> None:
    agent = make_agent()
    session = agent.session(None, user_id="mt1")
    first = session.send("65세 남성이고 당뇨가 있어요. 메트포르민 500mg 하루 두 번 먹어요.")
    profile = first.state["profile"]
    assert profile["demographics"]["age"] == 65 and profile["demographics"]["sex"] == "male"
    assert profile["conditions"] == ["diabetes"]
    assert profile["medications"] == [{"name": "metformin", "dose": "500 mg", "frequency": "하루 2회"}]
    assert "65세" in first.state["profile_summary"] and "메트포르민" in first.state["profile_summary"]
    assert any(e.type == "decision" and e.kind == "profile" for e in first.events)

    second = session.send("혈압 140/90이고 공복혈당 180이에요. 제가 조심해야 할 게 뭐예요?")
    profile = second.state["profile"]
    assert profile["vitals"] and profile["labs"] and profile["medications"][0]["name"] == "metformin"
    assert second.state["token_plan"]["sections"]["profile"]["used"] > 0
    assert second.state["token_plan"]["sections"]["history"]["used"] > 0  # the first turn is in the context
    # a question about the user's own situation searches with the profile's drug and condition
    docs = " ".join(d["text"].lower() for d in second.state["retrieved_docs"])
    assert "diabetes" in docs

    # another session of the same user sees the same profile; another user sees none
    assert agent.session(None, user_id="mt1").send("안녕하세요").state["profile"]["medications"]
    assert agent.session(None, user_id="mt2").send("안녕하세요").state["profile"]["medications"] == []

    third = session.send("이제 메트포르민 안 먹어요.")
    assert third.state["profile"]["medications"] == []
    assert third.state["profile"]["conditions"] == ["diabetes"]  # only the drug went


def test_english_slots(make_agent: Any) -> None:
    reply = make_agent().session(None, user_id="mt3").send(
        "I'm 42 and take lisinopril 10 mg. What is high blood pressure?")
    profile = reply.state["profile"]
    assert profile["demographics"]["age"] == 42
    assert profile["medications"][0]["name"] == "lisinopril" and profile["medications"][0]["dose"] == "10 mg"
