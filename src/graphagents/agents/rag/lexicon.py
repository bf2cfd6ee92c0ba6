"""The rag agent's drug and condition lexicon: Korean and English names -> one canonical name.

"타이레놀", "아세트아미노펜", "Tylenol", "paracetamol" and "acetaminophen" are one drug, and a cached
answer, a profile entry and a retrieval query must all say so. The names live in
``data/lexicon.json`` (written by hand from public knowledge; its ``source`` field says so and
marks the names taken from the MedQuAD corpus). Canonical names are English generic names
("acetaminophen") and English condition names ("type 2 diabetes"); :func:`korean_name` gives the
Korean name for replies and the profile summary.

:func:`find_terms` scans text once with a character trie (longest match first). Spaces, hyphens,
apostrophes and middle dots are optional inside a name ("제2형당뇨병" == "제 2형 당뇨병",
"non-Hodgkin" == "non hodgkin"), Korean particles may follow a name ("메트포르민을", "타이레놀은"),
and Latin names need word boundaries ("statin" is not found in "nystatin"). Korean names of up to three
syllables need a word start on the left (or a known prefix: "소아당뇨", "어린이부루펜"), so "최고혈압"
names no "고혈압"; names of one or two syllables ("당뇨", "통풍", "암") also need a particle or a
known suffix on the right, so "통풍구" and "암호" are not conditions. A match that starts inside a word
never skips a space ("먹고 혈압" is no "고혈압").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from graphagents.korean import fold, is_hangul, strip_particles

__all__ = [
    "Lexicon",
    "Term",
    "TermKind",
    "canonical_condition",
    "canonical_drug",
    "english_terms",
    "find_terms",
    "get_lexicon",
    "korean_name",
]

TermKind = Literal["drug", "condition"]

# Characters that may appear or not inside a name: "non-hodgkin", "crohn's", "뇌·척수", "제 2형".
_OPTIONAL = frozenset(" -'’·‐")
# What may follow a short Korean name: particles, copulas and the nouns that make a compound about
# the same thing ("당뇨약", "당뇨환자", "암환자", "통풍약").
_SHORT_SUFFIXES = (
    "이랑", "으로", "에서", "에는", "이고", "이에요", "이예요", "예요", "에요", "인데", "이라", "라서", "이라서",
    "환자", "약", "치료", "진단", "수치", "검사", "증상", "때문", "있", "없", "이", "가", "은", "는", "을", "를",
    "에", "로", "도", "만", "과", "와", "랑", "하고", "의", "요", "병", "기", "끼", "이나", "나", "같", "인",
)


@dataclass(frozen=True, slots=True)
class Term:
    """A drug or condition name found in text; ``start``/``end`` index ``fold(text)``."""

    kind: TermKind
    canonical: str
    surface: str
    start: int
    end: int


def _key(name: str) -> str:
    return "".join(ch for ch in fold(name) if ch not in _OPTIONAL)


class Lexicon:
    """Names from a lexicon document (the shape of ``data/lexicon.json``)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.source: str = str(document.get("source", ""))
        self.drugs: dict[str, dict[str, Any]] = dict(document.get("drugs", {}))
        self.conditions: dict[str, dict[str, Any]] = dict(document.get("conditions", {}))
        self._names: dict[tuple[TermKind, str], str] = {}
        self._trie: dict[str, Any] = {}
        for kind, table in (("drug", self.drugs), ("condition", self.conditions)):
            for canonical, entry in table.items():
                for name in (canonical, *entry.get("ko", ()), *entry.get("en", ())):
                    self._add(kind, canonical, name)  # type: ignore[arg-type]

    def _add(self, kind: TermKind, canonical: str, name: str) -> None:
        key = _key(name)
        if not key:
            return
        self._names.setdefault((kind, key), canonical)
        node = self._trie
        for ch in key:
            node = node.setdefault(ch, {})
        node.setdefault("", (kind, canonical))

    def canonical(self, kind: TermKind, name: str) -> str | None:
        key = _key(name)
        found = self._names.get((kind, key))
        if found is None and key:
            found = self._names.get((kind, _key(strip_particles(fold(name)))))
        return found

    def korean_name(self, canonical: str) -> str | None:
        entry = self.drugs.get(canonical) or self.conditions.get(canonical)
        if entry is None:
            return None
        names = entry.get("ko") or []
        return str(names[0]) if names else None

    def find(self, text: str) -> list[Term]:
        """Every name in ``text``, longest match first, not overlapping, in reading order."""
        low = fold(text)
        found: list[Term] = []
        i, n = 0, len(low)
        while i < n:
            if low[i] in _OPTIONAL or not _left_ok(low, i):
                i += 1
                continue
            best: tuple[int, TermKind, str] | None = None
            node, j = self._trie, i
            # A match that starts inside a word may not skip a space: "먹고 혈압" is no "고혈압".
            mid_word = i > 0 and is_hangul(low[i - 1]) and is_hangul(low[i])
            skipped = False
            while j < n:
                ch = low[j]
                if ch in node:
                    node = node[ch]
                    j += 1
                    if "" in node and _right_ok(low, i, j) and not (mid_word and skipped):
                        best = (j, *node[""])
                elif ch in _OPTIONAL and j > i:
                    skipped = skipped or ch.isspace()
                    j += 1
                else:
                    break
            if best is None:
                i += 1
                continue
            end, kind, canonical = best
            found.append(Term(kind, canonical, low[i:end], i, end))
            i = end
        return found


