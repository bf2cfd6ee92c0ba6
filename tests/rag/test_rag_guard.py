"""The topic guard (entity and aspect asked), sentence cleaning, and what the composed answer says
when the documents are about a look-alike."""

from __future__ import annotations

from typing import Any

import pytest

from graphagents.agents.rag.compose import clean_sentence
from graphagents.agents.rag.guard import TopicGuard, heading_aspect, question_aspects

HBP = {"title": "High Blood Pressure", "heading": "What are the treatments for High Blood Pressure ?"}
LBP = {"title": "Low Blood Pressure", "heading": "What is (are) Low Blood Pressure ?"}
SHINGLES = {"title": "Shingles", "heading": "What is (are) Shingles ?"}
SHINGLES_TREAT = {"title": "Shingles", "heading": "What are the treatments for Shingles ?"}
THINNERS = {"title": "Blood Thinners", "heading": "Do you have information about Blood Thinners"}


@pytest.mark.parametrize(("text", "aspects"), [
    ("What are the symptoms of shingles?", ["symptoms"]),
    ("저혈압은 어떻게 치료하나요?", ["treatment"]),
    ("What are the side effects of warfarin?", ["side_effects"]),
    ("Can I take ibuprofen with a blood thinner?", ["interactions"]),
    ("와파린이랑 이부프로펜 같이 먹어도 돼요?", ["interactions"]),
    ("What is Kawasaki disease?", []),
    ("크론병은 어떤 검사로 진단하나요?", ["diagnosis"]),
])
def test_question_aspects(text: str, aspects: list[str]) -> None:
    assert question_aspects(text) == aspects


def test_heading_aspects() -> None:
    assert heading_aspect("What are the symptoms of Shingles ?") == "symptoms"
    assert heading_aspect("What is (are) Shingles ?") == "overview"
    assert heading_aspect("흔한 부작용") == "side_effects"  # a section of a user's Korean document
    assert heading_aspect("") == "overview"


@pytest.mark.parametrize(("question", "doc", "sentence", "allowed"), [
    ("저혈압은 어떻게 치료하나요?", HBP, "High blood pressure is treated with lifestyle changes and medicines.", False),
    ("What is low blood pressure?", LBP, "If your blood pressure reading is 90/60 or lower, you have low blood "
                                         "pressure.", True),
    ("What is hepatitis B?", {"title": "Hepatitis A", "heading": "What is (are) Hepatitis A ?"},
     "Hepatitis is an inflammation of the liver.", False),
    ("What are the symptoms of type 2 diabetes?", {"title": "Diabetes Type 1", "heading": "What is (are) Diabetes "
                                                   "Type 1 ?"}, "Symptoms may include being very thirsty.", False),
    ("What are the symptoms of chickenpox?", SHINGLES, "The rash forms blisters that look like chickenpox.", False),
    ("What are the symptoms of shingles?", SHINGLES_TREAT, "These treatments can reduce the symptoms of shingles.",
     False),  # another aspect's passage
    ("What are the symptoms of shingles?", SHINGLES, "Symptoms include burning and tingling.", True),
    ("What are the symptoms of shingles?", SHINGLES, "Shingles is very common.", False),  # no symptom in it
    ("What are the side effects of warfarin?", THINNERS, "Anticoagulants, such as heparin or warfarin, work on "
                                                          "chemical reactions in your body.", False),
])
def test_entity_and_aspect(question: str, doc: dict[str, Any], sentence: str, allowed: bool) -> None:
    assert TopicGuard.for_question(question).allows(sentence, doc) is allowed


def test_anticoagulant_questions_need_the_bleeding_warning() -> None:
    assert TopicGuard.for_question("What are the side effects of warfarin?").needs_bleeding_warning
    assert TopicGuard.for_question("와파린이랑 이부프로펜 같이 먹어도 돼요?").needs_bleeding_warning
    assert TopicGuard.for_question("Can I take ibuprofen with a blood thinner?").needs_bleeding_warning
    assert not TopicGuard.for_question("What do blood thinners do?").needs_bleeding_warning
    assert not TopicGuard.for_question("What are the side effects of metformin?").needs_bleeding_warning


