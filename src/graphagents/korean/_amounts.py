"""Korean won amounts: "삼백만원", "1억 2천만원", "1.5억", "5,000,000원" and everything in between.

The grammar is the one Korean speakers use, not a digit transliteration:

    amount  := group (space? group)* trailing? (space? "원")?
    group   := small? space? BIG            BIG   := 만 | 억 | 조   (strictly decreasing)
    small   := (coef? SMALL)* coef?         SMALL := 십 | 백 | 천   (strictly decreasing)
    coef    := arabic number (commas, decimals) | one Hangul digit 일..구

Arabic and Hangul mix freely ("3백만", "2천5백만", "3,000만"). Text that merely looks numeric
("이체", "1회", "만들래요", "일일 한도") must not produce an amount, so a match only counts when it
carries a big unit, "원", or thousands separators, and sits on word boundaries.

Speech drops the last 만 after 억: "3억 5천" is 3억 5천만 (350,000,000), as in every price talk.
A sign is read explicitly: "-300만원" and "마이너스 300만원" are negative, never 300만원 or 1만원.
Hedges ("이천만원쯤", "약 300만원", "300만원 정도") mark the match as approximate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ._text import is_hangul, normalize

__all__ = ["AmountMatch", "find_amounts", "format_krw", "parse_amount", "parse_number"]

_HANGUL_DIGITS = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "륙": 6, "칠": 7, "팔": 8, "구": 9}
_SMALL_UNITS = {"십": 10, "백": 100, "천": 1000}
_BIG_UNITS = {"만": 10**4, "억": 10**8, "조": 10**12}
_ARABIC = re.compile(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")
_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+")
# Syllables that may follow a big unit: particles and copulas ("300만으로", "천만이요"). Anything else
# means the unit is the start of another word: 만들다, 만약, 만료, 억울, 조금, 조회. (인: "3억인데")
_AFTER_BIG = set("원은는이가을를로으도에까만정씩짜입요과와랑하부쯤인")
# A particle in front of a Hangul numeral is still a word boundary in unspaced STT output.
_PARTICLES_BEFORE = set("는은를을도에로가고")
# Counters turn a trailing number into something else: "500만 1회", "3천 2개".
_COUNTERS = set("회번일개건명월년시분초살층호달주차등위장권대")
_IDIOMS = ("천만에", "천만다행", "백만장자")
_HEDGE_AFTER = re.compile(r"\s?(?:쯤|정도|가량|내외|안팎|남짓|언저리|근처)")
_HEDGE_BEFORE = re.compile(r"(?:^|(?<=\s))(?:약|대략|대충|얼추|한|거의|대강)\s?$")
_MINUS_WORD = re.compile(r"(?:^|(?<=[\s(]))마이너스\s?$")


@dataclass(frozen=True, slots=True)
class AmountMatch:
    """One amount found in text; ``start``/``end`` index the text searched (normalised text)."""

    value: int
    start: int
    end: int
    approximate: bool = False


def _skip_spaces(s: str, i: int, limit: int = 2) -> int:
    j = i
    while j < len(s) and j - i < limit and s[j].isspace():
        j += 1
    return j


def _parse_small(s: str, i: int) -> tuple[Decimal, int, int | None] | None:
    """Parse 0..9999 written with 십/백/천. Returns value, end, start of a bare trailing Hangul digit."""
    total, last_unit, pos, consumed = Decimal(0), 10**4, i, False
    tail: int | None = None
    unit_end = i
    while pos < len(s):
        unit_end = pos
        if consumed and tail is None and s[pos].isspace():
            # "3천 4백": one space may separate the parts of a number after a unit.
            pos = _skip_spaces(s, pos, 1)
        coef: Decimal | None = None
        j, hangul = pos, False
        m = _ARABIC.match(s, pos)
        if m:
            coef, j = Decimal(m.group().replace(",", "")), m.end()
        elif pos < len(s) and s[pos] in _HANGUL_DIGITS:
            coef, j, hangul = Decimal(_HANGUL_DIGITS[s[pos]]), pos + 1, True
        if j < len(s) and s[j] in _SMALL_UNITS and _SMALL_UNITS[s[j]] < last_unit:
            last_unit = _SMALL_UNITS[s[j]]
            total += (coef if coef is not None else 1) * last_unit
            pos, consumed = j + 1, True
            continue
        if coef is not None and (last_unit == 10**4 or coef < last_unit):
            total += coef
            tail = pos if hangul else None
            pos, consumed = j, True
            unit_end = pos
        break
    else:
        unit_end = pos  # the text ended right after a unit: "1만 5천"
    return (total, unit_end, tail) if consumed else None


def _won_follows(s: str, i: int) -> int | None:
    """End index of a currency "원" at ``i`` (after optional space), ignoring the verb 원하다."""
    k = _skip_spaces(s, i, 1)
    if k < len(s) and s[k] == "원" and not (k + 1 < len(s) and s[k + 1] in "하해합했"):
        return k + 1
    return None


def _left_boundary_ok(s: str, i: int) -> bool:
    if i == 0:
        return True
    prev = s[i - 1]
    if s[i].isdigit():
        if prev == "-":  # a sign ("-300만원"), not a range or a phone number ("300만-500만", "010-")
            return i == 1 or not (s[i - 2].isalnum() or s[i - 2] in ".,")
        return not (prev.isdigit() or prev in ".,")
    if prev.isdigit() or prev in ".,":
        return False  # "-300만원" read from 만 would be 1만원
    return not is_hangul(prev) or prev in _PARTICLES_BEFORE


def _sign_start(s: str, i: int) -> int | None:
    """Start of a minus sign written right before the number at ``i``, or None."""
    if i and s[i - 1] == "-" and (i == 1 or not (s[i - 2].isalnum() or s[i - 2] in ".,")):
        return i - 1
    m = _MINUS_WORD.search(s, 0, i)
    return m.start() if m else None


def _parse_amount_at(s: str, i: int, *, need_unit: bool = True) -> tuple[Decimal, int] | None:
    """Parse one number starting exactly at ``i``; (value, end) or None.

    With ``need_unit`` (amounts) it must carry a big unit, 원 or thousands separators."""
    if not _left_boundary_ok(s, i) or s.startswith(_IDIOMS, i):
        return None
    total, last_big, pos, end, groups = Decimal(0), 10**16, i, i, 0
    implicit_one = False  # "만원", "억원", "만 오천원": a bare 만 or 억 needs the 원 to be an amount
    while True:
        small = _parse_small(s, pos)
        val, j, tail = small if small else (None, pos, None)
        k = _skip_spaces(s, j, 1) if small else j
        big = _BIG_UNITS.get(s[k]) if k < len(s) else None
        if big is not None and big < last_big and (k + 1 == len(s) or s[k + 1] in _AFTER_BIG
                                                   or not is_hangul(s[k + 1])
                                                   # "일억오천만원": no Korean word starts with 억 + a numeral
                                                   or (big == 10**8 and (s[k + 1] in _HANGUL_DIGITS
                                                                         or s[k + 1] in _SMALL_UNITS))):
            if val is None:
                if groups:
                    break
                val, implicit_one = Decimal(1), True
            total += val * big
            last_big, end, groups = big, k + 1, groups + 1
            pos = _skip_spaces(s, end, 1)
            continue
        if val is None:
            break
        if tail is not None and j < len(s) and is_hangul(s[j]) and s[j] != "원":
            # "삼백만이요": the last 이 is a copula, not the digit 2.
            val -= _HANGUL_DIGITS[s[tail]]
            j = tail
            while j > pos and s[j - 1].isspace():
                j -= 1
            if j == pos:
                break
        spaced = pos > end and groups > 0
        next_ch = s[j] if j < len(s) else ""
        has_unit = any(u in s[pos:j] for u in _SMALL_UNITS)
        won = _won_follows(s, j)
        if next_ch in _COUNTERS and won is None:
            break
        if groups and spaced and won is None and (not has_unit or (is_hangul(next_ch) and next_ch not in _AFTER_BIG)):
            break  # a particle may follow the unsaid 만: "3억 5천에", "3억 5천으로"
        if groups and has_unit and won is None and last_big > 10**4 and val < 10**4:
            val *= last_big // 10**4  # "3억 5천": the 만 of 5천만 goes unsaid
        total += val
        end = j
        break
    won_end = _won_follows(s, end) if end > i else None
    if won_end is not None:
        end = won_end
    elif need_unit and (implicit_one or (groups == 0 and not _GROUPED.fullmatch(s[i:end]))):
        return None
    if end == i or (need_unit and total <= 0):
        return None
    return total, end


def _candidate_starts(s: str) -> list[int]:
    return [
        i for i, ch in enumerate(s)
        if ch.isdigit() or ch in _HANGUL_DIGITS or ch in _SMALL_UNITS or ch in "만억"
    ]


def find_amounts(text: str) -> list[AmountMatch]:
    """All won amounts in ``normalize(text)``, in reading order, with spans into that text (the slot
    extractor pairs them with cue words by position)."""
    text = normalize(text)
    found: list[AmountMatch] = []
    next_free = 0
    for i in _candidate_starts(text):
        if i < next_free:
            continue
        parsed = _parse_amount_at(text, i)
        if parsed is None:
            continue
        value, end = parsed
        start, sign = i, _sign_start(text, i)
        if sign is not None and sign >= next_free:
            start, value = sign, -value
        approximate = bool(_HEDGE_AFTER.match(text, end) or _HEDGE_BEFORE.search(text, next_free, start))
        found.append(AmountMatch(int(value), start, end, approximate))
        next_free = end
    return found


def parse_amount(text: str) -> int | None:
    """The first won amount in ``text``, in won, or None: "삼백만원", "3억 5천", "1,500만 원" ->
    3,000,000 / 350,000,000 / 15,000,000; "-300만원" -> -3,000,000. Bare numbers ("300") are not
    amounts."""
    found = find_amounts(text)
    return found[0].value if found else None


def parse_number(text: str) -> int | float | None:
    """``text`` read whole as a number written with Korean units, or None: "3천5백만" -> 35,000,000,
    "2.5천" -> 2,500, "1,500" -> 1,500, "삼십" -> 30, "-5" -> -5. A trailing 원 is allowed."""
    text = normalize(text)
    negative = text.startswith("-") or text.startswith("마이너스")
    body = text.removeprefix("-").removeprefix("마이너스").lstrip()
    if not body:
        return None
    parsed = _parse_amount_at(body, 0, need_unit=False)
    if parsed is None or parsed[1] != len(body):
        return None
    value = -parsed[0] if negative else parsed[0]
    return int(value) if value == value.to_integral_value() else float(value)


def format_krw(amount: int) -> str:
    """Render won the way a Korean bank app does: "300만원", "1억 2,000만원", "5,000원", "-300만원"."""
    if amount < 0:
        return "-" + format_krw(-amount)
    if amount == 0:
        return "0원"
    parts: list[str] = []
    rest = amount
    for unit, name in ((10**12, "조"), (10**8, "억"), (10**4, "만")):
        q, rest = divmod(rest, unit)
        if q:
            parts.append(f"{q:,}{name}")
    if rest:
        parts.append(f"{rest:,}")
    return " ".join(parts) + "원"
