"""Who and where a document is about: the landlord and tenant the user named, the address of
the home, and which date is the lease's start, end or the notice date.

The Korean readers (``graphagents.korean``) find names, addresses and dates by their shape; this
module decides their roles from the words beside them ("임대인 박영희 씨", "송재호님이 집주인이고",
"김대호(임대인)", "저는 이민호", "2026년 3월 1일부터 ... 까지", "만료일 2026.2.28"). A name or date
with no role word beside it is left out, not guessed: the draft then says the field is missing
(and, for a date, which date it could not place), which the user can fix in one line.
"""

from __future__ import annotations

import re
from typing import Any

from graphagents.korean import find_addresses, find_dates, find_person_names, normalize

_LANDLORD = r"임대인|집\s?주인|건물주|주인\s?(?:아저씨|아주머니|분)|피신청인|수신인?|받는\s?사람"
_TENANT = r"임차인|세입자|신청인|발신인?|보내는\s?사람"
_ROLE_WORDS = re.compile(rf"^(?:{_LANDLORD}|{_TENANT}|임대차|전세금|보증금|계약서|계약자|공인중개사|중개사)$")
_BEFORE = re.compile(
    rf"(?P<role>{_LANDLORD}|{_TENANT})\s?(?:은|는|이|가|:|=|님|분은)?\s?(?:(?:의\s)?(?:이름|성함|성명)(?:은|는|이|:)?\s|"
    rf"저\s|제\s이름은\s)?[(\[]?\s?$")
_AFTER = re.compile(
    rf"^\s?(?:씨|님)?\s?(?:이|가|은|는)?\s?(?:\(\s?(?P<paren>{_LANDLORD}|{_TENANT})\s?\)|"
    rf"(?P<role>{_LANDLORD}|{_TENANT})(?:이고|이며|이에요|예요|입니다|인데|이자|이구요|이고요|\)))")
_SELF = re.compile(r"(?:저는|전|제가|나는|난|본인은|제\s?이름은)\s?$")
_RECIPIENT = re.compile(r"^\s?(?:씨|님)?\s?(?:에게|께|한테)")
_NAME_WINDOW = 16

_END = re.compile(
    r"(?:만료일?|종료일?|만기일?|끝나는\s?날|끝난\s?날|계약\s?(?:끝|만료|종료))\s?(?:은|는|이|가|:|=|일)?\s?$")
_START = re.compile(r"(?:시작일?|입주일?|개시일?)\s?(?:은|는|이|가|:|=)?\s?$")
_NOTICE = re.compile(r"(?:통지일?|발송일?|보낸\s?날)\s?(?:은|는|이|가|:|=)?\s?$")
_BALANCE = re.compile(r"잔금일?\s?(?:은|는|이|가|:|=)?\s?$")
_OTHER_BEFORE = re.compile(r"(?:계약일|계약금|중도금|이사일?|전입일?)\s?(?:은|는|이|가|:|=)?\s?$")
_START_AFTER = re.compile(r"^\s?(?:부터|~|-|에\s?(?:시작|입주))")
_END_AFTER = re.compile(r"^\s?(?:까지|(?:에|로|으로)?\s?(?:만료|종료|끝|만기))")
_DATE_WINDOW = 14


def _role_word(word: str) -> str:
    return "landlord" if re.fullmatch(_LANDLORD, word) else "tenant"


def _name_role(text: str, start: int, end: int) -> str | None:
    before, after = text[max(0, start - _NAME_WINDOW):start], text[end:end + _NAME_WINDOW]
    if m := _BEFORE.search(before):
        return _role_word(m.group("role"))
    if m := _AFTER.match(after):
        return _role_word(m.group("paren") or m.group("role"))
    if _SELF.search(before):  # the user speaks as the tenant in every template we draft
        return "tenant"
    if _RECIPIENT.match(after):  # "박영희 씨에게 보낼 내용증명": the letter goes to the landlord
        return "landlord"
    return None


def _date_role(text: str, start: int, end: int) -> str | None:
    before, after = text[max(0, start - _DATE_WINDOW):start], text[end:end + _DATE_WINDOW]
    if _START_AFTER.match(after) or _START.search(before):
        return "contract_start"
    if _END.search(before) or _END_AFTER.match(after):
        return "contract_end"
    if _NOTICE.search(before):
        return "notice_date"
    if _BALANCE.search(before):
        return "balance_date"
    if _OTHER_BEFORE.search(before):
        return "other"
    return None


def extract_parties(text: str) -> dict[str, Any]:
    """``landlord``, ``tenant``, ``address``, ``contract_start``, ``contract_end``, ``notice_date``,
    ``balance_date`` as the user wrote them, plus ``unplaced_dates``: dates given with no word saying what they are."""
    text = normalize(text)  # the readers' spans index the normalised text
    out: dict[str, Any] = {}
    addresses = find_addresses(text)
    if addresses:
        out["address"] = addresses[0].text
    spans = [(a.start, a.end) for a in addresses]
    names: dict[str, list[str]] = {}
    for n in find_person_names(text):
        if _ROLE_WORDS.match(n.name) or any(s <= n.start < e for s, e in spans):
            continue
        role = _name_role(text, n.start, n.end)
        if role is not None and n.name not in names.setdefault(role, []):
            names[role].append(n.name)
    for role, found in names.items():
        if found:
            out[role] = ", ".join(found)
    unplaced: list[str] = []
    for d in find_dates(text):
        role = _date_role(text, d.start, d.end)
        if role in ("contract_start", "contract_end", "notice_date", "balance_date") and role not in out:
            out[role] = d.korean()
        elif role is None:
            unplaced.append(d.korean())
    if unplaced:
        out["unplaced_dates"] = unplaced
    return out