def test_coverage_names_what_the_documents_have() -> None:
    guard = TopicGuard.for_question("저혈압은 어떻게 치료하나요?")
    docs = [{**HBP, "text": "Low blood pressure can also happen."}, {**LBP, "text": "low blood pressure"}]
    said = guard.coverage(docs, korean=True)
    assert "저혈압(Low Blood Pressure): 개요" in said and "High Blood Pressure" not in said
    assert "nothing on hepatitis b" in TopicGuard.for_question("What is hepatitis B?").coverage([], korean=False)


@pytest.mark.parametrize(("raw", "clean"), [
    ("What Causes Shingles?", None),
    ("What are the possible side effects of my medication?", None),
    ("Chest pain or discomfort.Most heart attacks involve discomfort in the center of the chest.",
     "Most heart attacks involve discomfort in the center of the chest."),
    ("Caused By A Virus Shingles is caused by a virus called varicella-zoster virus.",
     "Shingles is caused by a virus called varicella-zoster virus."),
    ("Burning, Itching, Tingling, Then a Rash An outbreak of shingles usually begins with a burning sensation.",
     "An outbreak of shingles usually begins with a burning sensation."),
    ("Adult Acute Lymphoblastic Leukemia (ALL) is a type of cancer.",
     "Adult Acute Lymphoblastic Leukemia (ALL) is a type of cancer."),
    ("- Having hepatitis B or hepatitis C.", "Having hepatitis B or hepatitis C."),  # the source's bullet goes
    ("Medical Procedures", None),
])
def test_clean_sentence(raw: str, clean: str | None) -> None:
    assert clean_sentence(raw) == clean


def test_a_look_alike_is_not_the_answer_and_korean_is_framed(make_agent: Any) -> None:
    session = make_agent().session(None, user_id="u-guard")
    low = session.send("저혈압은 어떻게 치료하나요?")
    titles = {a.to_dict().get("title") for a in low.artifacts if a.kind == "citation"}
    assert "High Blood Pressure" not in titles
    assert "저혈압" in low.text and "hypertension" not in low.text.lower()
    what = session.send("저혈압이 뭐예요?")
    cited = [a.to_dict().get("title") for a in what.artifacts if a.kind == "citation"]
    assert cited and set(cited) == {"Low Blood Pressure"}
    assert "원문:" in what.text and "저혈압(Low Blood Pressure)의 개요에 관한 영어 문서" in what.text
    lines = [line for line in what.text.splitlines() if line.startswith("- ")]
    assert len(lines) == len(set(lines))


def test_the_rerank_puts_the_asked_aspect_and_entity_first() -> None:
    from graphagents.agents.rag.rerank import rerank
    from graphagents.retrieval import Hit

    def hit(i: str, title: str, heading: str, score: float) -> Hit:
        return Hit(i, "text", score, {"title": title, "source_question": heading})

    hits = [hit("prevent", "Shingles", "How to prevent Shingles ?", 0.024),
            hit("what", "Shingles", "What is (are) Shingles ?", 0.023),
            hit("symptoms", "Shingles", "What are the symptoms of Shingles ?", 0.016)]
    ranked = rerank("What are the symptoms of shingles?", "What are the symptoms of shingles?", hits)
    assert [h.id for h in ranked] == ["symptoms", "prevent", "what"]
    assert ranked[0].score > hits[0].score  # the new score is kept on the hit
    bp = [hit("high", "High Blood Pressure", "What is (are) High Blood Pressure ?", 0.024),
          hit("low", "Low Blood Pressure", "What is (are) Low Blood Pressure ?", 0.020)]
    assert rerank("저혈압이 뭐예요?", "저혈압이 뭐예요? low blood pressure", bp)[0].id == "low"
    assert rerank("고혈압이 뭐예요?", "고혈압이 뭐예요? high blood pressure", bp)[0].id == "high"
    assert [h.id for h in rerank("x", "x", [])] == []


PAIN = {"title": "Pain Relievers", "heading": "Do you have information about Pain Relievers"}
ARRHYTHMIA = {"title": "Arrhythmia", "heading": "What is (are) Arrhythmia ?"}


