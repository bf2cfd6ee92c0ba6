"""rag slots: extraction (Korean and English), negations, profile merge and the one-line summary."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from graphagents.agents.rag.slots import (
    SlotUpdate,
    age_group,
    empty_profile,
    extract_slots,
    merge_profile,
    profile_summary,
)
from graphagents.packagedata import package_path


def _slots(text: str) -> dict[str, Any]:
    """The non-empty parts of the extraction, as plain data."""
    return {k: v for k, v in extract_slots(text).as_dict().items() if v}


def _med(name: str, dose: str | None = None, frequency: str | None = None) -> dict[str, Any]:
    return {"name": name, "dose": dose, "frequency": frequency}


EXTRACTION = [
    # Korean demographics
    ("65세 남성", {"demographics": {"age": 65, "age_group": "older_adult", "sex": "male"}}),
    ("저는 42살 여자예요", {"demographics": {"age": 42, "age_group": "adult", "sex": "female"}}),
    ("예순다섯 살 남자입니다", {"demographics": {"age": 65, "age_group": "older_adult", "sex": "male"}}),
    ("육십오 세 여성", {"demographics": {"age": 65, "age_group": "older_adult", "sex": "female"}}),
    ("만 9세예요", {"demographics": {"age": 9, "age_group": "child"}}),
    ("임신 20주예요", {"demographics": {"pregnant": True, "sex": "female"}}),
    # age ranges: the group only when every age in the range has the same one
    ("70대 남성이에요", {"demographics": {"age_range": "70대", "age_group": "older_adult", "sex": "male"}}),
    ("60대 여성입니다", {"demographics": {"age_range": "60대", "sex": "female"}}),
    ("60대 후반이에요", {"demographics": {"age_range": "60대 후반", "age_group": "older_adult"}}),
    ("육십대 초반 남자", {"demographics": {"age_range": "60대 초반", "age_group": "adult", "sex": "male"}}),
    ("I am a woman in my late 60s",
     {"demographics": {"age_range": "60대 후반", "age_group": "older_adult", "sex": "female"}}),
    ("임신 아니에요", {"demographics": {"pregnant": False}}),
    ("지금 모유 수유 중이에요", {"demographics": {"breastfeeding": True}}),
    # Korean conditions and medications
    ("당뇨 있고 메트포르민 500mg 하루 두 번 먹어요",
     {"conditions": ["diabetes"], "medications": [_med("metformin", "500 mg", "하루 2회")]}),
    ("고혈압 환자인데 타이레놀 먹어도 되나요?", {"conditions": ["hypertension"]}),
    ("제2형 당뇨병 진단받았어요", {"conditions": ["type 2 diabetes"]}),
    ("혈압약 먹고 있어요", {"conditions": ["hypertension"]}),
    ("글루코파지를 1일 3회 복용 중입니다", {"medications": [_med("metformin", None, "하루 3회")]}),
    ("인슐린 맞고 있어요", {"medications": [_med("insulin")]}),
    ("타이레놀 500밀리그램 한 알씩 8시간마다 먹어요", {"medications": [_med("acetaminophen", "500 mg", "8시간마다")]}),
    ("아스피린 100mg이랑 리피토 20mg 먹어요",
     {"medications": [_med("aspirin", "100 mg"), _med("atorvastatin", "20 mg")]}),
    # Korean vitals and labs, digits and number words
    ("혈압 140/90", {"vitals": {"blood_pressure": "140/90 mmHg"}}),
    ("혈압이 140에 90 나왔어요", {"vitals": {"blood_pressure": "140/90 mmHg"}}),
    ("공복혈당 180", {"labs": {"fasting_glucose": "180 mg/dL"}}),
    ("공복혈당이 백팔십이에요", {"labs": {"fasting_glucose": "180 mg/dL"}}),
    ("당화혈색소(A1C)가 5.5%로 나왔어요", {"labs": {"hba1c": "5.5 %"}}),
    ("식후 혈당 250 나왔어요", {"labs": {"postprandial_glucose": "250 mg/dL"}}),
    ("식후 2시간 혈당이 200이에요", {"labs": {"postprandial_glucose": "200 mg/dL"}}),
    ("수축기 혈압 150 이완기 혈압 95", {"vitals": {"blood_pressure": "150/95 mmHg"}}),
    ("최고혈압 140 최저혈압 90이에요", {"vitals": {"blood_pressure": "140/90 mmHg"}}),
    ("systolic 135, diastolic 85", {"vitals": {"blood_pressure": "135/85 mmHg"}}),
    ("맥박 72", {"vitals": {"heart_rate": "72 bpm"}}),
    ("체온 38.5도", {"vitals": {"temperature": "38.5 °C"}}),
    ("몸무게 70kg이에요", {"vitals": {"weight": "70 kg"}}),
    ("LDL 콜레스테롤 160", {"labs": {"ldl": "160 mg/dL"}}),
    ("크레아티닌 1.4", {"labs": {"creatinine": "1.4 mg/dL"}}),
    # Korean symptoms
    ("열이 나고 기침을 해요", {"symptoms": ["fever", "cough"]}),
    ("머리가 아픈데 타이레놀 먹어도 되나요", {"symptoms": ["headache"]}),
    ("사흘째 어지러워요", {"symptoms": ["dizziness"]}),
    # English
    ("I'm 42 and take lisinopril 10 mg",
     {"demographics": {"age": 42, "age_group": "adult"}, "medications": [_med("lisinopril", "10 mg")]}),
    ("heart rate 88", {"vitals": {"heart_rate": "88 bpm"}}),
    ("HbA1c 7.2%", {"labs": {"hba1c": "7.2 %"}}),
    ("My blood pressure is 150 over 95", {"vitals": {"blood_pressure": "150/95 mmHg"}}),
    ("fasting glucose 126 mg/dL", {"labs": {"fasting_glucose": "126 mg/dL"}}),
    ("I have type 2 diabetes and take metformin 1000 mg twice a day",
     {"conditions": ["type 2 diabetes"], "medications": [_med("metformin", "1000 mg", "하루 2회")]}),
    ("I'm on Coumadin", {"medications": [_med("warfarin")]}),
    ("I was diagnosed with high blood pressure", {"conditions": ["hypertension"]}),
    ("I am a 70-year-old woman", {"demographics": {"age": 70, "age_group": "older_adult", "sex": "female"}}),
    ("I'm pregnant", {"demographics": {"pregnant": True, "sex": "female"}}),
    ("I have a headache and a fever", {"symptoms": ["headache", "fever"]}),
    ("My head hurts", {"symptoms": ["headache"]}),
    # everyday phrasing: frequencies without numbers, adverbs, inhalers, "put me on", "with"
    ("메트포르민 500mg 아침저녁으로 먹어요", {"medications": [_med("metformin", "500 mg", "하루 2회")]}),
    ("I take lisinopril 10 mg daily", {"medications": [_med("lisinopril", "10 mg", "하루 1회")]}),
    ("타이레놀을 하루에 세 번씩 먹고 있어요", {"medications": [_med("acetaminophen", None, "하루 3회")]}),
    ("천식이 있어서 벤토린 써요", {"conditions": ["asthma"], "medications": [_med("albuterol")]}),
    ("My doctor put me on metformin", {"medications": [_med("metformin")]}),
    ("메트포르민 복용 중인데 술 마셔도 되나요?", {"medications": [_med("metformin")]}),
    ("I'm a 45 year old male with high blood pressure",
     {"demographics": {"age": 45, "age_group": "adult", "sex": "male"}, "conditions": ["hypertension"]}),
    ("작년에 위암 수술 받았어요", {"conditions": ["stomach cancer"]}),
    ("배가 살살 아파요", {"symptoms": ["abdominal pain"]}),
    ("머리가 너무 지끈거려요", {"symptoms": ["headache"]}),
    ("어제부터 열이 38도까지 올라요", {"symptoms": ["fever"], "vitals": {"temperature": "38 °C"}}),
    ("혈당이 아침에 150 정도 나와요", {"labs": {"glucose": "150 mg/dL"}}),
    ("콜레스테롤 수치가 240이래요", {"labs": {"total_cholesterol": "240 mg/dL"}}),
    ("키 170에 몸무게 80kg이에요", {"vitals": {"height": "170 cm", "weight": "80 kg"}}),
    ("I weigh 180 pounds", {"vitals": {"weight": "180 lb"}}),
    ("LDL이 160이에요", {"labs": {"ldl": "160 mg/dL"}}),
    ("당뇨병 10년 됐어요", {"conditions": ["diabetes"]}),
    # a drug allergy names the drug
    ("페니실린 알레르기가 있어요", {"conditions": ["penicillin allergy"]}),
    ("I'm allergic to penicillin", {"conditions": ["penicillin allergy"]}),
    ("I have a penicillin allergy", {"conditions": ["penicillin allergy"]}),
    ("알레르기 있어요", {"conditions": ["allergy"]}),
    ("65세 남성이고 당뇨가 있어요. 메트포르민 500mg을 하루 두 번 먹고 혈압은 140/90이에요.",
     {"demographics": {"age": 65, "age_group": "older_adult", "sex": "male"}, "conditions": ["diabetes"],
      "medications": [_med("metformin", "500 mg", "하루 2회")], "vitals": {"blood_pressure": "140/90 mmHg"}}),
    ("아버지는 고혈압이 있고 저는 당뇨가 있어요", {"conditions": ["diabetes"]}),
    ("My dad has diabetes but I have asthma", {"conditions": ["asthma"]}),
    ("I take metformin 500 mg twice a day and lisinopril 10 mg once a day",
     {"medications": [_med("metformin", "500 mg", "하루 2회"), _med("lisinopril", "10 mg", "하루 1회")]}),
    ("저는 58세 여성이고 고지혈증이 있어서 리피토 10mg 먹고 있어요",
     {"demographics": {"age": 58, "age_group": "adult", "sex": "female"}, "conditions": ["hyperlipidemia"],
      "medications": [_med("atorvastatin", "10 mg")]}),
    ("갑상선기능저하증으로 씬지로이드 먹는 중이에요",
     {"conditions": ["hypothyroidism"], "medications": [_med("levothyroxine")]}),
    ("요즘 소화가 안 되고 속이 쓰려요", {"symptoms": ["indigestion", "heartburn"]}),
    ("I am 67, female, and have atrial fibrillation. I take warfarin 5 mg every day.",
     {"demographics": {"age": 67, "age_group": "older_adult", "sex": "female"}, "conditions": ["atrial fibrillation"],
      "medications": [_med("warfarin", "5 mg", "하루 1회")]}),
    ("I was diagnosed with type 1 diabetes when I was 12", {"conditions": ["type 1 diabetes"]}),
    ("맥박이 분당 110회예요", {"vitals": {"heart_rate": "110 bpm"}}),
    ("산소포화도가 92%예요", {"vitals": {"oxygen_saturation": "92 %"}}),
    ("신장 기능이 안 좋아서 eGFR이 45래요", {"labs": {"egfr": "45 mL/min/1.73m²"}}),
]


@pytest.mark.parametrize(("text", "expected"), EXTRACTION, ids=[t for t, _ in EXTRACTION])
def test_extracts_the_slots_the_user_states(text: str, expected: dict[str, Any]) -> None:
    assert _slots(text) == expected


NEGATIONS = [
    ("이제 메트포르민 안 먹어요", [("medications", "metformin")]),
    ("메트포르민 끊었어요", [("medications", "metformin")]),
    ("타이레놀은 복용하지 않아요", [("medications", "acetaminophen")]),
    ("의사가 아스피린 그만 먹으래요", [("medications", "aspirin")]),
    ("당뇨 없어요", [("conditions", "diabetes")]),
    ("고혈압은 아니에요", [("conditions", "hypertension")]),
    ("I stopped taking lisinopril", [("medications", "lisinopril")]),
    ("I no longer take Tylenol", [("medications", "acetaminophen")]),
    ("I don't take aspirin", [("medications", "aspirin")]),
    ("I don't have diabetes", [("conditions", "diabetes")]),
    ("열은 없어요", [("symptoms", "fever")]),
    ("No fever anymore", [("symptoms", "fever")]),
    ("I gave up ibuprofen", [("medications", "ibuprofen")]),
    ("I'm not on metformin anymore", [("medications", "metformin")]),
    ("당뇨는 완치됐어요", [("conditions", "diabetes")]),
    ("페니실린 알레르기 없어요", [("conditions", "penicillin allergy")]),
    ("My headache is gone", [("symptoms", "headache")]),
    ("I stopped metformin because of diarrhea", [("medications", "metformin")]),  # the diarrhea is no removal
    ("타이레놀 이제 안 먹어도 돼요", [("medications", "acetaminophen")]),
]


@pytest.mark.parametrize(("text", "removals"), NEGATIONS, ids=[t for t, _ in NEGATIONS])
def test_negations_remove_and_never_add(text: str, removals: list[tuple[str, str]]) -> None:
    update = extract_slots(text)
    assert update.removals == removals
    assert update.medications == [] and update.conditions == [] and update.symptoms == []


def test_a_negated_drug_and_a_new_one_in_two_clauses() -> None:
    update = extract_slots("메트포르민은 끊었고 인슐린 맞아요")
    assert update.removals == [("medications", "metformin")]
    assert update.medications == [_med("insulin")]


NOT_THE_USERS = [
    "메트포르민 부작용이 뭐예요?",
    "타이레놀 500mg 하루 몇 번 먹어요?",
    "당뇨가 있으면 타이레놀 먹어도 되나요?",
    "두통의 원인은?",
    "What are the side effects of metformin?",
    "Can I take ibuprofen?",
    "What causes headaches?",
    "아버지가 당뇨가 있어요",
    "다섯 살 아들이 열이 나요",
    "My mother takes warfarin",
    "65세 이상 노인은 어떤 검사를 받아야 하나요?",
    "My doctor wants me on a statin",  # a plan, not a fact
    "When should I take metformin?",
    "어머니가 치매가 있으세요",
    "어머니가 70대세요",
    "열 날 때 타이레놀 먹어도 되나요?",  # a hypothetical fever
    "머리가 아플 때 뭘 먹어야 하나요?",
    "안녕하세요",
    "",
]


@pytest.mark.parametrize("text", NOT_THE_USERS)
def test_names_merely_asked_about_are_not_profile_facts(text: str) -> None:
    update = extract_slots(text)
    assert update.conditions == [] and update.medications == [] and update.symptoms == []
    assert "age" not in update.demographics


DEV = package_path("graphagents.agents.rag", "evaldata", "dev_questions.jsonl")


def test_no_profile_facts_from_any_general_dev_question() -> None:
    questions = [json.loads(line) for line in DEV.open(encoding="utf-8")]
    texts = [q[key] for q in questions for key in ("question", "question_ko")]
    assert len(texts) == 302
    assert [t for t in texts if not extract_slots(t).is_empty()] == []


def test_is_empty() -> None:
    assert extract_slots("메트포르민 부작용이 뭐예요?").is_empty()
    assert SlotUpdate().is_empty()
    assert not extract_slots("혈압 140/90").is_empty()
    assert not extract_slots("메트포르민 끊었어요").is_empty()  # a removal is something


@pytest.mark.parametrize(
    ("age", "group"), [(0, "infant"), (1, "infant"), (2, "child"), (12, "child"), (13, "adolescent"),
                       (17, "adolescent"), (18, "adult"), (64, "adult"), (65, "older_adult"), (90, "older_adult")]
)
def test_age_groups(age: int, group: str) -> None:
    assert age_group(age) == group


# ---------------------------------------------------------------------------------------------
# merge_profile


def _merge(*texts: str) -> dict[str, Any]:
    profile = empty_profile()
    for text in texts:
        profile = merge_profile(profile, extract_slots(text))
    return profile


def test_merge_builds_a_profile_over_turns_and_removals_remove() -> None:
    profile = _merge("65세 남성이에요", "당뇨 있고 메트포르민 500mg 하루 두 번 먹어요", "혈압 140/90", "공복혈당 180")
    assert profile == {
        "demographics": {"age": 65, "age_group": "older_adult", "sex": "male"},
        "conditions": ["diabetes"],
        "symptoms": [],
        "medications": [_med("metformin", "500 mg", "하루 2회")],
        "vitals": {"blood_pressure": "140/90 mmHg"},
        "labs": {"fasting_glucose": "180 mg/dL"},
    }
    profile = merge_profile(profile, extract_slots("이제 메트포르민 안 먹어요"))
    assert profile["medications"] == []
    profile = merge_profile(profile, extract_slots("당뇨 없어요"))
    assert profile["conditions"] == []
    assert profile["vitals"] == {"blood_pressure": "140/90 mmHg"}  # untouched fields stay


def test_merge_newer_wins_field_by_field() -> None:
    profile = _merge("혈압 140/90", "메트포르민 500mg 하루 두 번 먹어요", "42살이에요")
    profile = merge_profile(profile, extract_slots("혈압 130/85이고 메트포르민 하루 세 번 먹어요"))
    assert profile["vitals"]["blood_pressure"] == "130/85 mmHg"
    # the new frequency wins, the dose the update did not mention is kept
    assert profile["medications"] == [_med("metformin", "500 mg", "하루 3회")]
    profile = merge_profile(profile, extract_slots("이제 70세예요"))
    assert profile["demographics"] == {"age": 70, "age_group": "older_adult"}


def test_merge_specific_condition_replaces_general_and_general_removal_removes_specific() -> None:
    profile = _merge("당뇨 있어요", "제2형 당뇨병 진단받았어요")
    assert profile["conditions"] == ["type 2 diabetes"]
    profile = merge_profile(profile, extract_slots("당뇨 있어요"))
    assert profile["conditions"] == ["type 2 diabetes"]  # the general form adds nothing new
    profile = merge_profile(profile, extract_slots("이제 당뇨 없어요"))
    assert profile["conditions"] == []


def test_merge_never_mutates_its_inputs() -> None:
    profile = _merge("당뇨 있고 메트포르민 500mg 먹어요", "혈압 140/90")
    before = copy.deepcopy(profile)
    update = extract_slots("메트포르민 끊었고 혈압 120/80이에요")
    update_before = copy.deepcopy(update.as_dict())
    merged = merge_profile(profile, update)
    assert profile == before and update.as_dict() == update_before
    merged["conditions"].append("x")
    merged["vitals"]["heart_rate"] = "1 bpm"
    assert profile == before


def test_merge_accepts_none_and_partial_profiles() -> None:
    assert merge_profile(None, SlotUpdate()) == empty_profile()
    merged = merge_profile({"conditions": ["asthma"]}, extract_slots("혈압 120/80"))
    assert merged["conditions"] == ["asthma"] and merged["vitals"] == {"blood_pressure": "120/80 mmHg"}


# ---------------------------------------------------------------------------------------------
# profile_summary


def test_summary_of_the_example_profile() -> None:
    profile = _merge("65세 남성", "당뇨 있고 메트포르민 500mg 하루 두 번 먹어요", "혈압 140/90", "공복혈당 180")
    assert profile_summary(profile) == (
        "65세 남성 | 질환: 당뇨병 | 복용약: 메트포르민 500mg 하루 2회 | 혈압: 140/90 mmHg | 공복혈당: 180 mg/dL"
    )


def test_summary_names_everything_in_korean() -> None:
    profile = _merge("I'm a 30-year-old woman and I'm pregnant", "I have asthma", "I take Tylenol 500 mg",
                     "I have a headache", "HbA1c 5.4%")
    assert profile_summary(profile) == (
        "30세 여성 임신 중 | 질환: 천식 | 증상: 두통 | 복용약: 아세트아미노펜 500mg | 당화혈색소: 5.4 %"
    )


def test_summary_of_an_empty_profile_is_empty() -> None:
    assert profile_summary(empty_profile()) == ""
    assert profile_summary({}) == ""
    assert profile_summary(None) == ""


def test_merge_makes_a_models_update_canonical() -> None:
    """The agent's LLM path builds SlotUpdates from a model's JSON: names in any language or case."""
    update = SlotUpdate(
        demographics={"age": "65", "gender": "남성"},
        conditions=["당뇨병", "High Blood Pressure"],
        medications=[{"name": "Metformin", "dose": "500 mg"}, {"dose": "1 mg"}, "Tylenol"],  # type: ignore[list-item]
        removals=[("medications", "타이레놀")],
    )
    profile = merge_profile(None, update)
    assert profile["demographics"] == {"age": 65, "sex": "male", "age_group": "older_adult"}
    assert profile["conditions"] == ["diabetes", "hypertension"]
    assert profile["medications"] == [_med("metformin", "500 mg")]  # nameless skipped, Tylenol removed
    assert profile_summary(profile) == "65세 남성 | 질환: 당뇨병, 고혈압 | 복용약: 메트포르민 500mg"
    # removals name things in any language too
    profile = merge_profile(profile, SlotUpdate(removals=[("conditions", "Diabetes"), ("medications", "글루코파지")]))
    assert profile["conditions"] == ["hypertension"] and profile["medications"] == []


def test_merge_ignores_slots_of_the_wrong_type_in_a_stored_profile() -> None:
    stored = {"demographics": None, "conditions": "diabetes", "medications": [{"dose": "5 mg"}], "labs": {"ldl": "1"}}
    profile = merge_profile(stored, extract_slots("당뇨 있어요"))
    assert profile["conditions"] == ["diabetes"] and profile["labs"] == {"ldl": "1"}
    assert profile["demographics"] == {}


def test_an_age_and_an_age_range_replace_each_other() -> None:
    profile = _merge("65세 남성")
    profile = merge_profile(profile, extract_slots("70대예요"))
    assert profile["demographics"] == {"sex": "male", "age_range": "70대", "age_group": "older_adult"}
    assert profile_summary(profile) == "70대 남성"
    profile = merge_profile(profile, extract_slots("60대예요"))
    assert profile["demographics"] == {"sex": "male", "age_range": "60대"}  # no group: 60-69 spans two
    profile = merge_profile(profile, extract_slots("정확히는 62세예요"))
    assert profile["demographics"] == {"sex": "male", "age": 62, "age_group": "adult"}


def test_a_drug_allergy_in_the_summary() -> None:
    assert profile_summary(_merge("페니실린 알레르기가 있어요")) == "질환: 페니실린 알레르기"
