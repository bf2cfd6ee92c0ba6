"""The profile in the reply: every change confirmed, unreadable names said, and the warnings the
profile calls for (pregnancy, drugs, a high blood pressure in pregnancy) with the doctor line."""

from __future__ import annotations

from typing import Any

from graphagents.agents.rag.profile_notes import changes, profile_warnings, unreadable_drugs

THINNERS = {"title": "Blood Thinners", "id": "bt",
            "text": "Anticoagulants, such as heparin or warfarin, lengthen the time it takes to form a blood clot."}


def test_every_change_is_a_sentence() -> None:
    before: dict[str, Any] = {"medications": [{"name": "metformin"}], "demographics": {}}
    after = {"medications": [{"name": "labetalol"}], "demographics": {"pregnant": True, "age": 31},
             "vitals": {"blood_pressure": "150/95 mmHg"}}
    said = changes(before, after, korean=True)
    assert "라베탈롤을 복용 약에 추가했어요." in said and "메트포르민을 복용 약에서 뺐어요." in said
    assert "임신 중으로 기록했어요." in said and any("150/95" in s for s in said) and any("31세" in s for s in said)
    assert changes(after, after, korean=False) == []
    assert changes({}, {"symptoms": ["chest pain"]}, korean=True) == ["흉통을 증상에 추가했어요."]  # Korean names
    assert "Added labetalol to your medicines." in changes({}, after, korean=False)


def test_names_that_cannot_be_read_are_said() -> None:
    assert unreadable_drugs("I take zorbitol for my heart") == ["zorbitol"]
    assert unreadable_drugs("조르비톨 먹고 있어요") == ["조르비톨"]
    assert unreadable_drugs("라베탈롤 먹고 있어요") == []  # known (the lexicon has it)
    assert unreadable_drugs("밥 먹고 약 먹어요") == []
    assert unreadable_drugs("What are the side effects of metformin?") == []


def test_warnings_follow_the_profile() -> None:
    pregnant = {"demographics": {"pregnant": True}, "vitals": {"blood_pressure": "150/95 mmHg"}}
    lines = profile_warnings(pregnant, "진통제 먹어도 되나요?", [], korean=True)
    assert lines[0].startswith("회원님 정보(임신 중)") and any("의사·약사" in line for line in lines)
    assert any("150/95" in line and "산부인과" in line for line in lines)  # 140/90 or higher in pregnancy
    on_warfarin = {"medications": [{"name": "warfarin"}]}
    lines = profile_warnings(on_warfarin, "What do blood thinners do?", [THINNERS], korean=False)
    assert any("the documents say" in line and "(Blood Thinners)" in line for line in lines)  # the documents' own
    assert any("bleeding" in line for line in lines)
    assert profile_warnings(on_warfarin, "What is Kawasaki disease?", [], korean=False) == []  # not about medicines
    assert profile_warnings({}, "진통제 먹어도 되나요?", [], korean=True) == []


def test_the_reply_confirms_and_warns(make_agent: Any) -> None:
    session = make_agent().session(None, user_id="u-notes")
    first = session.send("임신 중인데 혈압이 150/95예요. 라베탈롤 먹고 있어요")
    assert first.text.startswith("(프로필: ") and "라베탈롤을 복용 약에 추가했어요." in first.text.split("\n")[0]
    assert "산부인과" in first.text and "의사·약사" in first.text
    assert {m["name"] for m in first.state["profile"]["medications"]} == {"labetalol"}
    second = session.send("혈압약 부작용이 뭐예요?")
    assert "(프로필: " not in second.text  # nothing changed
    assert "회원님 정보(임신 중, 라베탈롤 복용)" in second.text
