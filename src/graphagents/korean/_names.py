"""Korean person names in free utterances: "제 이름은 김민수예요", "김철수가 아니라 김민수예요".

Candidates come from two sources, because each fails where the other works. Kiwi's runs of
nouns drop particles and copulas ("김민수예요" -> 김민수) and tag known names as proper nouns; on
unspaced STT output ("성함은정하늘입니다") it can mis-segment, so regex frames around labels and
corrections ("성함은 X입니다", "X로 바꿔주세요", "아니라 X") propose candidates too.

A candidate must start with a known surname, have a plausible length, not be a common word, and
carry evidence: a proper-noun tag, a label or correction frame, or being the whole answer with
three syllables. Names the user rejects ("김철수가 아니라", "김철수에서") are dropped, and the
last remaining one wins because corrections put the new value last.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from ._amounts import find_amounts
from ._analyser import tokenize
from ._particles import has_final_consonant, strip_endings
from ._phones import find_phones
from ._surnames import COMPOUND_SURNAMES, NOT_NAMES, SURNAMES
from ._text import normalize

__all__ = ["NameMatch", "extract_person_name", "find_person_names", "fused_name_ending", "is_korean_name"]

# What may follow a name: copulas, particles, or the end of the word.
_SUFFIX_WORDS = (
    r"입니다|이에요|예요|에요|이요|요|이고요|이고|고요|고|이구요|구요|이라고|라고|으로|로|씨|님|인데|이랑|랑|이야|"
    r"가|이|은|는|을|를"
)
_SUFFIX = rf"(?:{_SUFFIX_WORDS}|[\s,.!?]|$)"
_FILLER = r"(?:(?:네|예|음|아|어|저기요?|저는|전|저)[\s,.]*)"
_LABEL = r"(?:이름|성함|성명|본명|예금주|명의자|명의|고객명)(?:은|는|이|가|을|를|도)?\s*[:=]?\s*"
_FRAMES = (
    re.compile(_LABEL + r"([가-힣]{2,5}?)" + _SUFFIX),
    re.compile(r"(?:아니라|아니고|아니구|말고|대신|에서)[\s,]*([가-힣]{2,5}?)" + _SUFFIX),
    re.compile(r"(?:^|[\s,.])([가-힣]{2,5}?)(?<!으)(?:으로|로)\s*(?:바꿔|바꾸|바꿀|수정|변경|정정|고쳐|등록)"),
    # "정다은으로 해주세요" — weaker than 바꿔, so three syllables at least.
    re.compile(r"(?:^|[\s,.])([가-힣]{3,5}?)(?<!으)(?:으로|로)\s*(?:해\s*주|해줘|할게|하겠|부탁)"),
)
# The whole answer is a name; three syllables at least, or 하루요/오늘요 would qualify.
_ALONE_FRAME = re.compile(
    r"^" + _FILLER + r"*([가-힣]{3,5}?)\s*"
    r"(?:입니다|이에요|예요|에요|이요|요|이고요|고요|(?:이)?라고\s*합니다)?[\s.!?]*$"
)
_LABEL_BEFORE = re.compile(
    r"(?:이름|성함|성명|본명|예금주|명의|명의자|고객명)(?:은|는|이|가|을|를|도)?\s*[:=]?\s*$|"
    r"(?:^|\s)(?:저는|전|나는|난|제가|본인은)\s*$"
)
_REJECTED_AFTER = re.compile(
    r"^(?:이|가|은|는|씨|님)?\s*(?:아니라|아니고|아니구|아니에요|아닙니다|아닌데|말고|에서|대신)"
    # "박지훈... 아 아니 권나래요": a name broken off and taken back with the interjection 아니
    r"|^(?:이|가|은|는|씨|님)?\s*[,.…~]+\s*(?:(?:아|어|음|앗|아이고)[\s,.…]+)?(?:아니|아뇨|아니요)(?![가-힣])"
    r"|^(?:이|가|은|는|씨|님)?\s+(?:(?:아|어|음|앗)[\s,.…]+)?(?:아니|아뇨)(?![가-힣])"
)
_CHANGE_AFTER = re.compile(r"^(?:으로|로)\s*(?:바꿔|바꾸|바꿀|수정|변경|정정|고쳐|해\s*주|부탁|등록)")
_CONTRAST_BEFORE = re.compile(r"(?:아니라|아니고|아니구|말고|에서|대신|아니요|아뇨|아니)[\s,.]*$")
_ALONE_BEFORE = re.compile(r"^" + _FILLER + r"*$")
_ALONE_AFTER = re.compile(rf"^(?:{_SUFFIX_WORDS})?[\s,.!?]*$")
# "성은 길이고 이름은 은호예요": surname and given name said apart.
_SPLIT_FRAME = re.compile(
    r"성(?:씨)?(?:은|는|이)?\s*([가-힣]{1,2}?)(?:씨)?(?:이고|고|이구|구|이요|요|이에요|예요)?[\s,]*"
    r"(?:이름|성함)(?:은|는|이)?\s*([가-힣]{1,3}?)" + _SUFFIX
)
# Words around a name that say nothing else: fillers, yes, "제 이름은", "맞아요", "라고 해요".
_AROUND_WORD = re.compile(
    r"네|예|응|음|어|아|저|제|저는|전|제가|본인은|이름은|이름|성함은|성함|맞아요|맞습니다|맞고요|해요|합니다|하고요|"
    r"그리고|이고|이고요|인데요|이에요|예요|입니다"
)
_WORD_SPLIT = re.compile(r"[^\s,.!?~…]+")
# Inside a name Kiwi may see nouns, particles and even verb stems (김하은: 하 + 은), but never a
# verb ending or a 하다 suffix: "신청할게", "배고파", "안녕하세" are no names.
_NOT_IN_NAMES = frozenset({"EF", "EC", "EP", "XSV", "XSA", "VCP", "VCN"})
_COPULA = re.compile(r"예요|이에요|이예요|이요|이고|이랑|입니다|이라고|이구요|이야")
_GLUED = re.compile(r"(?:이요|요|씨|님|이고|이랑|하고|이|고|도|랑)$")
_NUMERALS = frozenset("공영빵일이삼사오육륙칠팔구십백천만억조원")  # "사천", "공일공" are numbers
_NOUNISH = ("NN", "MM", "NR", "XR", "XPN", "SH")


class _Candidate(NamedTuple):
    name: str
    start: int
    end: int
    evidence: bool


def is_korean_name(stem: str) -> bool:
    """Surname + 1-3 syllable given name, and not a known common word or a word ending in 요."""
    if stem in NOT_NAMES or not 2 <= len(stem) <= 5 or stem.endswith("요") or not set(stem) - _NUMERALS:
        return False
    if stem[:2] in COMPOUND_SURNAMES and 1 <= len(stem) - 2 <= 3:
        return True
    return stem[0] in SURNAMES and 1 <= len(stem) - 1 <= 3


def _blank_spans(text: str) -> str:
    """Replace phone numbers and amounts by spaces so spoken digits never look like names."""
    chars = list(text)
    spans = [(m.start, m.end) for m in find_phones(text)]
    spans += [(m.start, m.end) for m in find_amounts(text)]
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _noun_runs(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, starts with a proper noun) of each run of adjacent noun morphemes."""
    runs: list[tuple[int, int, bool]] = []
    cur: list[int] | None = None
    proper = False
    for m in tokenize(text):
        nounish = m.tag.startswith(_NOUNISH) and m.form.isalpha()
        if nounish and cur is not None and m.start == cur[1] and text[cur[0]:cur[1]] not in NOT_NAMES:
            cur[1] = m.end
            continue
        if cur is not None:
            runs.append((cur[0], cur[1], proper))
        cur, proper = ([m.start, m.end], m.tag == "NNP") if nounish else (None, False)
    if cur is not None:
        runs.append((cur[0], cur[1], proper))
    return runs


