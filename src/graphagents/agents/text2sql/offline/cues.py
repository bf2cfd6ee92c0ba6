"""Words that change what a question means, found with their positions.

"리뷰가 한 번도 *없는* 상품", "*Which* employee", "주문 *마다*", "*more than* the average", "서울*만*",
"*both* A and B": drop one of these and the SQL answers a different question, with the same
confidence. :func:`find_cues` lists every such word; :mod:`.meaning` then checks that the composed
SQL expresses each one, and the composer declines when one is not.

Korean cues are read from Kiwi morphemes (so "없" is found in 없는/없고/없었던 and the particle
"만" is told apart from the number "10만"); English cues from words. Comparative words are looked
for only in ``Frame.leftover``: a comparison the parser understood ("100만원 이상", "more than 5")
is blanked there, so what remains is a comparison nobody turned into SQL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from . import lexicon as lx
from .parse import Frame

__all__ = ["Cue", "CueKind", "DESC_WORDS", "ASC_WORDS", "find_cues"]

CueKind = Literal[
    "negation", "each", "entity", "comparative", "only", "both", "or", "ordinal", "same", "change",
    "statistic", "order",
]


@dataclass(frozen=True)
class Cue:
    kind: CueKind
    word: str
    start: int
    end: int


# Korean morphemes: (form, tag prefix) -> kind.
_KO_MORPHEMES: dict[tuple[str, str], CueKind] = {
    ("없", "VA"): "negation", ("안", "MAG"): "negation", ("않", "VX"): "negation", ("못", "MAG"): "negation",
    ("아니", "VCN"): "negation", ("말", "VX"): "negation", ("말", "VV"): "negation", ("제외", "NNG"): "negation",
    ("빼", "VV"): "negation", ("외", "NNB"): "negation", ("외", "NNG"): "negation",
    ("마다", "JX"): "each", ("씩", "XSN"): "each", ("각", "MM"): "each", ("각각", "MAG"): "each",
    ("당", "XSN"): "each", ("별", "XSN"): "each",
    ("누구", "NP"): "entity", ("어느", "MM"): "entity", ("어떤", "MM"): "entity", ("무슨", "MM"): "entity",
    ("어디", "NP"): "entity",
    ("만", "JX"): "only", ("뿐", "NNB"): "only", ("뿐", "JX"): "only", ("오직", "MAG"): "only",
    ("또는", "MAG"): "or", ("혹은", "MAG"): "or", ("이나", "JC"): "or", ("나", "JC"): "or",
    ("거나", "EC"): "or",
}  # fmt: skip
_KO_WORDS: tuple[tuple[re.Pattern[str], CueKind], ...] = (
    (re.compile(r"둘\s?다|둘\s?모두|양쪽\s?모두|양쪽"), "both"),
    (re.compile(r"같은|동일한|똑같은"), "same"),
    (re.compile(r"차이|증가|감소|늘어난|줄어든|증감|변화|성장률?|상승|하락"), "change"),
    (re.compile(r"중앙값|중간값|최빈값|표준\s?편차|분산|백분위|사분위|이동\s?평균"), "statistic"),
    (re.compile(r"순으로|순서대로|순서로|정렬|차순"), "order"),
)
_KO_LEFTOVER: tuple[tuple[re.Pattern[str], CueKind], ...] = (
    (re.compile(r"보다|이상|이하|초과|미만|넘[는게은어었]|이내|(?<![가-힣])더(?=\s|[가-힣]{2})|(?<![가-힣])덜"),
     "comparative"),
    (re.compile(r"\d+\s?번\s?째|(?<![가-힣])[두세네]\s?번\s?째|둘째|셋째|넷째"), "ordinal"),
)
_EN_WORDS: tuple[tuple[re.Pattern[str], CueKind], ...] = (
    (re.compile(r"\b(?:not|never|none|without|neither|nor|except|excluding|exclude[ds]?|other than|besides)\b"
                r"|\bno\b(?!\.)|\w+n't\b|\bnon-", re.I), "negation"),
    (re.compile(r"\b(?:each|every|per|respectively)\b", re.I), "each"),
    (re.compile(r"\b(?:which|who|whom|whose)\b", re.I), "entity"),
    (re.compile(r"\b(?:only|solely|exclusively)\b", re.I), "only"),
    (re.compile(r"\bboth\b", re.I), "both"),
    (re.compile(r"\bsame\b", re.I), "same"),
    (re.compile(r"\b(?:difference|differ(?:s|ed)?|change[ds]?|increase[ds]?|decrease[ds]?|growth|grew|grow\w*"
                r"|decline[ds]?|dropped|rise|rose)\b", re.I), "change"),
    (re.compile(r"\b(?:median|variance|standard deviation|std\s?dev\w*|percentile\w*|quartile\w*"
                r"|moving average|running total)\b", re.I), "statistic"),
    (re.compile(r"\b(?:sort(?:ed)?|order(?:ed)?\s+(?:by|alphabetically|from)|alphabetical(?:ly)?|ascending"
                r"|descending|in\s+(?:ascending|descending|alphabetical|reverse)\s+order|in\s+order\s+of)\b", re.I),
     "order"),
)
_EN_LEFTOVER: tuple[tuple[re.Pattern[str], CueKind], ...] = (
    (re.compile(r"\b(?:than|more|less|fewer|greater|higher|lower|larger|smaller|bigger|cheaper|older|younger"
                r"|newer|longer|shorter|exceed\w*|at least|at most|between)\b"
                r"|\b(?:over|under|above|below)\s+(?:\$?\d|a |one |two |three |four |five |ten |hundred )", re.I),
     "comparative"),
    (re.compile(r"\b(?:second|third|fourth|fifth|\d+(?:st|nd|rd|th))\b", re.I), "ordinal"),
    (re.compile(r"\b(?:or|either)\b", re.I), "or"),
)
DESC_WORDS = re.compile(
    r"내림차순|높은\s?순|많은\s?순|큰\s?순|비싼\s?순|최신\s?순|\bdesc(?:ending)?\b"
    r"|\b(?:largest|highest|most|longest|biggest|newest|latest|greatest)\s+to\s+(?:the\s+)?\w+", re.I)
ASC_WORDS = re.compile(
    r"오름차순|낮은\s?순|적은\s?순|작은\s?순|싼\s?순|오래된\s?순|\basc(?:ending)?\b|\balphabetical(?:ly)?\b"
    r"|\b(?:smallest|lowest|least|shortest|oldest|earliest|fewest)\s+to\s+(?:the\s+)?\w+|\ba\s+to\s+z\b", re.I)


def find_cues(frame: Frame) -> list[Cue]:
    cues = _korean(frame) if frame.lang == "ko" else _english(frame)
    return sorted(set(cues), key=lambda c: (c.start, c.kind))


def _korean(frame: Frame) -> list[Cue]:
    text = frame.text
    out: list[Cue] = []
    tokens = lx.korean_tokens(text)
    for i, tok in enumerate(tokens):
        kind = _KO_MORPHEMES.get((tok.form, tok.tag))
        if kind is None:
            continue
        after = tokens[i + 1].form if i + 1 < len(tokens) else ""
        if kind == "entity" and tok.form == "어느" and after == "정도":
            continue  # "어느 정도" is "how much", not "which one"
        if kind == "only" and i and tokens[i - 1].tag in ("SN", "NR"):
            continue  # "10만": a number, not the particle
        out.append(Cue(kind, text[tok.start:tok.end], tok.start, tok.end))
    out += _matches(text, _KO_WORDS)
    out += _matches(frame.leftover or text, _KO_LEFTOVER)
    return out


_PREPOSITIONS = frozenset({"in", "of", "to", "for", "from", "at", "by", "with", "on", "about", "and", "or"})


def _english(frame: Frame) -> list[Cue]:
    text = frame.text
    cues = _matches(text, _EN_WORDS) + _matches(frame.leftover or text, _EN_LEFTOVER)
    return [c for c in cues if c.kind != "entity" or _interrogative(text, c)]


def _interrogative(text: str, cue: Cue) -> bool:
    """'Which store ...?', 'In which city ...': a question word; 'customers who joined': a relative clause."""
    before = re.findall(r"[A-Za-z']+", text[: cue.start])
    return not before or before[-1].lower() in _PREPOSITIONS


def _matches(text: str, patterns: tuple[tuple[re.Pattern[str], CueKind], ...]) -> list[Cue]:
    return [Cue(kind, m[0].strip(), m.start(), m.end()) for pattern, kind in patterns for m in pattern.finditer(text)]