def _left_ok(low: str, i: int) -> bool:
    if i == 0:
        return True
    prev, ch = low[i - 1], low[i]
    if ch.isascii() and ch.isalnum():
        return not (prev.isascii() and prev.isalnum())
    return True


def _right_ok(low: str, start: int, end: int) -> bool:
    last = low[end - 1]
    nxt = low[end] if end < len(low) else ""
    if last.isascii() and last.isalnum():
        return not (nxt.isascii() and nxt.isalnum())
    if is_hangul(last):
        syllables = sum(1 for ch in low[start:end] if is_hangul(ch))
        if syllables > 3:
            return True
        if start > 0 and is_hangul(low[start - 1]) and not _particle_before(low, start):
            return False  # "최고혈압" is no "고혈압"; "소아당뇨", "어린이부루펜" are
        return syllables > 2 or not nxt or not is_hangul(nxt) or low.startswith(_SHORT_SUFFIXES, end)
    return True


# A short name may follow a word that ends in a particle or a prefix: "제2형당뇨", "소아당뇨".
_PREFIXES = ("소아", "성인", "만성", "급성", "제1형", "제2형", "형", "노인", "임신성", "어린이", "유아용", "소아용",
             "성인용", "아기", "우리", "말기", "초기", "원발성", "선천성", "재발성", "전이성")


# A particle or a connective ending right before a name is a missing space: "저는고혈압이 있어요".
_PARTICLE_ENDS = frozenset("는은가이도를을에의와과랑고서")


def _particle_before(low: str, start: int) -> bool:
    return low[:start].endswith(_PREFIXES) or low[start - 1] in _PARTICLE_ENDS


@lru_cache(maxsize=1)
def get_lexicon() -> Lexicon:
    """The bundled lexicon (``data/lexicon.json``), loaded once."""
    text = resources.files(__package__).joinpath("data", "lexicon.json").read_text(encoding="utf-8")
    return Lexicon(json.loads(text))


def canonical_drug(name: str) -> str | None:
    """The canonical (English generic) name of a drug name: "타이레놀" -> "acetaminophen",
    "Glucophage" -> "metformin", "메트포르민을" -> "metformin"; None when unknown."""
    return get_lexicon().canonical("drug", name)


def canonical_condition(name: str) -> str | None:
    """The canonical (English) name of a condition: "고혈압" -> "hypertension", "제2형 당뇨병" ->
    "type 2 diabetes", "high blood pressure" -> "hypertension"; None when unknown."""
    return get_lexicon().canonical("condition", name)


def korean_name(canonical: str) -> str | None:
    """The Korean name of a canonical drug or condition: "metformin" -> "메트포르민"."""
    return get_lexicon().korean_name(canonical)


def find_terms(text: str) -> list[Term]:
    """Drug and condition names in ``text`` (longest match, particles allowed after Korean names)."""
    return get_lexicon().find(text)


def english_terms(text: str) -> list[str]:
    """The canonical English names of the drugs and conditions ``text`` names, in order, once each:
    what a Korean question adds to a BM25 query over English passages ("비호지킨 림프종은 어떻게
    치료하나요?" -> ["non-hodgkin lymphoma"], "타이레놀 먹어도 돼요?" -> ["acetaminophen"]), and
    what an English brand name adds ("Tylenol" -> ["acetaminophen"])."""
    return list(dict.fromkeys(term.canonical for term in find_terms(text)))