# A contracted copula or ending that fills a name's last syllable: 권나 + (이)래요, 최민 + 지요, and a
# 이 after a vowel, where it cannot be the copula (정소 + 이예요 is 정소이 + 예요). 예 and a 이 after
# a final consonant are left alone: "이수예요" and "이준이에요" are two-syllable names said the standard way.
_FUSED_TAIL = re.compile(r"(?:요|이요|예요|이에요|에요|입니다)?")


def fused_name_ending(text: str, start: int, end: int) -> bool:
    """Kiwi ended a two-syllable name run where the word goes on with one syllable it reads as a
    contracted copula or an ending ("권나래요": 권나 + 이 + 래요; "최민지요": 최민 + 지요). Such an
    ending is no way to say one's own name, so the name is the three syllables ("권나래"), a reading
    that is a typical name and leaves only a plain ending after it. Without this the agent would
    propose "권나", a value the user never said."""
    if end - start != 2 or end >= len(text) or text[end] == "예" or not "가" <= text[end] <= "힣":
        return False
    if text[end] == "이" and has_final_consonant(text[end - 1]) is not False:
        return False  # after a final consonant 이 is the copula: 이준 + 이에요
    after = [m for m in tokenize(text) if m.start >= end and m.start <= end + 1]
    if not after or not (after[0].start == end and (after[0].tag == "VCP" or after[0].tag.startswith("E"))):
        return False
    word_end = end + 1
    while word_end < len(text) and "가" <= text[word_end] <= "힣":
        word_end += 1
    return _FUSED_TAIL.fullmatch(text, end + 1, word_end) is not None and is_korean_name(text[start:end + 1])


