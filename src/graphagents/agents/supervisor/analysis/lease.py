"""Lease-law arithmetic of 주택임대차보호법: increase cap, renewal window, notice, damages.

Amounts the statute delegates to the enforcement decree (시행령) are not in our data; where a
computation needs one, the result says so in ``missing`` and computes only what the statute
itself fixes, never a guessed rate.
"""

from __future__ import annotations

import calendar
from datetime import date
from typing import Any

from ..units import format_manwon


def add_months(day: date, months: int) -> date:
    """Calendar month arithmetic, clamping to the month's last day (3/31 - 1 month = 2/28)."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(day.day, last))


def increase_cap(current_manwon: int | None, requested_pct: float | None = None, *,
                 kind: str = "보증금") -> dict[str, Any]:
    """제7조②: an increase may not exceed 1/20 (5%) of the agreed deposit or rent.

    With only a requested percentage the verdict is still possible; the amounts need the current one."""
    out: dict[str, Any] = {
        "kind": kind, "current_manwon": current_manwon, "cap_pct": 5.0, "articles": ["주임법:제7조"],
        "notes": ["시·도 조례로 상한을 더 낮게 정할 수 있습니다(제7조② 단서)",
                  "증액 청구는 계약 또는 직전 증액 후 1년 이내에는 할 수 없습니다(제7조①)"],
        "missing": [],
    }
    if current_manwon is not None:
        cap = current_manwon * 5 // 100
        out.update(max_increase_manwon=cap, max_after_manwon=current_manwon + cap,
                   numbers=f"{format_manwon(current_manwon)} × 1/20 = {format_manwon(cap)}")
    else:
        out["numbers"] = "증액 상한 = 현재 금액 × 1/20 (5%)"
        out["missing"].append(f"현재 {kind} 금액 — 상한 금액 계산에 필요")
    if requested_pct is not None:
        out["requested_pct"] = requested_pct
        out["exceeds_cap"] = requested_pct > 5.0
        if current_manwon is not None:
            out["requested_increase_manwon"] = round(current_manwon * requested_pct / 100)
    return out


def renewal_status(months_left: int) -> dict[str, Any]:
    """Whether a renewal request is possible now, from "N개월 남았다" (제6조의3①: 6 to 2 months before)."""
    if months_left > 6:
        verdict = f"아직 이릅니다: 만료 6개월 전부터({months_left - 6}개월 뒤부터) 요구할 수 있습니다"
    elif months_left >= 2:
        verdict = f"지금 요구할 수 있습니다: 만료 2개월 전까지(앞으로 약 {months_left - 2}개월 안에) 하세요"
    else:
        verdict = "만료 2개월 전이 지나 계약갱신요구권 행사 기간이 끝났습니다(묵시적 갱신 여부는 제6조 참고)"
    return {"months_left": months_left, "verdict": verdict, "articles": ["주임법:제6조의3", "주임법:제6조"],
            "numbers": f"만료까지 {months_left}개월, 요구 기간은 만료 6~2개월 전"}


def renewal_window(end: date) -> dict[str, Any]:
    """제6조의3① (with 제6조① 전단): a renewal request is made 6 to 2 months before the term ends."""
    start, stop = add_months(end, -6), add_months(end, -2)
    return {"end_date": end.isoformat(), "from": start.isoformat(), "to": stop.isoformat(),
            "articles": ["주임법:제6조의3", "주임법:제6조"],
            "numbers": f"만료일 {end.isoformat()}의 6개월 전 {start.isoformat()} ~ 2개월 전 {stop.isoformat()}",
            "notes": ["기간 계산(초일 불산입 등) 해석에 따라 하루 차이가 날 수 있습니다"]}


def termination_effective(notice_received: date) -> dict[str, Any]:
    """제6조의2②: after an implied renewal, the tenant's notice takes effect 3 months after receipt."""
    effective = add_months(notice_received, 3)
    return {"notice_received": notice_received.isoformat(), "effective": effective.isoformat(),
            "articles": ["주임법:제6조의2"],
            "numbers": f"통지 도달일 {notice_received.isoformat()} + 3개월 = {effective.isoformat()}"}


def conversion_rent(converted_manwon: int, base_rate_pct: float | None) -> dict[str, Any]:
    """제7조의2: the monthly rent for a converted deposit is capped by two decree-defined rates."""
    missing = ["제7조의2 제1호의 비율(대통령령)", "제7조의2 제2호의 기준금리 가산 이율(대통령령)"]
    out: dict[str, Any] = {
        "converted_manwon": converted_manwon, "articles": ["주임법:제7조의2"],
        "formula": "월차임 상한 = 전환 금액 × min(시행령 비율, 기준금리 + 시행령 가산 이율) ÷ 12",
        "missing": missing,
    }
    if base_rate_pct is not None:
        out["base_rate_pct"] = base_rate_pct
        per_pct = converted_manwon * 0.01 / 12
        out["numbers"] = (f"{format_manwon(converted_manwon)} × (기준금리 {base_rate_pct}% + 가산 이율) ÷ 12; "
                          f"비율 1%p당 월 {per_pct:,.2f}만원")
        out["partial_manwon"] = round(converted_manwon * base_rate_pct / 100 / 12, 2)
        out["partial_note"] = "기준금리만 반영한 금액(가산 이율 제외)이며 상한 자체가 아닙니다"
    return out


def renewal_refusal_damages(old_rent_manwon: int | None, new_rent_manwon: int | None,
                            old_deposit_manwon: int | None = None) -> dict[str, Any]:
    """제6조의3⑥: the larger of 3 months of 환산월차임 and 2 years of its increase (or actual loss).

    환산월차임 converts deposits with the 제7조의2 rates, which are decree amounts we do not hold,
    so only the rent parts are computed and labelled as lower bounds.
    """
    missing = ["보증금을 월차임으로 환산하는 제7조의2 비율(대통령령)"]
    parts: list[dict[str, Any]] = []
    if old_rent_manwon is not None:
        parts.append({"item": "제1호: 갱신거절 당시 월차임 3개월분(보증금 환산분 제외)",
                      "amount_manwon": old_rent_manwon * 3, "numbers": f"{format_manwon(old_rent_manwon)} × 3"})
    if old_rent_manwon is not None and new_rent_manwon is not None:
        diff = max(new_rent_manwon - old_rent_manwon, 0)
        parts.append({"item": "제2호: 새 임대의 월차임과의 차액 2년분(보증금 환산분 제외)",
                      "amount_manwon": diff * 24,
                      "numbers": f"({format_manwon(new_rent_manwon)} − {format_manwon(old_rent_manwon)}) × 24"})
        missing.append("새 임차인의 보증금(질문에 없음)")
    elif new_rent_manwon is None:
        missing.append("새 임차인의 월차임과 보증금")
    if old_deposit_manwon:
        missing.append(f"기존 보증금 {format_manwon(old_deposit_manwon)}의 환산월차임")
    largest = max(parts, key=lambda p: p["amount_manwon"]) if parts else None
    return {"parts": parts, "lower_bound_manwon": largest["amount_manwon"] if largest else None,
            "articles": ["주임법:제6조의3", "주임법:제7조의2"], "missing": missing,
            "notes": ["실제 손해액(제3호)이 더 크면 그 금액을 청구할 수 있습니다"]}
