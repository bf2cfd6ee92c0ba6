"""English questions for the offline brain: a Korean gloss of the real-estate words they use.

The statutes, the labelled examples and the data are Korean, so an English question ("What is the
lease renewal right?", "How much are 84 sqm apartments selling for in Gangnam?") is read through a
glossary (``english.yaml``): its words and amounts become the Korean words the planner, the entity
extractor and the statute search understand, appended to the question. Only an English question
gets a gloss; words the glossary does not know are left alone, never guessed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

import yaml

from ..units import format_manwon

PACKAGE = "graphagents.agents.supervisor.offline"
_HANGUL = re.compile(r"[가-힣]")
_LATIN = re.compile(r"[A-Za-z]")
_AMOUNT = re.compile(r"(?:krw|₩)?\s*(\d+(?:\.\d+)?)\s*(billion|million|bn|m)\b\s*(?:won|krw)?", re.I)
_AREA = re.compile(r"(\d+(?:\.\d+)?)\s*(sqm|m2|㎡|square ?met(?:er|re)s?|pyeong|py)\b", re.I)
_ROLES = (("보증금", re.compile(r"deposit|jeonse", re.I)), ("연소득", re.compile(r"income|salary|earn", re.I)),
          ("월세", re.compile(r"monthly|rent", re.I)),
          ("선순위 채권", re.compile(r"senior|mortgage|lien|landlord'?s? (?:loan|debt)", re.I)),
          ("매매가", re.compile(r"apartment|house|home|price|worth|costs?", re.I)))
_WINDOW = 24


def _role(text: str, start: int, end: int) -> str:
    """The role word nearest to an amount ("a 300 million won deposit", "income of 80 million")."""
    best, distance = "", _WINDOW + 1
    for label, pat in _ROLES:
        for m in pat.finditer(text, max(0, start - _WINDOW), min(len(text), end + _WINDOW)):
            d = start - m.end() if m.end() <= start else m.start() - end
            if 0 <= d < distance:
                best, distance = label, d
    return best


@lru_cache(maxsize=1)
def _glossary() -> tuple[re.Pattern[str], dict[str, str]]:
    data = yaml.safe_load(resources.files(PACKAGE).joinpath("english.yaml").read_text("utf-8"))
    table = {str(k).lower(): str(v) for group in ("phrases", "words") for k, v in data[group].items()}
    alternatives = sorted(table, key=len, reverse=True)
    pattern = re.compile(r"(?<![a-z])(" + "|".join(re.escape(a) for a in alternatives) + r")(?![a-z])", re.I)
    return pattern, table


def is_english(text: str) -> bool:
    """Mostly Latin letters: an English question (Korean place names inside it are fine)."""
    latin, hangul = len(_LATIN.findall(text)), len(_HANGUL.findall(text))
    return latin > 0 and latin >= 3 * hangul


def gloss(text: str) -> str:
    """The Korean words an English question stands for ("" when it is not English or nothing matched)."""
    if not is_english(text):
        return ""
    pattern, table = _glossary()
    words: list[str] = []
    for m in _AMOUNT.finditer(text):
        unit = m.group(2).lower()
        manwon = round(float(m.group(1)) * (100_000 if unit in ("billion", "bn") else 100))
        role = _role(text, m.start(), m.end())
        words.append(f"{role} {format_manwon(manwon)}".strip() + ",")
    for m in _AREA.finditer(text):
        unit = "평" if m.group(2).lower().startswith("p") else "㎡"
        words.append(f"{m.group(1)}{unit}")
    for m in pattern.finditer(text):
        for word in table[m.group(1).lower()].split():
            if word not in words:
                words.append(word)
    return " ".join(words)