def _kiwi_candidates(text: str) -> list[_Candidate]:
    runs = _noun_runs(text)
    out: list[_Candidate] = []
    skip = -1
    for idx, (start, end, proper) in enumerate(runs):
        if idx == skip:
            continue
        stem = text[start:end]
        # Kiwi glues particles to unknown names: "강다니엘이요", "박지민이". A one-syllable 이/고/도/랑
        # is only split off a four-syllable run, since 박하이 or 김민고 could be real names.
        glued = _GLUED.search(stem)
        if (
            glued
            and stem not in NOT_NAMES
            and is_korean_name(stem[: glued.start()])
            and (len(glued.group()) > 1 or glued.group() in "요씨님" or len(stem) >= 4)
        ):
            stem, end = stem[: glued.start()], start + glued.start()
        if len(stem) >= 4 and _COPULA.match(text, end - 1) and is_korean_name(stem[:-1]):
            stem, end = stem[:-1], end - 1  # "김민지예요" read as 김민지예 + 요
        if fused_name_ending(text, start, end):
            stem, end = text[start:end + 1], end + 1  # "권나래요" read as 권나 + 이래요
        if stem in SURNAMES and proper and idx + 1 < len(runs) and runs[idx + 1][0] == end + 1:
            nxt = runs[idx + 1]  # "김 민수": STT split the surname from the given name
            if is_korean_name(stem + text[nxt[0]:nxt[1]]):
                out.append(_Candidate(stem + text[nxt[0]:nxt[1]], start, nxt[1], True))
                skip = idx + 1
            continue
        if not is_korean_name(stem):
            continue
        before, after = text[:start], text[end:]
        alone = bool(_ALONE_BEFORE.match(before.strip()) and _ALONE_AFTER.match(after.strip()))
        evidence = (
            proper
            or (alone and len(stem) >= 3)
            or bool(_LABEL_BEFORE.search(before) or _CONTRAST_BEFORE.search(before))
            or bool(_REJECTED_AFTER.match(after) or _CHANGE_AFTER.match(after))
        )
        out.append(_Candidate(stem, start, end, evidence))
    return out


def _frame_candidates(text: str) -> list[_Candidate]:
    out = []
    for frame in _FRAMES:
        for m in frame.finditer(text):
            if is_korean_name(m.group(1)):
                out.append(_Candidate(m.group(1), m.start(1), m.end(1), True))
    alone = _ALONE_FRAME.match(text)
    if alone and is_korean_name(alone.group(1)):
        # Only if Kiwi reads the span as nouns: "신청할게요" and "배고파요" fit the frame too.
        inside = [t for t in tokenize(text) if t.start < alone.end(1) and t.end > alone.start(1)]
        if inside and all(t.tag.startswith(_NOUNISH) for t in inside):
            out.append(_Candidate(alone.group(1), alone.start(1), alone.end(1), True))
    return out


