"""Korean text for every agent: one normalisation policy, the Kiwi analyser, and readers for the
things Korean users say: won amounts, phone numbers, names, yes/no, confirmations, conversation
repairs, floor areas, doses, calendar dates and postal addresses, plus content morphemes for indexing.

    from graphagents.korean import parse_amount, parse_area, parse_doses, classify_yes_no
    parse_amount("3억 5천")        # 350_000_000
    parse_area("30평대")           # Area(99.2 m² .. 132.2 m²)
    classify_yes_no("필요 없어요")  # "no"

Every reader applies ``normalize`` to its input first, and spans it returns index the normalised
text, so a caller that keeps spans should normalise once and pass the normalised text.
"""

from ._addresses import AddressMatch, find_addresses
from ._amounts import AmountMatch, find_amounts, format_krw, parse_amount, parse_number
from ._analyser import Morph, get_kiwi, split_clauses, tokenize
from ._area import PYEONG_M2, Area, m2_to_pyeong, parse_area, pyeong_to_m2
from ._confirm import ConfirmationCues, confirmation_cues, confirmation_intent
from ._dates import DateMatch, find_dates
from ._doses import Dose, parse_doses
from ._morphemes import morphemes, search_terms
from ._names import NameMatch, extract_person_name, find_person_names, is_korean_name
from ._particles import fix_particles, has_final_consonant, strip_endings, strip_particles
from ._phones import (
    PhoneMatch,
    PhonePart,
    extract_phone,
    find_phone_parts,
    find_phones,
    mask_phone,
    mask_phones_in_text,
    with_phone_part,
)
from ._questions import QuestionKind, QuestionTopic, classify_question, question_topic
from ._repair import Repair, classify_repair, is_hesitation, strip_hesitation
from ._spelling import loose, respell
from ._text import compact, fold, is_hangul, normalize, scrub
from ._yesno import YesNo, classify_yes_no, has_affirmation, has_negation

__all__ = [
    "AddressMatch",
    "DateMatch",
    "NameMatch",
    "find_addresses",
    "find_dates",
    "find_person_names",
    "QuestionTopic",
    "question_topic",
    "with_phone_part",
    "strip_hesitation",
    "respell",
    "loose",
    "find_phone_parts",
    "classify_question",
    "QuestionKind",
    "PhonePart",
    "PYEONG_M2",
    "AmountMatch",
    "Area",
    "ConfirmationCues",
    "Dose",
    "Morph",
    "PhoneMatch",
    "Repair",
    "YesNo",
    "classify_repair",
    "classify_yes_no",
    "compact",
    "confirmation_cues",
    "confirmation_intent",
    "extract_person_name",
    "extract_phone",
    "find_amounts",
    "find_phones",
    "fix_particles",
    "fold",
    "format_krw",
    "get_kiwi",
    "has_affirmation",
    "has_final_consonant",
    "has_negation",
    "is_hangul",
    "is_hesitation",
    "is_korean_name",
    "m2_to_pyeong",
    "mask_phone",
    "mask_phones_in_text",
    "morphemes",
    "normalize",
    "parse_amount",
    "parse_area",
    "parse_doses",
    "parse_number",
    "pyeong_to_m2",
    "scrub",
    "search_terms",
    "split_clauses",
    "strip_endings",
    "strip_particles",
    "tokenize",
]
