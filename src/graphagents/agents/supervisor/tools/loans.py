"""The loan tool: a deterministic LTV / DTI / DSR calculator over the rules file and products.

Every limit it reports names the rule (source and date) and the numbers it used. What it needs
but was not told (income, price) is listed as missing rather than guessed; assumptions it does
make (buyer type, term) are listed as assumptions so the answer can say them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..records import LoanProduct
from ..units import format_manwon
from .loan_rules import BUYER_LABELS, VERIFICATION_LABELS, Buyer, LoanRules, Rule

DEFAULT_TERM_YEARS = 30
DEFAULT_BUYER: Buyer = "no_home"


@dataclass(frozen=True)
class LoanQuery:
    purpose: str = "매매"  # 매매 | 전세
    price_manwon: int | None = None
    price_source: str = ""  # "user", "market median (synthetic)", ...
    deposit_manwon: int | None = None
    sido: str | None = None
    sigungu: str | None = None
    buyer: Buyer | None = None
    income_manwon: int | None = None  # annual income
    other_debt_service_manwon: int = 0  # yearly principal + interest of other loans
    term_years: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


def monthly_payment(principal: float, annual_rate: float, years: int) -> float:
    """Level payment (원리금균등) per month."""
    n = years * 12
    r = annual_rate / 12
    if r == 0:
        return principal / n
    return principal * r / (1 - (1 + r) ** -n)


def max_principal(yearly_budget: float, annual_rate: float, years: int) -> float:
    """The principal whose level payments cost ``yearly_budget`` a year."""
    per_unit = monthly_payment(1.0, annual_rate, years) * 12
    return max(yearly_budget, 0.0) / per_unit


def _rule_ref(rule: Rule) -> dict[str, Any]:
    return {"rule": rule.id, "source": rule.source, "date": rule.date, "verification": rule.verification,
            "verification_label": VERIFICATION_LABELS[rule.verification], "checked": rule.checked}


def calculate(query: LoanQuery, rules: LoanRules, products: tuple[LoanProduct, ...]) -> dict[str, Any]:
    """Limits, the binding one and per-product amounts, for a purchase or a jeonse deposit."""
    if query.purpose == "전세":
        return _jeonse(query, rules, products)
    missing: list[str] = []
    assumptions: list[str] = []
    area, area_rule = rules.area_of(query.sido, query.sigungu)
    buyer = query.buyer
    if buyer is None:
        buyer = DEFAULT_BUYER
        assumptions.append(f"주택 보유 여부를 말하지 않아 {BUYER_LABELS[buyer]}로 가정했습니다")
    term = query.term_years or DEFAULT_TERM_YEARS
    if query.term_years is None:
        assumptions.append(f"대출 기간을 {term}년 원리금균등 상환으로 가정했습니다")
    if query.sigungu is None and query.sido is None:
        assumptions.append("지역을 몰라 비규제지역 기준으로 계산했습니다")
    limits: list[dict[str, Any]] = []
    price = query.price_manwon
    if price is None:
        missing.append("주택 가격(매매가) — LTV 한도 계산에 필요")
    ltv = rules.find("ltv", area, buyer)
    if ltv is not None and price is not None:
        assert ltv.value is not None
        limits.append({"kind": "LTV", "ratio": ltv.value, "amount_manwon": int(price * ltv.value),
                       "numbers": f"{format_manwon(price)} × {ltv.value:.0%}", **_rule_ref(ltv)})
    cap = rules.find("amount_cap", area, buyer, price)
    if cap is not None:
        assert cap.value_manwon is not None
        limits.append({"kind": "한도", "amount_manwon": cap.value_manwon,
                       "numbers": f"시가 {format_manwon(price or 0)} 구간 상한", **_rule_ref(cap)})
    stress = rules.find("stress_rate", area, buyer)
    stress_add = stress.value if stress is not None and stress.value is not None else 0.0
    dsr = rules.find("dsr", area, buyer)
    dti = rules.find("dti", area, buyer)
    base_rate = min((p.rate_annual for p in products if p.purpose == "매매"), default=0.04)
    if query.income_manwon is None:
        missing.append("연소득 — DSR·DTI 한도 계산에 필요")
    else:
        income = query.income_manwon
        if dsr is not None and dsr.value is not None:
            budget = dsr.value * income - query.other_debt_service_manwon
            rate = base_rate + stress_add
            amount = int(max_principal(budget, rate, term))
            limits.append({"kind": "DSR", "ratio": dsr.value, "amount_manwon": amount,
                           "numbers": f"연소득 {format_manwon(income)} × {dsr.value:.0%} − 기존 원리금 "
                                      f"{format_manwon(query.other_debt_service_manwon)}, 금리 {base_rate:.2%}"
                                      f" + 스트레스 {stress_add:.2%}, {term}년", **_rule_ref(dsr),
                           **({"stress": _rule_ref(stress)} if stress is not None else {})})
        if dti is not None and dti.value is not None:
            budget = dti.value * income - query.other_debt_service_manwon
            amount = int(max_principal(budget, base_rate, term))
            limits.append({"kind": "DTI", "ratio": dti.value, "amount_manwon": amount,
                           "numbers": f"연소득 {format_manwon(income)} × {dti.value:.0%}, 금리 {base_rate:.2%}, "
                                      f"{term}년",
                           **_rule_ref(dti)})
    binding = min(limits, key=lambda lim: lim["amount_manwon"]) if limits else None
    complete = price is not None and query.income_manwon is not None
    return {
        "purpose": "매매",
        "price_manwon": price,
        "price_source": query.price_source,
        "area": {"status": area, "label": "규제지역" if area == "regulated" else "비규제지역",
                 **({"rule": area_rule.id, "source": area_rule.source, "date": area_rule.date,
                     "verification": area_rule.verification} if area_rule is not None else {})},
        "buyer": buyer,
        "buyer_label": BUYER_LABELS[buyer],
        "term_years": term,
        "limits": limits,
        "max_loan_manwon": binding["amount_manwon"] if binding else None,
        "binding": binding["kind"] if binding else None,
        "unverified": _unverified(limits, area_rule),
        "complete": complete,
        "products": [_product(p, query, binding["amount_manwon"] if binding else None, term)
                     for p in products if p.purpose == "매매"],
        "missing": missing,
        "assumptions": assumptions,
        "as_of": rules.as_of,
        "caveat": rules.caveat,
    }


def _unverified(limits: list[dict[str, Any]], area_rule: Any) -> list[str]:
    """The rules behind these figures that were not checked against an official text."""
    ids = [lim["rule"] for lim in limits if lim.get("verification") != "official_text"]
    ids += [lim["stress"]["rule"] for lim in limits
            if lim.get("stress") and lim["stress"].get("verification") != "official_text"]
    if area_rule is not None and area_rule.verification != "official_text":
        ids.append(area_rule.id)
    return list(dict.fromkeys(ids))


def _product(p: LoanProduct, query: LoanQuery, regulatory_max: int | None, term: int) -> dict[str, Any]:
    amounts = [p.max_amount_manwon]
    if p.max_ltv is not None and query.price_manwon is not None:
        amounts.append(int(query.price_manwon * p.max_ltv))
    if regulatory_max is not None:
        amounts.append(regulatory_max)
    amount = min(amounts)
    years = term if term in p.term_years else max(p.term_years)
    return {"id": p.id, "name": p.name, "rate_annual": p.rate_annual, "eligibility": p.eligibility,
            "amount_manwon": amount, "term_years": years,
            "monthly_payment_manwon": round(monthly_payment(amount, p.rate_annual, years), 1),
            "synthetic": p.synthetic}


def _jeonse(query: LoanQuery, rules: LoanRules, products: tuple[LoanProduct, ...]) -> dict[str, Any]:
    missing: list[str] = []
    deposit = query.deposit_manwon
    if deposit is None:
        missing.append("전세 보증금 — 전세대출 한도 계산에 필요")
    rows: list[dict[str, Any]] = []
    for p in products:
        if p.purpose != "전세":
            continue
        ratio = p.max_deposit_ratio or 0.0
        amount = min(int(deposit * ratio), p.max_amount_manwon) if deposit is not None else None
        years = max(p.term_years)
        rows.append({"id": p.id, "name": p.name, "rate_annual": p.rate_annual, "eligibility": p.eligibility,
                     "ratio": ratio, "amount_manwon": amount, "term_years": years,
                     "numbers": (f"보증금 {format_manwon(deposit)} × {ratio:.0%}, "
                                 f"상한 {format_manwon(p.max_amount_manwon)}") if deposit is not None else "",
                     "yearly_interest_manwon": round(amount * p.rate_annual, 1) if amount is not None else None,
                     "synthetic": p.synthetic})
    best = max((int(r["amount_manwon"]) for r in rows if r["amount_manwon"] is not None), default=None)
    return {
        "purpose": "전세", "deposit_manwon": deposit, "products": rows, "max_loan_manwon": best,
        "limits": [], "binding": None, "complete": deposit is not None,
        "missing": missing, "assumptions": [], "as_of": rules.as_of, "caveat": rules.caveat,
    }
