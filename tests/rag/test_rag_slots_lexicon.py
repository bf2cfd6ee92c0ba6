"""rag lexicon: Korean/English drug and condition names -> one canonical name, and the text matcher."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest

from graphagents.agents.rag.corpus import medical_corpus_path
from graphagents.agents.rag.lexicon import (
    Lexicon,
    canonical_condition,
    canonical_drug,
    english_terms,
    find_terms,
    get_lexicon,
    korean_name,
)

CORPUS = medical_corpus_path()

DRUGS = [
    ("아세트아미노펜", "acetaminophen"), ("타이레놀", "acetaminophen"), ("Tylenol", "acetaminophen"),
    ("acetaminophen", "acetaminophen"), ("paracetamol", "acetaminophen"), ("PARACETAMOL", "acetaminophen"),
    ("메트포르민", "metformin"), ("메트포르민을", "metformin"), ("글루코파지", "metformin"),
    ("Glucophage", "metformin"),
    ("타이레놀은", "acetaminophen"), ("리시노프릴", "lisinopril"), ("Zestril", "lisinopril"),
    ("애드빌", "ibuprofen"), ("부루펜", "ibuprofen"), ("Advil", "ibuprofen"), ("쿠마딘", "warfarin"),
    ("리피토", "atorvastatin"), ("글리벡", "imatinib"), ("Gleevec", "imatinib"),
    ("Pepto-Bismol", "bismuth subsalicylate"),
    ("pepto bismol", "bismuth subsalicylate"), ("Humira", "adalimumab"), ("5-FU", "fluorouracil"),
]


@pytest.mark.parametrize(("name", "canonical"), DRUGS)
def test_canonical_drug(name: str, canonical: str) -> None:
    assert canonical_drug(name) == canonical


CONDITIONS = [
    ("당뇨", "diabetes"), ("당뇨병", "diabetes"), ("diabetes", "diabetes"), ("제2형 당뇨병", "type 2 diabetes"),
    ("2형당뇨", "type 2 diabetes"), ("Type 2 Diabetes", "type 2 diabetes"), ("고혈압", "hypertension"),
    ("high blood pressure", "hypertension"), ("만성 콩팥병", "chronic kidney disease"),
    ("CKD", "chronic kidney disease"),
    ("비호지킨 림프종", "non-hodgkin lymphoma"), ("Non-Hodgkin Lymphoma", "non-hodgkin lymphoma"),
    ("크론병", "crohn's disease"), ("Crohns disease", "crohn's disease"),
    ("급성 골수성 백혈병", "acute myeloid leukemia"),
]


@pytest.mark.parametrize(("name", "canonical"), CONDITIONS)
def test_canonical_condition(name: str, canonical: str) -> None:
    assert canonical_condition(name) == canonical


def test_unknown_names_are_none_and_kinds_do_not_mix() -> None:
    assert canonical_drug("없는약이름") is None
    assert canonical_drug("당뇨") is None
    assert canonical_condition("타이레놀") is None
    assert canonical_drug("") is None


def test_korean_names() -> None:
    assert korean_name("metformin") == "메트포르민"
    assert korean_name("acetaminophen") == "아세트아미노펜"
    assert korean_name("type 2 diabetes") == "제2형 당뇨병"
    assert korean_name("no such thing") is None


FIND = [
    ("당뇨 있고 메트포르민을 500mg 먹어요", [("condition", "diabetes"), ("drug", "metformin")]),
    ("타이레놀은 아이가 먹어도 되나요", [("drug", "acetaminophen")]),
    ("제2형당뇨병이 있어요", [("condition", "type 2 diabetes")]),  # longest match, spacing optional
    ("제 2형 당뇨병", [("condition", "type 2 diabetes")]),
    ("소아 급성 골수성 백혈병 치료", [("condition", "acute myeloid leukemia")]),
    ("성인 뇌·척수 종양", [("condition", "brain and spinal cord tumors")]),
    ("How is non-Hodgkin lymphoma treated?", [("condition", "non-hodgkin lymphoma")]),
    ("I take Tylenol and Zestril", [("drug", "acetaminophen"), ("drug", "lisinopril")]),
    ("nystatin cream", []),  # "statin" inside a word is no drug
    ("통풍구 청소", []),  # a short Korean name needs a particle or a known suffix after it
    ("암호를 잊었어요", []),
    ("간암 환자", [("condition", "liver cancer")]),
    ("통풍이 있어요", [("condition", "gout")]),
    ("당뇨약", [("condition", "diabetes")]),
    ("메트포르민 먹고 혈압은 140/90", [("drug", "metformin")]),  # "먹고 혈압" is no "고혈압"
    ("어린이타이레놀", [("drug", "acetaminophen")]),
    ("어린이부루펜", [("drug", "ibuprofen")]),
    ("최고혈압 140 최저혈압 90", []),  # systolic/diastolic, not hypertension/hypotension
    ("저는고혈압이 있어요", [("condition", "hypertension")]),  # a missing space after a particle
    ("원발성간암", [("condition", "liver cancer")]),
    ("", []),
]


@pytest.mark.parametrize(("text", "expected"), FIND, ids=[t or "empty" for t, _ in FIND])
def test_find_terms(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(t.kind, t.canonical) for t in find_terms(text)] == expected


def test_spans_index_the_folded_text() -> None:
    (term,) = find_terms("I take TYLENOL daily")
    assert (term.start, term.end, term.surface) == (7, 14, "tylenol")


def test_the_bundled_file_names_its_source_and_is_package_data() -> None:
    text = resources.files("graphagents.agents.rag").joinpath("data", "lexicon.json").read_text(encoding="utf-8")
    document = json.loads(text)
    assert "public" in document["source"] and "MedQuAD" in document["source"]
    lexicon = get_lexicon()
    assert len(lexicon.drugs) >= 150 and len(lexicon.conditions) >= 150
    for table in (lexicon.drugs, lexicon.conditions):
        for canonical, entry in table.items():
            assert canonical == canonical.lower() and entry["ko"], canonical


def test_one_name_never_maps_to_two_canonical_names() -> None:
    seen: dict[tuple[str, str], str] = {}
    lexicon = get_lexicon()
    for kind, table in (("drug", lexicon.drugs), ("condition", lexicon.conditions)):
        for canonical, entry in table.items():
            for name in (canonical, *entry["ko"], *entry["en"]):
                key = (kind, re.sub(r"[\s\-'’·]", "", name.lower()))
                assert seen.setdefault(key, canonical) == canonical, (name, canonical, seen[key])


def test_names_marked_corpus_occur_in_the_corpus() -> None:
    text = " ".join(json.loads(line)["text"] for line in CORPUS.open(encoding="utf-8")).lower()
    text += " " + " ".join(json.loads(line)["doc"]["focus"] for line in CORPUS.open(encoding="utf-8")).lower()
    lexicon = get_lexicon()
    missing = []
    for table in (lexicon.drugs, lexicon.conditions):
        for canonical, entry in table.items():
            if entry.get("corpus"):
                names = [canonical, *entry["en"]]
                if not any(re.search(rf"\b{re.escape(n.lower())}", text) for n in names):
                    missing.append(canonical)
    assert missing == []


def test_a_custom_lexicon_document() -> None:
    lexicon = Lexicon({"drugs": {"foo": {"ko": ["푸우"], "en": ["foobrand"]}}, "conditions": {}})
    assert lexicon.canonical("drug", "FooBrand") == "foo"
    assert [t.canonical for t in lexicon.find("푸우를 먹어요")] == ["foo"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("비호지킨 림프종은 어떻게 치료하나요?", ["non-hodgkin lymphoma"]),
        ("골형성부전증 1형의 증상은 무엇인가요?", ["osteogenesis imperfecta"]),
        ("타이레놀이랑 애드빌 같이 먹어도 돼요? 타이레놀은 500mg이에요", ["acetaminophen", "ibuprofen"]),
        ("Can I take Tylenol?", ["acetaminophen"]),
        ("안녕하세요", []),
    ],
)
def test_english_terms_for_a_query_over_english_passages(text: str, expected: list[str]) -> None:
    assert english_terms(text) == expected
