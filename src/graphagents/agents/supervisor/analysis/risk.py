"""Risks a Korean tenant cares about: 깡통전세 as 전세보증금 반환보증 practice measures it,
(보증금 + 선순위 채권) ÷ 주택가격, against documented bands, and the registry items to check.

Every figure carries its inputs and where each came from: the deposit and the price the user
said (or the market median, named as such), and the senior debt in the user's words — a 채권최고액
is used as said; a loan is the principal, so the ratio is also shown at the 채권최고액 the registry
usually records (120–130% of the loan); a debt the user did not mention makes the ratio a lower
bound, said in so many words.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from ..units import format_manwon

PACKAGE = "graphagents.agents.supervisor"
Verification = Literal["official_text", "secondary_source", "unverified", "arithmetic", "convention"]
UNKNOWN_DEBT = "선순위 채권 미확인(0원으로 계산)"
MISSING_DEBT = "선순위 채권(근저당 채권최고액 등) — 등기부등본 을구에서 확인해 다시 계산하세요"
UNVERIFIED_HUG = "HUG 90% 기준은 보증 규정 원문과 대조하지 못한 값입니다(미검증): 가입 가능 여부는 HUG에 확인하세요."
DEBT_WORDS = {"max_claim": "채권최고액", "mortgage": "근저당(등기부 금액)", "loan": "집주인 대출(원금)",
              "none_stated": "없음(사용자 말)"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Threshold(_Strict):
    id: str
    ratio: float = Field(gt=0, le=2)
    level: str
    label: str
    source: str
    date: str
    verification: Verification
    checked: str = ""


class RegistryCheck(_Strict):
    item: str
    articles: list[str]


class RiskRules(_Strict):
    checked_on: str
    thresholds: list[Threshold]
    max_claim_share: tuple[float, float]
    registry_checks: list[RegistryCheck]


@lru_cache(maxsize=1)
def risk_rules() -> RiskRules:
    text = resources.files(PACKAGE).joinpath("rules", "risk_rules.yaml").read_text("utf-8")
    return RiskRules.model_validate(yaml.safe_load(text))


def _bands(ratio: float) -> list[Threshold]:
    return [t for t in sorted(risk_rules().thresholds, key=lambda t: -t.ratio) if ratio >= t.ratio]


def _flag(t: Threshold) -> dict[str, Any]:
    return {"id": t.id, "label": t.label, "source": t.source, "date": t.date, "verification": t.verification}


def jeonse_risk(deposit_manwon: int, price_manwon: int, debt: Mapping[str, Any] | None,
                *, price_source: str) -> dict[str, Any]:
    """The ratio with its inputs, the bands it crosses, and what the user should still check.

    ``debt``: ``{"manwon", "basis", "said"}`` as read from the user's words (``offline.debt``), or
    None when they said nothing about debt ahead of the deposit."""
    basis = (debt or {}).get("basis")
    senior = int((debt or {}).get("manwon") or 0)
    ratio = (deposit_manwon + senior) / price_manwon
    crossed = _bands(ratio)
    debt_label = f"선순위 채권 {format_manwon(senior)}[{DEBT_WORDS[basis]}]" if basis else UNKNOWN_DEBT
    out: dict[str, Any] = {
        "ratio_pct": round(ratio * 100, 1), "level": crossed[0].level if crossed else "low",
        "deposit_manwon": deposit_manwon, "senior_debt_manwon": senior if basis else None,
        "senior_debt_basis": basis, "price_manwon": price_manwon, "price_source": price_source,
        "numbers": f"({format_manwon(deposit_manwon)} + {format_manwon(senior)}) ÷ {format_manwon(price_manwon)} = "
                   f"{ratio:.1%} (보증금 {format_manwon(deposit_manwon)}, {debt_label}, 주택가격 "
                   f"{format_manwon(price_manwon)}[{price_source}])",
        "flags": [_flag(t) for t in crossed], "notes": [], "articles": ["주임법:제3조의2", "주임법:제8조"],
        "missing": [], "lower_bound": basis is None,
    }
    if basis == "loan":
        low, high = risk_rules().max_claim_share
        r_low, r_high = ((deposit_manwon + senior * s) / price_manwon for s in (low, high))
        out["max_claim_range_pct"] = [round(r_low * 100, 1), round(r_high * 100, 1)]
        claims = f"{format_manwon(round(senior * low))}~{format_manwon(round(senior * high))}"
        out["notes"].append(
            f"말씀하신 대출 {format_manwon(senior)}은 원금으로 보고 계산했습니다. 등기부에는 보통 대출의 "
            f"{low:.0%}~{high:.0%}가 채권최고액({claims})으로 잡히고 HUG 반환보증도 채권최고액을 선순위 채권으로 "
            f"봅니다: 그 기준이면 {r_low:.1%}~{r_high:.1%}" + (f" → {_bands(r_low)[0].label}" if _bands(r_low) else ""))
    elif basis == "mortgage":
        out["notes"].append(f"근저당 {format_manwon(senior)}을 등기부의 채권최고액으로 보고 계산했습니다. "
                            "대출 원금을 말씀하신 것이라면 채권최고액은 보통 그 120~130%라 비율이 더 높습니다.")
    elif basis == "max_claim":  # what the registry records and HUG counts: used as said
        out["notes"].append(f"채권최고액 {format_manwon(senior)}을 말씀대로 선순위 채권으로 계산했습니다"
                            "(HUG 반환보증도 채권최고액을 봅니다).")
    elif basis == "none_stated":
        out["notes"].append("선순위 채권은 말씀대로 0원으로 계산했습니다. "
                            "등기부등본 을구에서 근저당이 없는지 직접 확인하세요.")
    elif basis is None:
        out["notes"].append("선순위 채권(근저당·집주인 대출)을 알 수 없어 보증금만으로 계산한 하한입니다: "
                            f"실제 비율은 {ratio:.1%} 이상입니다.")
        out["missing"].append(MISSING_DEBT)
    if any(t.verification == "unverified" for t in crossed):
        out["notes"].append(UNVERIFIED_HUG)
    return out


def method_lines() -> list[str]:
    """How the check is made, with the bands and their basis: said when the numbers are missing."""
    bands = "; ".join(f"{t.ratio:.0%} 이상: {t.label.split(' — ')[0]} [{t.source.split(' (')[0].split(' —')[0]}"
                      f"{', 미검증' if t.verification == 'unverified' else ''}]"
                      for t in sorted(risk_rules().thresholds, key=lambda t: -t.ratio))
    return ["판단 방법(전세보증금 반환보증 방식): (보증금 + 선순위 채권) ÷ 주택가격. 선순위 채권은 등기부등본 을구의 "
            "근저당 채권최고액(보통 대출의 120~130%)과 먼저 들어온 세입자의 보증금입니다.", f"기준: {bands}"]


def registry_checklist() -> list[dict[str, Any]]:
    return [{"item": c.item, "articles": list(c.articles)} for c in risk_rules().registry_checks]
