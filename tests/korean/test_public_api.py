"""graphagents.korean exports exactly its public API, and nothing public is left out of it."""

from __future__ import annotations

import types

import graphagents.korean as korean

EXPECTED = [
    "PYEONG_M2", "AmountMatch", "Area", "ConfirmationCues", "Dose", "Morph", "PhoneMatch", "Repair", "YesNo",
    "classify_repair", "classify_yes_no", "compact", "confirmation_cues", "confirmation_intent",
    "extract_person_name", "extract_phone", "find_amounts", "find_phones", "fix_particles", "fold", "format_krw",
    "get_kiwi", "has_affirmation", "has_final_consonant", "has_negation", "is_hangul", "is_hesitation",
    "is_korean_name", "m2_to_pyeong", "mask_phone", "mask_phones_in_text", "morphemes", "normalize",
    "parse_amount", "parse_area", "parse_doses", "parse_number", "pyeong_to_m2", "scrub", "split_clauses",
    "strip_endings", "strip_particles", "tokenize", "PhonePart", "QuestionKind", "classify_question",
    "find_phone_parts", "loose", "respell", "strip_hesitation", "with_phone_part", "QuestionTopic", "question_topic",
    "search_terms", "AddressMatch", "DateMatch", "NameMatch", "find_addresses", "find_dates", "find_person_names",
]


def test_all_is_the_public_api() -> None:
    assert sorted(korean.__all__) == sorted(EXPECTED)


def test_all_matches_what_the_package_defines() -> None:
    public = {name for name, value in vars(korean).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType) and name != "annotations"}
    assert public == set(korean.__all__)


def test_modules_are_private() -> None:
    modules = [name for name, value in vars(korean).items() if isinstance(value, types.ModuleType)]
    assert modules and all(name.startswith("_") for name in modules), modules
