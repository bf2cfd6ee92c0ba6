"""Signatures: what must be equal, beyond a close embedding, for a cached answer to be reused.

A sentence encoder scores "타이레놀 500mg 하루 몇 번?" and "타이레놀 1000mg 하루 몇 번?" at 0.95, above
any useful similarity threshold, yet the answers differ. So a semantic cache is partitioned by a
signature of the slots the answer depends on (drugs, doses and other numbers with units, named
entities, the user's age group ...): two questions can only share an answer when their signatures
are equal. :func:`slot_signature` digests slots an agent extracted; :func:`text_signature` is the
fallback for agents without slot extraction (numbers with their units, quoted strings and entity
words the caller knows). Both err on the safe side: a spurious difference costs a cache miss, a
missed difference would serve a wrong answer.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"|“([^”]+)”|‘([^’]+)’")
# A number, an optional second number after "/" (blood pressure), and an optional unit; longer
# units first so that "mg/dL" is not read as "mg".
_UNITS = ("mg/dl", "mmol/l", "mmhg", "mcg", "µg", "μg", "mg", "kg", "ml", "iu", "kcal", "bpm", "cm", "mm",
          "cc", "g", "l", "%", "캡슐", "개월", "시간", "단위", "등급", "단계", "정", "알", "포", "번", "회", "세", "살",
          "주", "일", "년", "분", "개", "명", "원", "형", "기")
_QUANTITY = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)*)(?:\s*/\s*(\d+(?:[.,]\d+)*))?\s*("
    + "|".join(re.escape(u) for u in _UNITS)
    + r")?(?![a-z])",
    re.IGNORECASE,
)


# Subtype and stage markers written with words or Roman numerals: "type I" vs "type II", "stage IV".
_QUALIFIER = re.compile(r"\b(type|stage|grade|class|phase|step)\s+([ivx]+|[a-d]|\d+[a-c]?)(?![a-z0-9])", re.IGNORECASE)


def qualifiers(text: str) -> list[str]:
    """Subtype and stage markers, canonical: "Osteogenesis imperfecta type II" -> "type ii"."""
    found = _QUALIFIER.findall(unicodedata.normalize("NFKC", text))
    return [f"{kind.lower()} {value.lower()}" for kind, value in found]


def _number(text: str) -> str:
    """'1,000' -> '1000', '2.50' -> '2.5', '07' -> '7': one spelling per value."""
    plain = text.replace(",", "")
    try:
        value = float(plain)
    except ValueError:
        return plain
    return str(int(value)) if value.is_integer() else repr(value)


def quantities(text: str) -> list[str]:
    """Numbers with their units, canonical: "1,000 mg" -> "1000mg", "혈압 140/90" -> "140/90",
    "65세" -> "65세", "type 2" -> "2". Digits only: number words ("하루 두 번") need the Korean
    parsers (their slots go through :func:`slot_signature`)."""
    text = unicodedata.normalize("NFKC", text)
    out = []
    for first, second, unit in _QUANTITY.findall(text):
        value = _number(first) + (f"/{_number(second)}" if second else "")
        out.append(value + unit.lower())
    return out


def literals(text: str, entity_words: Iterable[str] = ()) -> frozenset[str]:
    """Numbers (``#2024``), quoted strings (``'홍길동'``) and the given entity words found in ``text``:
    what must match for a remembered answer to be reused verbatim."""
    text = unicodedata.normalize("NFKC", text).lower()
    found = {f"#{m.replace(',', '')}" for m in _NUMBER.findall(text)}
    found.update(f"'{next(g for g in m if g).strip()}'" for m in _QUOTED.findall(text))
    found.update(w.lower() for w in entity_words if w and w.lower() in text)
    return frozenset(found)


def _canonical(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if isinstance(value, Mapping):
        items = {unicodedata.normalize("NFKC", str(k)).strip().lower(): _canonical(v) for k, v in value.items()}
        return {k: v for k, v in sorted(items.items()) if v not in (None, "", [], {})}
    if isinstance(value, (list, tuple, set, frozenset)):
        members = [_canonical(v) for v in value]
        unique = {json.dumps(v, ensure_ascii=False, sort_keys=True): v for v in members if v not in (None, "", [], {})}
        return [unique[k] for k in sorted(unique)]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return _number(str(value))
    return " ".join(unicodedata.normalize("NFKC", str(value)).lower().split())


def slot_signature(slots: Mapping[str, Any]) -> str:
    """A short stable digest of ``slots``: key order, list order, case, width and spacing do not
    matter, empty values are dropped, numbers compare by value (500 == 500.0 == "500").

    ``slot_signature({"drug": "Tylenol", "dose": "500mg"}) == slot_signature({"dose": "500MG",
    "drug": "tylenol", "age": None})``; ``{"dose": "1000mg"}`` gives another signature.
    """
    blob = json.dumps(_canonical(dict(slots)), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def text_signature(text: str, *, entity_words: Iterable[str] = (), extra: Mapping[str, Any] | None = None) -> str:
    """:func:`slot_signature` of the quantities, subtype/stage markers, quoted strings and known entity
    words in ``text`` (plus ``extra`` slots): for agents that do not extract slots of their own."""
    slots = {"quantities": quantities(text), "qualifiers": qualifiers(text),
             "literals": sorted(literals(text, entity_words)), **(extra or {})}
    return slot_signature(slots)


__all__ = ["literals", "qualifiers", "quantities", "slot_signature", "text_signature"]
