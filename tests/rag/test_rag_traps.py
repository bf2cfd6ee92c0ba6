"""Cache traps: every trap pair's question signatures differ, every paraphrase pair's are equal.

Two files in one format (the shared ``dev/cache_traps.jsonl`` format: ``pair_id``, ``kind``,
``answers_must_differ``, ``a``/``b`` each with ``question``, ``question_ko`` and ``profile``):

- ``tests/rag/data/dose_traps.jsonl`` (ours): drug, dose, frequency, interval, count, age, age-group,
  weight, pregnancy, breastfeeding, condition and profile traps (``answers_must_differ: true``) and
  true paraphrases (``kind: "paraphrase"``, ``answers_must_differ: false``), in Korean and English.
- the shared 19 MedQuAD trap pairs. All 19 are separated by the signature itself, in both languages,
  given each side's profile: the 3 ``profile`` pairs (identical wording) by the age group taken from
  the profile (52 -> adult, 9 -> child), the ``condition`` pair ("제 혈압 목표치는?", first person) by the
  profile's conditions; none needs the separate user scope (profile hash) to be told apart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphagents.agents.rag.slots import question_signature
from graphagents.packagedata import package_path

HERE = Path(__file__).resolve().parent
OURS = HERE / "data" / "dose_traps.jsonl"
SHARED = package_path("graphagents.agents.rag", "evaldata", "dev_cache_traps.jsonl")
LANGUAGES = ("question", "question_ko")


def _load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def _signatures(pair: dict[str, Any], key: str) -> tuple[dict[str, str], dict[str, str]]:
    a, b = pair["a"], pair["b"]
    return question_signature(a[key], a["profile"]), question_signature(b[key], b["profile"])


PAIRS = _load(OURS)
TRAPS = [p for p in PAIRS if p["answers_must_differ"]]
PARAPHRASES = [p for p in PAIRS if not p["answers_must_differ"]]


def test_the_trap_file_has_the_promised_size_and_format() -> None:
    assert len(TRAPS) >= 20 and len(PARAPHRASES) >= 15
    assert len({p["pair_id"] for p in PAIRS}) == len(PAIRS)
    kinds = {p["kind"] for p in TRAPS}
    assert {"dose", "frequency", "age_group", "pregnancy", "profile", "drug", "condition"} <= kinds
    assert {p["kind"] for p in PARAPHRASES} == {"paraphrase"}
    for pair in PAIRS:
        for side in (pair["a"], pair["b"]):
            assert side["question"] and side["question_ko"] and isinstance(side["profile"], dict)
            assert any("가" <= ch <= "힣" for ch in side["question_ko"])
            assert not any("가" <= ch <= "힣" for ch in side["question"])


@pytest.mark.parametrize("key", LANGUAGES)
@pytest.mark.parametrize("pair", TRAPS, ids=[p["pair_id"] for p in TRAPS])
def test_every_trap_pair_has_different_signatures(pair: dict[str, Any], key: str) -> None:
    sig_a, sig_b = _signatures(pair, key)
    assert sig_a != sig_b, (pair["a"][key], pair["b"][key], sig_a)


@pytest.mark.parametrize("key", LANGUAGES)
@pytest.mark.parametrize("pair", PARAPHRASES, ids=[p["pair_id"] for p in PARAPHRASES])
def test_every_paraphrase_pair_has_equal_signatures(pair: dict[str, Any], key: str) -> None:
    sig_a, sig_b = _signatures(pair, key)
    assert sig_a == sig_b
    assert sig_a  # each paraphrase pair is about something the signature reads


@pytest.mark.parametrize("key", LANGUAGES)
def test_the_shared_trap_pairs_are_separated_by_signature(key: str) -> None:
    pairs = _load(SHARED)
    assert len(pairs) == 19 and all(p["answers_must_differ"] for p in pairs)
    same = [p["pair_id"] for p in pairs if _signatures(p, key)[0] == _signatures(p, key)[1]]
    assert same == []


def test_profile_pairs_are_separated_by_the_profile_not_the_wording() -> None:
    profile_pairs = [p for p in _load(SHARED) if p["kind"] in ("profile", "condition")]
    assert len(profile_pairs) == 4  # 3 profile pairs and 1 condition pair in the dev split
    for pair in profile_pairs:
        for key in LANGUAGES:
            assert pair["a"][key] == pair["b"][key]
            # without the profiles the two sides are the same question
            assert question_signature(pair["a"][key]) == question_signature(pair["b"][key])
            sig_a, sig_b = _signatures(pair, key)
            assert sig_a != sig_b


def test_korean_and_english_versions_of_a_question_have_the_same_signature() -> None:
    files = [OURS, SHARED]
    mismatched = []
    for path in files:
        for pair in _load(path):
            for side in (pair["a"], pair["b"]):
                en = question_signature(side["question"], side["profile"])
                ko = question_signature(side["question_ko"], side["profile"])
                if en != ko:
                    mismatched.append((side["question"], en, side["question_ko"], ko))
    assert mismatched == []