def _reads_as_name(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is a typical full name (surname + two syllables, or a compound surname +
    one or two) that Kiwi reads as no verb form, alone or in its sentence ("선택하고" is 선택 + 하다);
    longer names need a label or a proper-noun reading."""
    stem = text[start:end]
    typical = (stem[:2] in COMPOUND_SURNAMES and len(stem) in (3, 4)) or len(stem) == 3
    if not typical or not is_korean_name(stem):
        return False
    in_context = [m for m in tokenize(text) if m.start < end and m.end > start]
    return not any(m.tag in _NOT_IN_NAMES for m in (*tokenize(stem), *in_context))


def _word_candidates(text: str, expected: bool) -> list[_Candidate]:
    """Names read word by word, endings taken off: "길은호예요", "박서연이고요, 번호는 ...".

    A word with a copula or connective ending is a name when the rest says nothing else or another
    clause follows it; when the question is about the name, also a bare word ("길은호") or one that
    ends the sentence ("아 아니에요 원래대로 박서연입니다")."""
    out = []
    words = list(_WORD_SPLIT.finditer(text))
    for m in _SPLIT_FRAME.finditer(text):
        name = m.group(1) + m.group(2)
        if m.group(1) in SURNAMES | COMPOUND_SURNAMES and _reads_as_name(name, 0, len(name)):
            out.append(_Candidate(name, m.start(1), m.end(2), True))
    for i, m in enumerate(words):
        word = m.group()
        stem = strip_endings(word)
        if len(stem) < 3 or not _reads_as_name(text, m.start(), m.start() + len(stem)):
            continue
        others = [w.group() for j, w in enumerate(words) if j != i]
        quiet = all(_AROUND_WORD.fullmatch(w) for w in others)
        ended = stem != word
        follows_on = ended and i + 1 < len(words) and not _REJECTED_AFTER.match(text[m.start() + len(stem):])
        last = i == len(words) - 1
        if (expected and (quiet or (ended and last))) or (ended and (quiet or follows_on)):
            out.append(_Candidate(stem, m.start(), m.start() + len(stem), True))
    return out


def extract_person_name(text: str, *, expected: bool = False) -> str | None:
    """The (corrected) person name in ``text``, or None; words like 네/수정/번호 are never names.

    ``expected`` says the question just asked was for the name, so a bare "길은호" is an answer."""
    norm = normalize(text)
    blanked = _blank_spans(norm)
    found = _kiwi_candidates(blanked) + _frame_candidates(blanked) + _word_candidates(blanked, expected)
    # Hangul glued to a number is its ending, never a name: "010-...-4126이에요" (이에), "5833이요".
    accepted = [c for c in found if c.evidence and not (c.start and norm[c.start - 1].isdigit())]
    # Where a Kiwi run and a frame overlap, the longer reading is the name ("하늘" vs "정하늘").
    kept = [
        c for c in accepted
        if not any(o.start <= c.start and c.end <= o.end and len(o.name) > len(c.name) for o in accepted)
        and not _REJECTED_AFTER.match(blanked[c.end:])
    ]
    if not kept:
        return None
    return max(kept, key=lambda c: (c.start, len(c.name))).name


@dataclass(frozen=True, slots=True)
class NameMatch:
    """A word of a sentence that has the shape of a Korean person's name.

    ``start``/``end`` span the name itself (normalised text); ``honorific`` is the 씨 or 님 that
    followed it (or ""), ``proper`` says Kiwi read it as a proper noun. Shape is not proof: who the
    person is (a landlord, a tenant) and whether a word is a name at all is for the caller to decide
    from the words around it, e.g. "임대인 박영희", "최수진님께", "김대호(임대인)"."""

    name: str
    start: int
    end: int
    honorific: str = ""
    proper: bool = False


_NAME_WORD = re.compile(r"[가-힣]{2,}")
_NAME_TAIL = re.compile(
    r"(?P<hon>씨|님)?(?:께서|께|에게|한테|이|가|은|는|을|를|의|이고요|이고|고|이며|이에요|예요|이요|요|이랑|랑|과|와|"
    r"으로|로|이라고|라고|입니다|이자|인데|이구요|구요)?")
_SPACED_HONORIFIC = re.compile(r"\s(씨|님)(?:께서|께|에게|한테|이|가|은|는|을|를|의|이고|이에요|예요|요)?(?![가-힣])")
_STEM_ORDER = (3, 2, 4, 5)  # three syllables first: "임은비예요" is 임은비 + 예요, not 임은비예 + 요


def find_person_names(text: str) -> list[NameMatch]:
    """Every word of ``normalize(text)`` shaped like a name, its honorific and particles taken off:
    "박영희 씨에게" -> 박영희 (씨), "최수진님께" -> 최수진 (님), "이민호이고" -> 이민호, "윤도현으로" -> 윤도현.

    A two-syllable stem ("김철") counts only with an honorific or a proper-noun reading; amounts and
    phone numbers are never names; verb forms ("신청할게") are not either."""
    blanked = _blank_spans(normalize(text))
    morphs = tokenize(blanked)
    proper = {(m.start, m.end) for m in morphs if m.tag == "NNP"}
    bounds = {m.end for m in morphs}
    out: list[NameMatch] = []
    for m in _NAME_WORD.finditer(blanked):
        word = m.group()
        for size in _STEM_ORDER:
            if size > len(word):
                continue
            stem, tail = word[:size], _NAME_TAIL.fullmatch(word[size:])
            if tail is None or not is_korean_name(stem):
                continue
            hon = tail.group("hon") or ""
            if not hon and (spaced := _SPACED_HONORIFIC.match(blanked, m.end())) and len(word) == size:
                hon = spaced.group(1)
            start, end = m.start(), m.start() + size
            is_proper = any(s <= start and end <= e for s, e in proper) or (start, end) in proper
            if size == 2 and not (hon or is_proper):
                continue
            inside = [t for t in morphs if start <= t.start < end]
            # a particle or ending inside ("주소는" is 주소 + 는) or a word cut in two ("전입신고"): no name
            if end not in bounds or any(t.tag in _NOT_IN_NAMES or t.tag.startswith("J") for t in inside):
                continue
            out.append(NameMatch(stem, start, end, hon, is_proper))
            break
    return out
