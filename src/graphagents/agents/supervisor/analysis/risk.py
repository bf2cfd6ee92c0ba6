"""Risks a Korean tenant cares about: 깡통전세 (deposit plus senior debt near the price) and the
registry items to check, each with the rule or article behind it."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from ..units import format_manwon

PACKAGE = "graphagents.agents.supervisor"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Threshold(_Strict):
    id: str
    ratio: float = Field(gt=0, le=2)
    level: str
    label: str
    source: str
    date: str


class RegistryCheck(_Strict):
    item: str
    articles: list[str]


class RiskRules(_Strict):
    thresholds: list[Threshold]
    registry_checks: list[RegistryCheck]


@lru_cache(maxsize=1)
def risk_rules() -> RiskRules:
    text = resources.files(PACKAGE).joinpath("rules", "risk_rules.yaml").read_text("utf-8")
    return RiskRules.model_validate(yaml.safe_load(text))


def jeonse_risk(deposit_manwon: int, price_manwon: int, senior_debt_manwon: int | None,
                *, price_source: str) -> dict[str, Any]:
    """(보증금 + 선순위 채권) / 매매가, with every threshold it crosses; unknown debt is said, not zero."""
    debt = senior_debt_manwon or 0
    ratio = (deposit_manwon + debt) / price_manwon
    crossed = [t for t in sorted(risk_rules().thresholds, key=lambda t: -t.ratio) if ratio >= t.ratio]
    level = crossed[0].level if crossed else "low"
    out: dict[str, Any] = {
        "ratio_pct": round(ratio * 100, 1), "level": level, "deposit_manwon": deposit_manwon,
        "senior_debt_manwon": senior_debt_manwon, "price_manwon": price_manwon, "price_source": price_source,
        "numbers": f"({format_manwon(deposit_manwon)} + {format_manwon(debt)}) ÷ {format_manwon(price_manwon)} "
                   f"= {ratio:.1%}",
        "flags": [{"id": t.id, "label": t.label, "source": t.source, "date": t.date} for t in crossed],
        "articles": ["주임법:제3조의2", "주임법:제8조"], "missing": [],
    }
    if senior_debt_manwon is None:
        out["missing"].append("선순위 채권(근저당 채권최고액 등) — 등기부등본 을구에서 확인해 다시 계산하세요")
    return out


def registry_checklist() -> list[dict[str, Any]]:
    return [{"item": c.item, "articles": list(c.articles)} for c in risk_rules().registry_checks]
