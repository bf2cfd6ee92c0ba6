"""Answer metrics: WTQ's official denotation accuracy, and MACT's EM / PM.

``denotation_match`` ports ``evaluator.py`` of WikiTableQuestions v1.0.2 (Pasupat & Liang,
CC BY-SA 4.0): values are normalised (diacritics, quotes, dashes, citations, parentheses, a
final period, case), parsed as numbers or ``yyyy-mm-dd`` dates when they can be, and the
predicted list must match the gold list as a set. The official run also reads CoreNLP-normalised
gold values from WTQ's tagged files; the shared dev set carries only the answer strings, so both
sides are parsed from their strings (the evaluator's fallback), as MACT does.

``exact_match`` and ``partial_match`` are the MMQA metrics of MACT's fork: case-insensitive exact
match after strip (numbers equal within 0.01), and the Jaccard overlap of lower-cased whitespace
tokens.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["answer_strings", "denotation_match", "exact_match", "normalize", "partial_match", "to_value"]


MAX_NORMALIZED = 1000
"""Longest text given WTQ's trailing-mark trims; a longer one (no gold is that long) is only
lower-cased and its spaces folded: the trim patterns backtrack on long runs of ``[`` or ``*``."""


def normalize(text: str) -> str:
    """WTQ's string normalisation."""
    if len(text) > MAX_NORMALIZED:
        return " ".join(text.split()).lower()
    x = "".join(c for c in unicodedata.normalize("NFKD", text) if unicodedata.category(c) != "Mn")
    x = re.sub(r"[‘’´`]", "'", x)
    x = re.sub(r"[“”]", '"', x)
    x = re.sub(r"[‐‑‒–—−]", "-", x)
    while True:
        old = x
        x = re.sub(r"((?<!^)\[[^\]]*\]|\[\d+\]|[•♦†‡*#+])*$", "", x.strip())  # citations
        x = re.sub(r"(?<!^)( \([^)]*\))*$", "", x.strip())  # details in parentheses
        x = re.sub(r'^"([^"]*)"$', r"\1", x.strip())  # outer quotes
        if x == old:
            break
    if x and x[-1] == ".":
        x = x[:-1]
    return re.sub(r"\s+", " ", x, flags=re.U).lower().strip()


@dataclass(frozen=True)
class _Value:
    normalized: str
    number: float | None = None
    date: tuple[int, int, int] | None = None

    def match(self, other: _Value) -> bool:
        if self.number is not None and other.number is not None:
            return abs(self.number - other.number) < 1e-6
        if self.date is not None and other.date is not None:
            return self.date == other.date
        return self.normalized == other.normalized


def _parse_number(text: str) -> float | None:
    try:
        return float(int(text))
    except ValueError:
        try:
            amount = float(text)
        except ValueError:
            return None
        return None if math.isnan(amount) or math.isinf(amount) else amount


def _parse_date(text: str) -> tuple[int, int, int] | None:
    parts = text.lower().split("-")
    if len(parts) != 3:
        return None
    try:
        year = -1 if parts[0] in ("xx", "xxxx") else int(parts[0])
        month = -1 if parts[1] == "xx" else int(parts[1])
        day = -1 if parts[2] == "xx" else int(parts[2])
    except ValueError:
        return None
    if year == month == day == -1 or not (month == -1 or 1 <= month <= 12) or not (day == -1 or 1 <= day <= 31):
        return None
    return year, month, day


def to_value(text: str) -> _Value:
    """A number, a date or a string, as WTQ's ``to_value`` decides from the text."""
    norm = normalize(text)
    amount = _parse_number(text)
    if amount is not None:
        return _Value(norm, number=amount)
    ymd = _parse_date(text)
    if ymd is not None:
        if ymd[1] == ymd[2] == -1:
            return _Value(norm, number=float(ymd[0]))
        return _Value(norm, date=ymd)
    return _Value(norm)


def denotation_match(gold: Sequence[str], predicted: Sequence[str]) -> bool:
    """WTQ's ``check_denotation`` on de-duplicated value lists."""
    targets = list(dict.fromkeys(to_value(g) for g in gold))
    preds = list(dict.fromkeys(to_value(p) for p in predicted))
    if len(targets) != len(preds):
        return False
    return all(any(t.match(p) for p in preds) for t in targets)


def _em_number(text: str) -> float | None:
    cleaned = text.replace(",", "").strip()
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def exact_match(gold: str, predicted: str) -> bool:
    """MACT / MMQA EM: case-insensitive equality after strip; numbers within 0.01."""
    g, p = gold.strip().lower(), predicted.strip().lower()
    if g == p:
        return True
    gn, pn = _em_number(g), _em_number(p)
    return gn is not None and pn is not None and abs(gn - pn) <= 0.01


def partial_match(gold: str, predicted: str) -> float:
    """MACT / MMQA PM: |pred ∩ gold| / |pred ∪ gold| over lower-cased whitespace tokens."""
    g, p = set(gold.lower().split()), set(predicted.lower().split())
    if not g and not p:
        return 1.0
    return len(g & p) / len(g | p)


def answer_strings(values: Iterable[object]) -> list[str]:
    """Answer values as the strings the metrics compare: integral floats without '.0'."""
    out = []
    for value in values:
        if isinstance(value, float) and value.is_integer():
            out.append(str(int(value)))
        elif isinstance(value, float):
            out.append(f"{value:.10g}")
        else:
            out.append(str(value))
    return out
