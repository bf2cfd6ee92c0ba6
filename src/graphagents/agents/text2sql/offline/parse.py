"""Question text -> intent frame: which SQL constructs the words ask for, before any schema is seen.

Cues are found on the raw text and their spans masked, so that the words left over ("서울", "가격",
"books") are the ones that name schema elements or values. Korean is cut into morphemes with Kiwi
(particles and endings dropped, adjacent nouns kept together as a chunk: "배송 완료" is one value);
English is split on words and cut into chunks at stop words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from ....korean import parse_number
from . import lexicon as lx
from .dates import DateExpr, find_dates

__all__ = ["Comparison", "Frame", "GroupCue", "Term", "parse_question"]

CmpOp = Literal[">=", "<=", ">", "<", "="]


@dataclass(frozen=True)
class Term:
    """A chunk of content words; ``parts`` are its single words, tried when the whole chunk fails."""

    text: str
    parts: tuple[str, ...]
    start: int
    end: int
    proper: bool = False  # a proper noun / foreign word / quoted string: must link or we refuse
    offsets: tuple[int, ...] = ()  # start of each part
    proper_parts: tuple[bool, ...] = ()


@dataclass(frozen=True)
class Comparison:
    op: CmpOp
    value: int | float
    start: int
    end: int
    unit: str = ""


@dataclass(frozen=True)
class GroupCue:
    word: str
    bucket: lx.TimeBucket | None
    start: int


@dataclass
class Frame:
    text: str
    lang: Literal["ko", "en"]
    aggs: list[tuple[lx.AggFunc, int]] = field(default_factory=list)  # (func, position)
    groups: list[GroupCue] = field(default_factory=list)
    top_n: int | None = None
    desc: bool | None = None  # direction of a top-N / superlative / "순으로"
    superlative: str | None = None  # the adjective of "가장 비싼", "most expensive"
    superlative_pos: int = -1
    order_word: str | None = None  # "가격 순으로" -> "가격"
    comparisons: list[Comparison] = field(default_factory=list)
    date: DateExpr | None = None
    terms: list[Term] = field(default_factory=list)
    verbs: list[str] = field(default_factory=list)
    distinct: bool = False
    total: bool = False  # "총", "전체", "total": an explicit whole-table aggregate
    numbers: list[tuple[int | float, int]] = field(default_factory=list)  # bare numbers: ids, "rating of 1"
    ratio: bool = False  # "비율", "what fraction": share of rows meeting the filters
    percent: bool = False  # "몇 퍼센트", "percentage": the share times 100
    base_span: tuple[int, int] | None = None  # "VIP 고객 중", "among VIP customers": the share's base
    versus: bool = False  # "online versus offline": compare the values side by side
    unparsed_superlative: bool = False  # "가장" left over: a ranking we do not understand
    more_superlatives: list[tuple[bool, int]] = field(default_factory=list)  # "제일 비싼 거랑 제일 싼 거"
    leftover: str = ""  # the text with every understood cue blanked: what no construct accounted for
    alphabetical: bool = False  # "alphabetically", "in alphabetical order": sort by the rows' name


_QUOTED = re.compile(r"['\"“‘「『]([^'\"”’」』]+)['\"”’」』]")
_KO_CMP_RE = re.compile(
    r"(?P<num>\d[\d,]*(?:\.\d+)?\s?(?:[십백천만억]+\d[\d,]*(?:\.\d+)?)*[십백천만억]*"
    r"|(?<![가-힣])(?:[일이삼사오육칠팔구]?[십백천만억])+)\s?"
    r"(?P<unit>원|개|명|점|건|회|번|세|살|%|권|일|년|시간|분|kg|g|km|m)?\s?(?:이|가|을|를|은|는)?\s?"
    r"(?P<cue>이상|이하|초과|미만|넘는|넘게|넘은|보다\s?(?:큰|많은|높은|작은|적은|낮은|비싼|싼)|인|짜리)(?:인|의)?"
)
_EN_CMP_RE = re.compile(
    r"\b(" + "|".join(sorted((re.escape(k) for k in lx.EN_CMP), key=len, reverse=True)) + r")\s+"
    r"(\$?\d[\d,]*(?:\.\d+)?)\s*(k|thousand|million|billion)?\b\s*(won|krw|원|times|reviews?|orders?)?",
    re.I,
)
_EN_CMP_AFTER = re.compile(
    r"(\$?\d[\d,]*(?:\.\d+)?)\s*(?:([a-z]+|원)\s+)?"
    r"(or more|or less|or fewer|or above|or below|and above|and up|and below)\b", re.I)
_DISTINCT = ("서로 다른", "중복 없이", "중복없이", "고유한", "distinct", "unique", "different")
_KO_CHUNK_TAGS = {"NNG", "NNP", "NNB", "SL", "SH", "XPN"}
_NUMBER = re.compile(
    r"(?:\b(?:ID|Id|id|number|no\.?|#)\s*|번호\s*)?(?<![\w.])(\d+(?:\.\d+)?)(?:\s*번째|\s*번)?(?![\d,.]?\d)"
)
_EN_ORDER_BY = re.compile(r"\b(?:sorted|ordered|ranked)\s+by\s+(?:the\s+)?([a-z_ ]+?)(\s+(asc|desc)\w*)?\b", re.I)
_EN_DIRECTION = re.compile(
    r"\b(?:in\s+)?(descending|ascending|reverse|alphabetical)\s+order\b|\b(alphabetically)\b"
    r"|\bfrom\s+(?:the\s+)?(largest|highest|most|longest|biggest|newest|latest|greatest|smallest|lowest|least"
    r"|shortest|oldest|earliest|fewest)\s+to\s+(?:the\s+)?\w+", re.I)
_KO_ORDER_BY = re.compile(
    r"([가-힣A-Za-z_]+)\s?(?:이|가)?\s?(높은|낮은|많은|적은|큰|작은|비싼|싼|최신)?\s?순(?:으로|서대로)?(?![가-힣])"
)
_RATIO = re.compile(r"비율|비중|퍼센트|백분율|\b(fraction|share|percentage|proportion|percent|ratio)\b", re.I)
_PERCENT = re.compile(r"퍼센트|백분율|프로(?![가-힣])|%|\bpercent(?:age)?\b", re.I)
_BASE = re.compile(r"(?<=[가-힣])\s(중)(?=\s|에서|$)|\b(among|out of all)\b", re.I)
_VERSUS = re.compile(r"\b(versus|vs\.?|compared (?:to|with))\b|대비|비교", re.I)
_EN_MULT = {"k": 1_000, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_EN_UNIT = {"won": "원", "krw": "원", "원": "원", "times": "번"}


class _Masker:
    """The question with recognised cue spans blanked out (same length, so offsets stay valid)."""

    def __init__(self, text: str) -> None:
        self.chars = list(text)

    def mask(self, start: int, end: int) -> None:
        for i in range(start, end):
            self.chars[i] = " "

    @property
    def text(self) -> str:
        return "".join(self.chars)


def parse_question(question: str) -> Frame:
    text = " ".join(question.strip().split())
    text = re.sub(r"(?<=\w)['’]s\b", "", text)  # "order 5001's store": a possessive, not a word
    frame = Frame(text=text, lang="ko" if lx.is_hangul(text) else "en")
    m = _Masker(text)
    quoted = []
    for q in _QUOTED.finditer(text):
        quoted.append(Term(q[1].strip(), (q[1].strip(),), q.start(), q.end(), True, (q.start(),), (True,)))
        m.mask(q.start(), q.end())
    frame.date = find_dates(m.text)
    for span in frame.date.spans if frame.date else []:
        m.mask(*span)
    low = m.text.lower()
    frame.distinct = any(w in low for w in _DISTINCT)
    for w in _DISTINCT if frame.distinct else ():
        _cut(m, w, whole=frame.lang == "en")
    _comparisons(frame, m)  # first: "at least 18" is a comparison, not the superlative "least"
    _top_and_order(frame, m)
    _groups(frame, m)
    _aggregates(frame, m)
    for pattern, attr in ((_RATIO, "ratio"), (_VERSUS, "versus")):
        if hit := pattern.search(m.text):
            setattr(frame, attr, True)
            m.mask(*hit.span())
    if frame.ratio:
        frame.percent = bool(_PERCENT.search(text))
        if base := _BASE.search(text):
            comma = text.find(",", base.end())
            frame.base_span = (0, base.end()) if base[1] else (base.end(), comma if comma > 0 else len(text))
    for hit in list(_NUMBER.finditer(m.text)):
        frame.numbers.append((lx.as_number(float(hit[1])), hit.start(1)))
        m.mask(*hit.span())
    frame.terms = sorted(quoted + _terms(frame, m.text), key=lambda t: t.start)
    frame.leftover = m.text
    leftover = m.text.lower()
    frame.unparsed_superlative = any(re.search(rf"(?<![가-힣a-z]){w}(?![a-z])", leftover)
                                     for w in lx.UNPARSED_SUPERLATIVE)
    return frame


def _cut(m: _Masker, word: str, *, whole: bool = False) -> int | None:
    low = m.text.lower()
    pattern = r"\b" + re.escape(word) + r"\b" if whole else re.escape(word)
    found = re.search(pattern, low)
    if found is None:
        return None
    m.mask(found.start(), found.end())
    return found.start()


def _top_and_order(frame: Frame, m: _Masker) -> None:
    pattern = lx.KO_TOP if frame.lang == "ko" else lx.EN_TOP
    if hit := pattern.search(m.text):
        word, count = hit[1].lower(), hit[2]
        n = int(count) if count.isdigit() else lx.native_number(count)
        if n is not None:
            frame.top_n = n
            frame.desc = word not in ("하위", "bottom", "워스트", "last")
            m.mask(hit.start(), hit.end())
    for word, func in lx.VALUE_AGG:  # "최솟값" is MIN, not the superlative "최소" plus a stray "값"
        while (pos := _cut(m, word)) is not None:
            frame.aggs.append((func, pos))
    most: tuple[str, ...] = lx.KO_MOST if frame.lang == "ko" else lx.EN_MOST
    least: tuple[str, ...] = lx.KO_LEAST if frame.lang == "ko" else lx.EN_LEAST
    for words, desc in ((most, True), (least, False)):
        for w in sorted(words, key=len, reverse=True):
            pos = _cut(m, w, whole=frame.lang == "en")
            if pos is not None:
                frame.superlative = w
                frame.superlative_pos = pos
                if frame.desc is None:
                    frame.desc = desc
                # "가장 비싼": the adjective names the measured column, keep it as a term.
                adjective = w.split()[-1]
                if adjective not in ("많이", "많은", "적은", "적게", "최다", "most", "least", "fewest"):
                    frame.verbs.append(adjective)
                break
        if frame.superlative:
            break
    if frame.superlative:  # a second (third) superlative: several aggregates in one question
        for words, desc in ((most, True), (least, False)):
            for w in sorted(words, key=len, reverse=True):
                if w.split()[-1] not in lx.TIME_ADJECTIVES and w not in ("top", "bottom"):
                    while (pos := _cut(m, w, whole=frame.lang == "en")) is not None:
                        frame.more_superlatives.append((desc, pos))
    if frame.top_n is None and frame.superlative and frame.lang == "en" and (
            hit := re.search(r"\b(\d+)\s+(?=[a-z]{3,})", m.text)):
        frame.top_n = int(hit[1])
        m.mask(hit.start(), hit.end())
    if frame.top_n is None and frame.superlative and (hit := lx.KO_COUNTED.search(m.text)):
        frame.top_n = int(hit[1])
        m.mask(hit.start(), hit.end())
    order_cues = ((lx.KO_ORDER_DESC, True), (lx.KO_ORDER_ASC, False))
    for words, desc in order_cues:
        for w in words:
            pos = _cut(m, w)
            if pos is not None:
                frame.desc = desc if frame.desc is None else frame.desc
                before = m.text[:pos].split()
                frame.order_word = before[-1] if before else None
    if frame.lang == "en" and (hit := _EN_DIRECTION.search(m.text)):
        word = (hit[1] or hit[2] or hit[3]).lower()
        frame.desc = word in ("descending", "reverse", "largest", "highest", "most", "longest", "biggest",
                              "newest", "latest", "greatest")
        frame.alphabetical = word.startswith("alphabetical")
        m.mask(hit.start(), hit.end())
    if frame.lang == "en" and (hit := _EN_ORDER_BY.search(m.text)):
        if hit[1].split()[0].lower() in ("number", "count", "amount", "total"):
            m.mask(hit.start(), hit.start(1))  # "ordered by the number of X": the count words stay to be read
        else:
            frame.order_word = hit[1].strip()
            m.mask(hit.start(), hit.end())
        frame.desc = bool(hit[3] and hit[3].lower().startswith("desc")) or frame.desc
    elif frame.lang == "ko" and (hit := _KO_ORDER_BY.search(m.text)) and hit[1] not in ("내림차", "오름차"):
        frame.order_word = hit[1]
        if hit[2]:
            frame.desc = hit[2] in ("높은", "많은", "큰", "비싼", "최신")
        m.mask(hit.start(), hit.end())


def _comparisons(frame: Frame, m: _Masker) -> None:
    if frame.lang == "ko":
        for hit in list(_KO_CMP_RE.finditer(m.text)):
            word = re.sub(r"\s", "", hit["cue"])
            op = lx.KO_CMP.get(word) or lx.KO_CMP.get(word.replace("보다", "보다 "), "=")
            if word.startswith("보다"):
                op = lx.KO_CMP.get("보다 " + word[2:], ">")
            value = parse_number(hit["num"])
            if value is None:  # not a number after all: leave the words to the rest of the parser
                continue
            frame.comparisons.append(Comparison(op, value, hit.start(), hit.end(), hit["unit"] or ""))  # type: ignore[arg-type]
            m.mask(hit.start(), hit.end())
        return
    for hit in list(_EN_CMP_RE.finditer(m.text)):
        value = float(hit[2].lstrip("$").replace(",", "")) * _EN_MULT.get((hit[3] or "").lower(), 1)
        op = lx.EN_CMP[hit[1].lower()]
        unit = _EN_UNIT.get((hit[4] or "").lower(), "")
        end = hit.end() if unit else hit.end(3) if hit[3] else hit.end(2)  # "18 reviews": the noun stays a term
        frame.comparisons.append(Comparison(op, lx.as_number(value), hit.start(), end, unit))  # type: ignore[arg-type]
        m.mask(hit.start(), end)
    for hit in list(_EN_CMP_AFTER.finditer(m.text)):
        op = ">=" if hit[3].lower() in ("or more", "or above", "and above", "and up") else "<="
        value = float(hit[1].lstrip("$").replace(",", ""))
        word = (hit[2] or "").lower()
        unit = _EN_UNIT.get(word, "")
        if word and not unit:  # "30 orders or more": the noun stays a term, next to the number it counts
            frame.comparisons.append(Comparison(op, lx.as_number(value), hit.start(), hit.end(1)))  # type: ignore[arg-type]
            m.mask(hit.start(), hit.end(1))
            m.mask(hit.start(3), hit.end(3))
            continue
        frame.comparisons.append(Comparison(op, lx.as_number(value), hit.start(), hit.end(), unit))  # type: ignore[arg-type]
        m.mask(hit.start(), hit.end())


def _groups(frame: Frame, m: _Masker) -> None:
    if frame.lang == "ko":
        for hit in list(lx.KO_GROUP.finditer(m.text)):
            word = hit[1]
            frame.groups.append(GroupCue(word, lx.KO_BUCKET.get(word), hit.start()))
            m.mask(hit.start(), hit.end())
        return
    for hit in list(lx.EN_GROUP.finditer(m.text)):
        before = m.text[: hit.start()].rstrip().lower()
        if before.endswith(("sorted", "ordered", "ranked", "sort", "order")):
            continue
        if hit[0].lower().startswith("by") and _is_participle(before.split()[-1] if before.split() else ""):
            continue  # "cited by publications", "paid by card": a passive agent, not a grouping
        words = hit[1].split()
        if words[0].lower() in ("number", "count") and words[1:2] == ["of"]:
            m.mask(hit.start(), hit.start(1))  # "by number of orders": a count to rank by, read as an aggregate
            continue
        # "by category and year" -> only the first word; "by store name" keeps both.
        if len(words) > 1 and lx.singular(words[1]) in lx.STOP_EN:
            words = words[:1]
        word = " ".join(words)
        frame.groups.append(GroupCue(word, lx.EN_BUCKET.get(lx.singular(words[-1])), hit.start()))
        m.mask(hit.start(), hit.start() + len(hit[0].split(hit[1])[0]) + len(word))
    for word, bucket in lx.EN_BUCKET.items():
        if word.endswith("ly") and re.search(rf"\b{word}\b", m.text, re.I):
            frame.groups.append(GroupCue(word, bucket, m.text.lower().find(word)))
            _cut(m, word, whole=True)


_IRREGULAR_PARTICIPLES = frozenset({
    "written", "made", "paid", "sold", "held", "taught", "taken", "given", "done", "run", "seen", "bought",
    "sent", "won", "led", "kept", "found", "built", "drawn", "driven", "flown", "grown", "known", "shown",
    "thrown", "worn", "borne", "chosen",
})


def _is_participle(word: str) -> bool:
    return (len(word) > 3 and word.endswith("ed")) or word in _IRREGULAR_PARTICIPLES


def _aggregates(frame: Frame, m: _Masker) -> None:
    if frame.lang == "en" and (hit := re.search(r"\b(?:in total|altogether|overall)\b", m.text, re.I)):
        frame.total = True  # "how many ... in total": the whole table, not a sum of some column
        m.mask(*hit.span())
    cues = lx.KO_AGG if frame.lang == "ko" else lx.EN_AGG
    for word, func in cues:
        while (pos := _cut(m, word, whole=frame.lang == "en")) is not None:
            frame.aggs.append((func, pos))
    if frame.lang == "ko":
        for hit in list(lx.KO_COUNT_SUFFIX.finditer(m.text)):
            frame.aggs.append(("count", hit.start()))
            m.mask(hit.start(), hit.end())
        for w in lx.KO_TOTAL:
            if re.search(rf"(?<![가-힣]){w}(?![가-힣]{{2}})", m.text):
                frame.total = True
                _cut(m, w)
    elif re.search(r"\b(total|overall|all)\b", frame.text, re.I):
        frame.total = True
    frame.aggs.sort(key=lambda a: a[1])


def _terms(frame: Frame, masked: str) -> list[Term]:
    return _ko_terms(masked) if frame.lang == "ko" else _en_terms(masked)


def _ko_terms(masked: str) -> list[Term]:
    terms: list[Term] = []
    chunk: list[lx.Tok] = []

    def flush() -> None:
        words = [t for t in chunk if t.form not in lx.STOP_KO and not t.form.isdigit()]
        if words:
            start, end = words[0].start, words[-1].end
            flags = tuple(t.tag in ("NNP", "SL", "SH") for t in words)
            terms.append(Term(masked[start:end].strip(), tuple(t.form for t in words), start, end, any(flags),
                              tuple(t.start for t in words), flags))
        chunk.clear()

    for tok in lx.korean_tokens(masked):
        if tok.tag == "NNB" and chunk and chunk[-1].end == tok.start and tok.form in lx.STOP_KO:
            # "배송중": a bound noun glued to the noun before it is part of that word, not a stop word
            prev = chunk.pop()
            chunk.append(lx.Tok(prev.form + tok.form, prev.tag, prev.start, tok.end))
            continue
        if tok.tag in _KO_CHUNK_TAGS and tok.form.strip():
            if chunk and tok.start - chunk[-1].end > 1:
                flush()
            chunk.append(tok)
        elif tok.tag == "XSN" and chunk:
            continue
        else:
            flush()
            if tok.tag in ("VV", "VA") and len(tok.form) > 1 and tok.form not in ("알리", "보이"):
                terms.append(Term(tok.form + "다", (tok.form,), tok.start, tok.end, False, (tok.start,), (False,)))
    flush()
    return terms


def _en_terms(masked: str) -> list[Term]:
    terms: list[Term] = []
    chunk: list[lx.Tok] = []

    def flush() -> None:
        if chunk:
            start, end = chunk[0].start, chunk[-1].end
            flags = tuple(t.form[:1].isupper() and t.start > 0 for t in chunk)
            terms.append(Term(masked[start:end], tuple(t.form for t in chunk), start, end, any(flags),
                              tuple(t.start for t in chunk), flags))
        chunk.clear()

    for tok in lx.english_tokens(masked):
        gap = masked[chunk[-1].end : tok.start] if chunk else ""
        if tok.form.lower() in lx.STOP_EN or tok.tag == "SN" or gap.strip() or len(gap) > 1:
            flush()
            if tok.form.lower() in lx.STOP_EN or tok.tag == "SN":
                continue
        chunk.append(tok)
    flush()
    return terms
