"""The date phrases the composer reads, as patterns: ISO days, Korean and English calendars, ranges.

Kept apart from :mod:`.dates` (which turns what they match into a range) so that each finder there
reads as a few lines over named patterns.
"""

from __future__ import annotations

import re

# fmt: off
ISO = r"(\d{4})[-./](\d{1,2})[-./](\d{1,2})"
RANGE_ISO = re.compile(
    rf"(?:between\s+)?{ISO}\s*(?:부터|에서|~|-|–|and|to|through)\s*{ISO}\s*(?:까지|사이)?", re.I
)
SINGLE_ISO = re.compile(rf"{ISO}\s*(이후|부터|이전|전|까지|이내)?")
KO_YMD = re.compile(r"(\d{4})\s*년\s*(\d{1,2})\s*월(?:\s*(\d{1,2})\s*일)?")
KO_YEAR = re.compile(r"(\d{4})\s*년(?:도)?(?!\s*\d{1,2}\s*월)")
KO_MONTH_ONLY = re.compile(r"(?<![\d년])(\d{1,2})\s*월(?!\s*별)")
KO_QUARTER = re.compile(r"([1-4])\s*분기|Q([1-4])", re.I)
KO_HALF = re.compile(r"(상반기|하반기|first half|second half|H([12]))", re.I)
KO_REL_YEAR = {"재작년": -2, "작년": -1, "지난해": -1, "전년": -1, "올해": 0, "금년": 0, "이번 해": 0,
                "this year": 0, "last year": -1, "previous year": -1}
KO_REL_MONTH = {"지난달": -1, "지난 달": -1, "전월": -1, "이번 달": 0, "이번달": 0, "this month": 0,
                 "last month": -1, "previous month": -1}
LAST_N = re.compile(
    r"(?:최근|지난|직전|last|past|previous)\s*(\d+)\s*(개월|달|일|주|년|months?|days?|weeks?|years?)", re.I
)
OPEN_KO = {"이후": "since", "부터": "since", "이전": "before", "전": "before", "까지": "until"}
EN_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], 1)}
EN_MONTH_RE = re.compile(r"\b(" + "|".join(EN_MONTHS) + r"|[a-z]{3})\b\.?\s*(\d{4})?", re.I)
EN_YEAR = re.compile(r"\b(in|during|since|after|before|until|from)?\s*((?:19|20)\d{2})\b", re.I)

BIRTH_KO = re.compile(
    r"(\d{4}|\d{2})\s*년대\s*생|(\d{4}|\d{2})\s*년?\s*(?:~|-|–|부터)\s*(\d{4}|\d{2})\s*년\s*생|(\d{4}|\d{2})\s*년\s*생")
BIRTH_EN = re.compile(
    r"\bborn\s+(?:in\s+)?(?:the\s+)?(?:(\d{4})s|(?:between\s+|from\s+)?(\d{4})\s*(?:-|–|and|to|through)\s*(\d{4})"
    r"|(\d{4}))\b", re.I)
YEAR_RANGE = re.compile(
    r"(?:between\s+|from\s+)?((?:19|20)\d{2})\s*(?:년\s*)?(?:~|–|-|부터|에서|and|to|through)\s*((?:19|20)\d{2})\s*"
    r"(?:년\s*)?(?:까지|사이)?", re.I)
KO_MONTH_RANGE = re.compile(
    r"(?:(\d{4})\s*년\s*)?(\d{1,2})\s*월\s*(?:부터|~|-|–|에서)\s*(?:(\d{4})\s*년\s*)?(\d{1,2})\s*월\s*(?:까지|사이)?")
EN_MONTH_RANGE = re.compile(
    r"\b(?:from|between)\s+(" + "|".join(EN_MONTHS) + r")\s*(\d{4})?\s*(?:-|–|and|to|through|until)\s*("
    + "|".join(EN_MONTHS) + r")\s*,?\s*(\d{4})?", re.I)
WEEK_KO = re.compile(r"(첫|첫째|둘째|셋째|넷째|마지막)\s*(?:째\s*)?주(?![가-힣])")
WEEK_EN = re.compile(r"\b(first|second|third|fourth|last|final)\s+week(?:\s+of)?\b", re.I)
WEEK_N = {"첫": 1, "첫째": 1, "둘째": 2, "셋째": 3, "넷째": 4, "마지막": -1, "first": 1, "second": 2, "third": 3,
           "fourth": 4, "last": -1, "final": -1}
EN_ISO_SIDE = re.compile(rf"\b(on or after|on or before|after|since|from|before|until|through|by)\s+{ISO}", re.I)
EN_QUARTER = re.compile(r"\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b", re.I)
QUARTER_N = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
HOUR = re.compile(
    r"(?:(오전|오후)\s*(\d{1,2})\s*시|(\d{1,2})\s*시)\s*(이후|부터|이전|전|까지)?"
    r"|\b(after|before|since|until|from)?\s*(\d{1,2})\s*(?::00)?\s*(am|pm|o'clock)\b", re.I)

KO_DAY_RANGE = re.compile(
    r"(?:(\d{4})\s*년\s*)?(\d{1,2})\s*월\s*(\d{1,2})\s*일\s*(?:부터|~|-|에서)\s*(?:(\d{1,2})\s*월\s*)?(\d{1,2})\s*일"
    r"\s*(?:까지)?")
EN_DAY_RANGE = re.compile(
    r"\b(" + "|".join(EN_MONTHS) + r")\s+(\d{1,2})\s*(?:-|–|to|through)\s*(?:(" + "|".join(EN_MONTHS)
    + r")\s+)?(\d{1,2})\b(?:,?\s*(\d{4}))?", re.I)
ANY_YEAR = re.compile(r"((?:19|20)\d{2})")
# fmt: on
