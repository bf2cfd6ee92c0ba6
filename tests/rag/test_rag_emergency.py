"""rag emergency notices: urgent symptoms in Korean and English, colloquial forms, and no false alarms."""

from __future__ import annotations

import json

import pytest

from graphagents.agents.rag.emergency import EMERGENCY_KINDS, Emergency, detect_emergency, emergency_notice
from graphagents.packagedata import package_path

DEV = package_path("graphagents.agents.rag", "evaldata")
EN_CALL = "call your local emergency number (119 in Korea, 911 in the US)"

URGENT = [
    # Korean, colloquial
    ("가슴이 쥐어짜듯 아파요", "chest_pain"),
    ("가슴이 터질 것 같이 아파요", "chest_pain"),
    ("가슴이 아픈데 왜 그런가요?", "chest_pain"),  # a state inside a question still counts
    ("갑자기 흉통이 생겼어요", "chest_pain"),
    ("흉통이 있어요", "chest_pain"),
    ("숨이 안 쉬어져요", "breathing"),
    ("숨이안쉬어져요", "breathing"),  # spacing does not matter
    ("숨을 못 쉬겠어요", "breathing"),
    ("숨쉬기가 너무 힘들어요", "breathing"),
    ("갑자기 숨이 너무 차요", "breathing"),
    ("한쪽 팔다리에 힘이 빠져요", "stroke"),
    ("말이 어눌해졌어요", "stroke"),
    ("얼굴 한쪽이 처졌어요", "stroke"),
    ("아버지 입이 돌아갔어요", "stroke"),
    ("갑자기 앞이 안 보여요", "stroke"),
    ("죽고 싶어요", "suicide"),
    ("요즘 자살 생각이 자꾸 나요", "suicide"),
    ("더 이상 살고 싶지 않아요", "suicide"),
    ("죽고 싶지는 않은데 너무 힘들어요", "suicide"),  # never argued away by a negation
    ("땅콩 먹고 입술이 부어서 숨이 차요", "anaphylaxis"),
    ("벌에 쏘인 뒤 온몸에 두드러기가 났어요", "anaphylaxis"),
    ("혀가 퉁퉁 부었어요", "anaphylaxis"),
    ("피가 멈추지 않아요", "bleeding"),
    ("피를 토했어요", "bleeding"),
    ("할머니가 갑자기 쓰러졌어요", "unconscious"),
    ("아이가 경련을 해요", "seizure"),
    ("수면제를 한꺼번에 많이 먹었어요", "overdose"),
    ("아이가 세제를 마셨어요", "overdose"),
    ("가슴이 답답하고 식은땀이 나요", "chest_pain"),
    ("숨이 턱 막혀요", "breathing"),
    ("호흡이 가빠요", "breathing"),
    ("아이가 사탕이 목에 걸렸어요", "breathing"),
    ("떡이 목에 걸려서 숨을 못 쉬어요", "breathing"),
    ("얼굴 반쪽이 마비됐어요", "stroke"),
    ("갑자기 어지럽고 한쪽이 안 보여요", "stroke"),
    ("자해하고 싶어요", "suicide"),
    ("살 이유가 없어요", "suicide"),
    ("타이레놀을 20알 먹었어요", "overdose"),
    ("벌에 쏘였는데 숨이 차요", "anaphylaxis"),
    # English
    ("I can't breathe", "breathing"),
    ("I feel like ending it all", "suicide"),
    ("I took 20 Tylenol", "overdose"),
    ("He swallowed a whole bottle of pills", "overdose"),
    ("It feels like an elephant is sitting on my chest", "chest_pain"),
    ("I can't catch my breath", "breathing"),
    ("My face is numb on one side", "stroke"),
    ("I can't feel my left arm", "stroke"),
    ("My speech is slurred", "stroke"),
    ("I want to end it", "suicide"),
    ("I've been cutting myself", "suicide"),
    ("He's not waking up", "unconscious"),
    ("I think I'm having anaphylaxis", "anaphylaxis"),
    ("팔다리 한쪽이 저리고 힘이 없어요", "stroke"),
    ("약을 먹고 나서 온몸에 두드러기가 나고 숨이 차요", "anaphylaxis"),
    ("알레르기 쇼크가 왔어요", "anaphylaxis"),
    ("가슴 통증이 30분째 계속돼요", "chest_pain"),
    ("I cannot breathe properly", "breathing"),
    ("crushing chest pain", "chest_pain"),
    ("I'm having chest pain right now", "chest_pain"),
    ("There is pressure in my chest", "chest_pain"),
    ("face drooping", "stroke"),
    ("My father is slurring his words", "stroke"),
    ("sudden numbness on one side of my body", "stroke"),
    ("I want to kill myself", "suicide"),
    ("I don't want to live anymore", "suicide"),
    ("My throat is swelling after a bee sting", "anaphylaxis"),
    ("The bleeding won't stop", "bleeding"),
    ("He passed out and is unresponsive", "unconscious"),
    ("My son is having a seizure", "seizure"),
    ("I took too many pills", "overdose"),
]


