"""The debt ahead of a tenant's deposit, read from the user's words.

전세보증금 반환보증 practice measures a jeonse by (보증금 + 선순위 채권) ÷ 주택가격, so the senior
debt must be read, not dropped: "집주인 앞으로 대출이 1억" (a loan: the registered 채권최고액 is
usually 120–130% of it), "근저당 채권최고액 1억 2천" (the registered maximum claim itself),
"선순위 근저당 1억 5천" (a registered mortgage), "대출은 없대요" (none, in the user's words).
The tenant's own loan ("제가 전세대출 1억 받아서") is not ahead of the deposit and is not counted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

Basis = Literal["max_claim", "mortgage", "loan", "none_stated"]

_MAX_CLAIM = re.compile(r"채권\s?최고액|최고액|설정\s?(?:액|금액)")
_MORTGAGE = re.compile(r"근저당(?:권)?|저당|선순위(?:\s?채권)?|담보")
_LOAN = re.compile(r"대출(?:금)?|융자|빚|주담대")
_LANDLORD = re.compile(r"집\s?주인|임대인|주인|집에|집\s?앞으로|그\s?집|이\s?집|매물|건물|등기부")
_TENANTS_OWN = re.compile(r"제가|내가|저는|나는|전세\s?(?:자금\s?)?대출|전세자금|버팀목|보증금\s?대출")
_HELD = re.compile(r"^\s?(?:이|가|은|는|도)?\s?(?:있|잡혀|잡힌|껴|끼어|걸려|설정|남아)")
_NONE = re.compile(
    r"(?P<what>대출|근저당|융자|빚|선순위|저당)\s?(?:은|는|이|가|도|이나|도\s?전혀)?\s?"
    r"(?:전혀\s?|하나도\s?|아예\s?)?(?:없|0원|안\s?(?:잡혀|껴|받))")
_OTHER_ROLE = re.compile(r"보증금|전세|월세|매매|집값|시세|가격|연봉|소득")
_BEFORE = 20
_AFTER = 12


def _basis(text: str, start: int, end: int) -> Basis | None:
    """What kind of senior debt the amount at ``start:end`` is, or None when it is none."""
    after = text[end:end + _AFTER]
    clause_start = max(text.rfind(sep, 0, start) for sep in (",", ".", "?", "!", "\n")) + 1
    clause = text[max(clause_start, start - _BEFORE):start]
    near = text[max(clause_start, start - 10):start]  # the words right before the amount, in its clause
    if (other := _OTHER_ROLE.search(near)) and not any(
            p.search(near, other.end()) for p in (_MAX_CLAIM, _MORTGAGE, _LOAN)):
        return None  # "근저당이 있고 전세 1억 9천": the nearest role word is the deposit's
    if _MAX_CLAIM.search(near) or _MAX_CLAIM.match(after.lstrip()):
        return "max_claim"
    if _MORTGAGE.search(near) or re.match(r"^\s?(?:짜리\s?)?(?:근저당|저당|선순위)", after):
        return "mortgage"
    if _LOAN.search(near) or re.match(r"^\s?(?:의\s?)?(?:대출|융자|빚)", after):
        if _TENANTS_OWN.search(clause) or re.match(r"^\s?(?:을|를)?\s?(?:받|빌)", after):
            return None  # the tenant borrows: not ahead of the deposit
        if _LANDLORD.search(clause) or _HELD.match(after):
            return "loan"
    return None


def read_senior_debt(text: str, amounts: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """``{"manwon", "basis", "said"}`` for the senior debt the user stated (summed when several are
    named, e.g. two mortgages), ``{"manwon": 0, "basis": "none_stated", ...}`` when they said there is
    none, None when they said nothing. Each amount read as debt gets the role ``senior_debt``."""
    found: list[tuple[dict[str, Any], Basis]] = []
    for item in amounts:
        start = item["at"]
        basis = _basis(text, start, start + len(item["text"]))
        if basis is not None:
            found.append((item, basis))
    if found:
        for item, _ in found:
            item["role"] = "senior_debt"
        kinds = {b for _, b in found}
        overall: Basis = "max_claim" if kinds == {"max_claim"} else "loan" if kinds == {"loan"} else "mortgage"
        return {"manwon": sum(int(i["manwon"]) for i, _ in found), "basis": overall,
                "said": ", ".join(str(i["text"]) for i, _ in found)}
    if m := _NONE.search(text):
        return {"manwon": 0, "basis": "none_stated", "said": m.group(0)}
    return None
