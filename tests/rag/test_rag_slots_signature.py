"""rag question signatures: what a cached answer depends on, equal across wording, different across
drugs, doses, age groups, pregnancy, measurements, subtypes and the conditions that matter."""

from __future__ import annotations

import json
from typing import Any

import pytest

from graphagents.agents.rag.slots import as_profile, empty_profile, question_signature
from graphagents.cache import slot_signature
from graphagents.packagedata import package_path

SAME = [
    ("타이레놀 500mg 하루 몇 번?", "타이레놀 500mg은 하루에 몇 번 먹어요?"),
    ("타이레놀 500mg 하루 몇 번?", "아세트아미노펜 500밀리그램 하루에 몇 회 복용하나요?"),
    ("타이레놀 500mg 하루 몇 번?", "How many times a day can I take Tylenol 500 mg?"),
    ("아세트아미노펜 부작용", "타이레놀 부작용"),
    ("Tylenol side effects", "acetaminophen side effects"),
    ("paracetamol side effects", "타이레놀의 부작용은?"),
    ("타이레놀 1g", "타이레놀 1000mg"),  # 1 g == 1000 mg
    ("하루 두 번 먹어요", "1일 2회 먹어요"),
    ("twice a day", "2 times per day"),
    ("혈압 140/90", "혈압이 140에 90이에요"),
    ("혈압 140/90", "BP 140/90 mmHg"),
    ("혈압 140/90", "수축기 140 이완기 90"),
    ("공복혈당 126", "공복 혈당이 126 mg/dL"),
    ("제2형 당뇨병", "2형 당뇨"),
    ("type 2 diabetes", "제2형당뇨병"),
    ("5살 아이 타이레놀", "다섯 살 어린이 타이레놀"),
    ("노인 졸피뎀", "어르신 스틸녹스"),
    ("70대 졸피뎀", "칠십대 졸피뎀"),
    ("60대 후반 졸피뎀", "in my late 60s, zolpidem"),
    ("메트포르민을 먹어요", "메트포르민 먹어요"),
    ("Glucophage", "metformin"),
    ("neurofibromatosis type 1의 증상", "symptoms of neurofibromatosis type 1"),  # a particle after "1"
    ("mucopolysaccharidosis type II은(는) 유전되나요?", "Is mucopolysaccharidosis type 2 inherited?"),
    ("타이레놀 매일 먹어도 되나요?", "타이레놀 하루 한 번 먹어도 되나요?"),
    ("메트포르민 아침저녁으로", "메트포르민 하루 두 번"),
    ("두통에 타이레놀 먹어도 되나요?", "머리가 아플 때 타이레놀 먹어도 되나요?"),
    ("열 날 때 타이레놀", "Tylenol for a fever"),
    ("페니실린 알레르기가 있는데 아목시실린 먹어도 되나요?", "Can I take amoxicillin if I am allergic to penicillin?"),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_wording_does_not_change_the_signature(a: str, b: str) -> None:
    assert question_signature(a) == question_signature(b)


DIFFERENT = [
    ("타이레놀 500mg 하루 몇 번?", "타이레놀 1000mg 하루 몇 번?"),
    ("Tylenol 500 mg", "Tylenol 1000 mg"),
    ("타이레놀 하루 2번", "타이레놀 하루 3번"),
    ("타이레놀 하루 두 번", "타이레놀 하루 세 번"),
    ("메토트렉세이트 주 1회", "메토트렉세이트 하루 1회"),
    ("타이레놀 4시간마다", "타이레놀 6시간마다"),
    ("타이레놀 한 알", "타이레놀 두 알"),
    ("이부프로펜 10mg/kg", "이부프로펜 10mg"),
    ("아이가 타이레놀 먹어도 되나요?", "어른이 타이레놀 먹어도 되나요?"),
    ("Can a child take aspirin?", "Can an adult take aspirin?"),
    ("신생아 타이레놀", "어린이 타이레놀"),
    ("5살 타이레놀 용량", "7살 타이레놀 용량"),  # a child's dose goes by age
    ("60대 초반 졸피뎀", "60대 후반 졸피뎀"),  # adult vs older adult
    ("60대 졸피뎀", "60대 후반 졸피뎀"),
    ("임신 중 이부프로펜", "이부프로펜"),
    ("수유 중 이부프로펜", "이부프로펜"),
    ("타이레놀 먹어도 되나요?", "이부프로펜 먹어도 되나요?"),
    ("애드빌 먹어도 되나요?", "타이레놀 먹어도 되나요?"),
    ("당뇨 환자 메트포르민", "신장병 환자 메트포르민"),
    ("공복혈당 110", "공복혈당 130"),
    ("공복혈당 180이면 높은가요?", "식후 혈당 180이면 높은가요?"),  # the same number, another threshold
    ("A1C 5.5%", "A1C 6.0%"),
    ("혈압 118/78", "혈압 128/84"),
    ("신경섬유종증 1형", "신경섬유종증 2형"),
    ("Osteogenesis imperfecta type I", "Osteogenesis imperfecta type II"),
    ("위암 3기", "위암 4기"),
    ("성인 급성 골수성 백혈병 치료", "소아 급성 골수성 백혈병 치료"),
    ("3일째 열이 나요", "7일째 열이 나요"),  # any other number with its unit counts
    ("두통에 타이레놀 먹어도 되나요?", "기침에 타이레놀 먹어도 되나요?"),  # the symptom it is taken for
    ("페니실린 알레르기가 있는데 아목시실린 먹어도 되나요?", "아스피린 알레르기가 있는데 아목시실린 먹어도 되나요?"),
]


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_what_the_answer_depends_on_changes_the_signature(a: str, b: str) -> None:
    assert question_signature(a) != question_signature(b)
    assert slot_signature(question_signature(a)) != slot_signature(question_signature(b))


def test_canonical_drug_names_and_doses() -> None:
    for name in ("아세트아미노펜", "타이레놀", "Tylenol", "acetaminophen", "paracetamol"):
        assert question_signature(f"{name} 500mg") == {"drugs": "acetaminophen", "doses": "500mg"}


def test_signature_fields() -> None:
    assert question_signature("타이레놀 500mg 하루 세 번") == {"drugs": "acetaminophen", "doses": "3회/day,500mg"}
    assert question_signature("5살 아이 이부프로펜 시럽") == {"drugs": "ibuprofen", "age_group": "child", "age": "5"}
    assert question_signature("공복혈당 126이면 당뇨인가요?") == {
        "measures": "fasting_glucose=126mg/dL", "conditions": "diabetes"}
    assert question_signature("126 mg/dL") == {"quantities": "126mg/dl"}  # a concentration is no dose
    assert question_signature("안녕하세요") == {}
    assert question_signature("") == {}


PROFILE = {"demographics": {"age": 70, "age_group": "older_adult", "sex": "female"},
           "conditions": ["chronic kidney disease"], "symptoms": [], "medications": [], "vitals": {}, "labs": {}}


def test_age_group_comes_from_the_text_else_the_profile() -> None:
    assert question_signature("졸피뎀 먹어도 되나요?", PROFILE)["age_group"] == "older_adult"
    assert question_signature("아이가 졸피뎀 먹어도 되나요?", PROFILE)["age_group"] == "child"
    assert "age_group" not in question_signature("졸피뎀 먹어도 되나요?")


def test_profile_conditions_count_for_drug_and_first_person_questions_only() -> None:
    # a drug question depends on the user's conditions (ibuprofen and kidney disease)
    assert question_signature("이부프로펜 먹어도 되나요?", PROFILE)["conditions"] == "chronic kidney disease"
    # so does a question about the user ("제 혈압 목표치", "my blood pressure goal")
    assert question_signature("제 혈압 목표치는 얼마여야 하나요?", PROFILE)["conditions"] == "chronic kidney disease"
    mine = question_signature("What should my blood pressure goal be?", PROFILE)
    assert mine["conditions"] == "chronic kidney disease"
    # a general question does not ("제2형" is no first person)
    general = question_signature("급성 림프구성 백혈병은 무엇인가요?", {"conditions": ["asthma"]})
    assert general["conditions"] == "acute lymphoblastic leukemia"
    general = question_signature("제2형 당뇨병은 무엇인가요?", {"conditions": ["asthma"]})
    assert general["conditions"] == "type 2 diabetes"


def test_profile_pregnancy_counts() -> None:
    pregnant = {"demographics": {"pregnant": True}}
    assert question_signature("타이레놀 먹어도 되나요?", pregnant)["pregnant"] == "yes"
    assert question_signature("임신 아니에요. 타이레놀 먹어도 되나요?")["pregnant"] == "no"


FLAT = [
    ({"age": 52}, {"age": 52, "age_group": "adult"}),
    ({"age": 9, "conditions": []}, {"age": 9, "age_group": "child"}),
    ({"age": 68, "conditions": ["chronic kidney disease"]}, {"age": 68, "age_group": "older_adult"}),
    ({"pregnant": True}, {"pregnant": True}),
]


@pytest.mark.parametrize(("flat", "demographics"), FLAT)
def test_as_profile_reads_the_shared_trap_profiles(flat: dict[str, Any], demographics: dict[str, Any]) -> None:
    profile = as_profile(flat)
    assert profile["demographics"] == demographics
    assert profile["conditions"] == list(flat.get("conditions", []))


def test_as_profile_keeps_a_profile_and_copies_it() -> None:
    assert as_profile(PROFILE) == PROFILE and as_profile(PROFILE) is not PROFILE
    assert as_profile(None) == empty_profile() == as_profile({})


DEV = package_path("graphagents.agents.rag", "evaldata", "dev_questions.jsonl")


def test_every_dev_question_has_the_same_signature_in_korean_and_english() -> None:
    questions = [json.loads(line) for line in DEV.open(encoding="utf-8")]
    differ = [q["id"] for q in questions if question_signature(q["question"]) != question_signature(q["question_ko"])]
    assert differ == []
    # and most of them name something the signature reads (the disease, a subtype ...)
    assert sum(1 for q in questions if question_signature(q["question"])) >= 140


def test_an_interval_is_read_whole_or_not_at_all() -> None:
    # the core's interval reader once matched inside a number: "1.5시간마다" read as every 5 h
    assert question_signature("타이레놀 12시간마다")["doses"] == "12h"
    assert "5h" not in question_signature("타이레놀 1.5시간마다").get("doses", "")


def test_core_qualifiers_read_a_marker_before_a_korean_particle() -> None:
    from graphagents.cache import qualifiers

    assert qualifiers("neurofibromatosis type 1의 증상") == ["type 1"]
    assert qualifiers("mucopolysaccharidosis type II은(는)") == ["type ii"]
