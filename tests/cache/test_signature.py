from __future__ import annotations

from dataclasses import dataclass

from graphagents.cache import literals, qualifiers, quantities, slot_signature, text_signature


def test_slot_signature_ignores_form_but_not_content() -> None:
    base = slot_signature({"drug": "Tylenol", "dose": "500mg", "conditions": ["당뇨", "고혈압"]})
    assert base == slot_signature({"conditions": ["고혈압", "당뇨", "당뇨"], "dose": "500MG", "drug": " tylenol ",
                                   "age": None, "labs": []})
    assert base != slot_signature({"drug": "Tylenol", "dose": "1000mg", "conditions": ["당뇨", "고혈압"]})
    assert base != slot_signature({"drug": "Tylenol", "dose": "500mg", "conditions": ["당뇨"]})
    assert slot_signature({"age": 65}) == slot_signature({"age": 65.0}) == slot_signature({"age": "65"})
    assert slot_signature({"n": 1}) != slot_signature({"n": True})
    assert slot_signature({}) == slot_signature({"x": None}) and len(slot_signature({})) == 16


def test_slot_signature_reads_dataclasses() -> None:
    @dataclass(frozen=True)
    class Dose:
        amount: float
        unit: str

    assert slot_signature({"dose": Dose(500, "mg")}) == slot_signature({"dose": {"unit": "mg", "amount": 500}})


def test_quantities() -> None:
    assert quantities("타이레놀 500mg 하루 몇 번?") == ["500mg"]
    assert quantities("1,000 mg twice, BP 140/90 mmHg, A1C 6.0%") == ["1000mg", "140/90mmhg", "6%"]
    assert quantities("65세 남성, 공복혈당 180 mg/dL") == ["65세", "180mg/dl"]
    assert quantities("type 2 diabetes for 3 years") == ["2", "3"]
    assert quantities("COVID19 variants") == []  # digits inside a word are part of a name


def test_qualifiers() -> None:
    assert qualifiers("Osteogenesis imperfecta type II and Stage IV cancer") == ["type ii", "stage iv"]
    assert qualifiers("the type of cancer") == []


def test_literals_keep_text2sql_semantics() -> None:
    assert literals("2024년 매출 상위 10개") == {"#2024", "#10"}
    assert literals("이름이 '홍길동'인 고객") == {"'홍길동'"}
    assert literals("서울 고객 수", ["서울", "부산"]) == {"서울"}


def test_text_signature() -> None:
    assert text_signature("타이레놀 500mg 하루 몇 번?") == text_signature("하루에 타이레놀 500 mg 몇 번 먹어요?")
    assert text_signature("타이레놀 500mg 하루 몇 번?") != text_signature("타이레놀 1000mg 하루 몇 번?")
    cities = ["서울", "부산"]
    assert text_signature("서울 고객", entity_words=cities) != text_signature("부산 고객", entity_words=cities)
    assert text_signature("x", extra={"age_group": "child"}) != text_signature("x", extra={"age_group": "adult"})