@pytest.mark.parametrize(("text", "aspects"), [
    ("What is the maximum daily dose of acetaminophen?", ["dosage"]),
    ("타이레놀 하루 최대 용량은 얼마인가요?", ["dosage"]),
    ("How much weight should I gain during pregnancy?", []),  # "how much" without taking is no dose
    ("How do doctors tell that a rash is shingles?", ["diagnosis"]),
])
def test_dose_and_diagnosis_questions(text: str, aspects: list[str]) -> None:
    assert question_aspects(text) == aspects


@pytest.mark.parametrize(("question", "doc", "sentence", "allowed"), [
    # a dose is a number with a unit, never the word "doses" alone
    ("What is the maximum daily dose of acetaminophen?", PAIN,
     "Many NSAIDs are also available at higher prescription doses, such as acetaminophen.", False),
    ("What is the maximum daily dose of acetaminophen?", PAIN,
     "Adults should not take more than 3,000 mg of acetaminophen a day.", True),
    # "signals" is no sign of a disease
    ("What does an arrhythmia feel like?", ARRHYTHMIA,
     "In atrial fibrillation, electrical signals travel through the atria in a fast way.", False),
    ("What does an arrhythmia feel like?", ARRHYTHMIA, "Signs of an arrhythmia include a slow heartbeat.", True),
])
def test_dose_and_symptom_cues(question: str, doc: dict[str, Any], sentence: str, allowed: bool) -> None:
    assert TopicGuard.for_question(question).allows(sentence, doc) is allowed


@pytest.mark.parametrize(("text", "unknown"), [
    ("구내염에 좋은 약은 무엇인가요?", ["구내염"]),
    ("비인후염은 어떻게 치료하나요?", ["비인후염"]),
    ("C형 간염은 어떻게 치료하나요?", []),  # the lexicon reads hepatitis C
    ("편두통에 좋은 약은 무엇인가요?", []),
    ("혈액 희석제는 왜 처방하나요?", []),  # a two-word glossary name
    ("부작용이 뭐예요?", []),  # an aspect only: the profile's medicines are the topic
    ("아이가 열이 나면 해열제를 얼마나 먹여야 하나요?", []),
])
def test_unknown_korean_topic_words(text: str, unknown: list[str]) -> None:
    from graphagents.agents.rag.guard import unknown_topic_words

    assert unknown_topic_words(text) == unknown


def test_an_unknown_topic_is_named_and_a_known_one_is_not() -> None:
    docs = [{"title": "Shingles"}, {"title": "Heart Attack"}]
    sore = "구내염에 좋은 약은 무엇인가요?"
    assert TopicGuard.for_question(sore).unknown_topic(sore, docs) == ["구내염"]
    assert TopicGuard.for_question("대상포진 증상").unknown_topic("대상포진 증상", docs) == []
    english = "How are canker sores treated?"
    assert TopicGuard.for_question(english).unknown_topic(english, docs) == ["canker", "sores"]
    assert TopicGuard.for_question(english).unknown_topic(english, [{"title": "Canker Sores"}]) == []
    heart = "What is the outlook after a heart attack?"
    assert TopicGuard.for_question(heart).unknown_topic(heart, docs) == []


def test_a_question_naming_its_own_topic_is_not_about_the_profile() -> None:
    from graphagents.agents.rag.query import profile_relevant

    assert not profile_relevant("C형 간염은 어떻게 치료하나요?")  # the lexicon's topic, no glossary word
    assert not profile_relevant("구내염에 좋은 약은 무엇인가요?")  # a topic nobody reads is still a topic
    assert profile_relevant("부작용이 뭐예요?")
    assert profile_relevant("제가 먹는 약이랑 같이 먹어도 돼요?")


def test_an_unknown_topic_declines_and_says_what_would_work(make_agent: Any) -> None:
    session = make_agent().session(None, user_id="u-unknown-topic")
    reply = session.send("구내염에 좋은 약은 무엇인가요?")
    assert not [a for a in reply.artifacts if a.kind == "citation"]
    assert "'구내염'" in reply.text and "영어 이름" in reply.text
    english = session.send("How are canker sores treated?")
    assert not [a for a in english.artifacts if a.kind == "citation"]
    assert "'canker'" in english.text and "usual name" in english.text