@pytest.mark.parametrize(("text", "kind"), URGENT, ids=[t for t, _ in URGENT])
def test_urgent_symptoms_raise_the_notice(text: str, kind: str) -> None:
    found = detect_emergency(text)
    assert found is not None and found.kind == kind
    korean = any("가" <= ch <= "힣" for ch in text)
    if korean:
        assert found.language == "ko" and "119" in found.notice and found.notice.startswith("[응급]")
        assert "911" not in found.notice
    else:
        assert found.language == "en" and EN_CALL in found.notice and found.notice.startswith("[Emergency]")


ORDINARY = [
    "흉통의 원인은?",  # documented: a general information question is not flagged
    "What causes chest pain?",
    "What are the symptoms of a stroke?",
    "가슴 X-ray 검사 비용",
    "가슴 X-ray 검사 비용이 얼마예요?",
    "경련을 일으키는 원인은?",
    "메트포르민 부작용이 뭐예요?",
    "타이레놀 500mg 하루 몇 번?",
    "이번 주말이 안 되는데 예약 바꿀 수 있나요?",  # 말이 안 되 inside 주말이 안 되는데
    "손목이 부었어요",  # swelling, but not the throat
    "목이 부어서 아파요",  # a sore throat
    "커피가 많이 나와요",  # 피가 많이 나 inside 커피가
    "숨막히는 경기였어요",  # an idiom
    "계단 오를 때 숨이 차요",
    "가슴이 아프진 않아요",  # negated state
    "숨 쉬는 건 괜찮아요",
    "I don't have chest pain",
    "No trouble breathing",
    "suicide rates in Korea",
    "What is a choking hazard for toddlers?",
    "How is anaphylaxis treated?",  # the name of an emergency in a general question
    "아나필락시스 치료법은?",
    "What are the warning signs of a heart attack?",
    "심근경색 증상은 뭔가요?",
    "흉통이 있을 때 무슨 검사를 하나요?",
    "가슴이 아픈 건 아니에요",
    "오늘 일 다 끝내고 싶어요",
    "생선 가시가 목에 걸렸어요",
    "말이 안 되는 소리 하지 마세요",
    "안녕하세요",
    "",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_no_false_alarm_on_ordinary_text(text: str) -> None:
    assert detect_emergency(text) is None


def test_no_false_alarm_on_any_dev_question() -> None:
    texts = []
    for line in (DEV / "dev_questions.jsonl").open(encoding="utf-8"):
        question = json.loads(line)
        texts += [question["question"], question["question_ko"]]
    for line in (DEV / "dev_cache_traps.jsonl").open(encoding="utf-8"):
        pair = json.loads(line)
        texts += [pair[side][key] for side in "ab" for key in ("question", "question_ko")]
    assert len(texts) > 300
    assert [t for t in texts if detect_emergency(t) is not None] == []


def test_a_more_specific_kind_wins() -> None:
    # lips swelling after food and short breath: the anaphylaxis notice (epinephrine) says more
    found = detect_emergency("새우 먹고 입술이 붓고 숨이 안 쉬어져요")
    assert found is not None and found.kind == "anaphylaxis"
    assert "에피네프린" in found.notice


def test_suicide_notice_names_the_crisis_lines() -> None:
    ko = detect_emergency("죽고 싶어요")
    en = detect_emergency("I want to die")
    assert ko is not None and "109" in ko.notice and "119" in ko.notice
    assert en is not None and "988" in en.notice and "109" in en.notice and EN_CALL in en.notice


def test_notices_exist_for_every_kind_and_unknown_kinds_fail_clearly() -> None:
    for kind in EMERGENCY_KINDS:
        assert "119" in emergency_notice(kind, "ko")
        assert EN_CALL in emergency_notice(kind, "en")
    with pytest.raises(ValueError, match="unknown emergency kind"):
        emergency_notice("sneezing")


def test_emergency_is_frozen() -> None:
    found = detect_emergency("I can't breathe")
    assert isinstance(found, Emergency)
    with pytest.raises(AttributeError):
        found.kind = "x"  # type: ignore[misc]


def _labelled() -> list[dict[str, object]]:
    path = DEV / "heldout_emergencies.jsonl"
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def test_the_labelled_set_recall_is_total_and_precision_reported() -> None:
    rows = _labelled()
    due = [r for r in rows if r["emergency"]]
    look_alikes = [r for r in rows if not r["emergency"]]
    assert len(rows) >= 100 and len(look_alikes) * 2 >= len(rows) - 2  # about half look-alikes
    kinds = {str(r["kind"]) for r in due}
    assert kinds == set(EMERGENCY_KINDS)  # every class a triage nurse flags, incl. infant fever, pregnancy
    assert {r["lang"] for r in due} == {"ko", "en"}
    missed = [r["text"] for r in due if detect_emergency(str(r["text"])) is None]
    assert missed == []  # recall 100 %
    alarms = [r["text"] for r in look_alikes if detect_emergency(str(r["text"])) is not None]
    precision = len(due) / (len(due) + len(alarms))
    assert precision >= 0.95, alarms
    wrong_kind = [(r["text"], found.kind) for r in due
                  if (found := detect_emergency(str(r["text"]))) is not None and found.kind != r["kind"]]
    assert wrong_kind == []


@pytest.mark.parametrize(("text", "kind"), [
    ("가슴이 답답하고 왼쪽 팔이 저려요", "chest_pain"),  # discomfort + a companion symptom
    ("My chest feels tight and the pain is going down my left arm", "chest_pain"),
    ("I took too many sleeping pills", "overdose"),
    ("생후 2개월 아기가 열이 38.5도예요", "infant_fever"),
    ("My 6-week-old baby has a fever of 38.2", "infant_fever"),
    ("임신 12주인데 피가 비쳐요", "pregnancy_bleeding"),
    ("I'm 20 weeks pregnant and I'm bleeding", "pregnancy_bleeding"),
])
def test_the_issue_classes(text: str, kind: str) -> None:
    found = detect_emergency(text)
    assert found is not None and found.kind == kind


@pytest.mark.parametrize("text", [
    "어제 가슴이 살짝 결렸는데 지금은 괜찮아요",  # time: over now
    "I had some chest tightness last week but it's gone now",
    "My son had a febrile seizure last year, will it happen again?",  # long ago, a question
    "생후 5개월 아기가 열이 나요",  # not under 3 months
    "My 2-month-old baby has a runny nose but no fever",  # negated fever
    "What are the risk factors for suicide?",  # the subject, not the person
    "임신 초기 출혈의 원인은 무엇인가요?",  # an information question
])
def test_time_negation_and_subject_questions_are_not_alarms(text: str) -> None:
    assert detect_emergency(text) is None


def test_resolved_never_argues_away_suicidal_talk() -> None:
    found = detect_emergency("어제는 괜찮았는데 지금은 죽고 싶어요")
    assert found is not None and found.kind == "suicide"
