"""The loan rules file: regulated areas and LTV / DTI / DSR / amount-cap / stress-rate rules.

It is a configuration file a user edits when the rules change, so it is validated at the
boundary (pydantic, extra="forbid") and every rule must name its source and its date.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from graphagents.errors import ConfigError

PACKAGE = "graphagents.agents.supervisor"
Buyer = Literal["first_home", "no_home", "one_home_disposal", "multi_home"]
AreaKind = Literal["regulated", "unregulated"]
Verification = Literal["official_text", "secondary_source", "unverified"]
VERIFICATION_LABELS: dict[str, str] = {"official_text": "공식 원문 확인", "secondary_source": "2차 출처로만 확인",
                                       "unverified": "미검증"}

BUYER_LABELS: dict[str, str] = {
    "first_home": "생애최초 주택구입자",
    "no_home": "무주택자",
    "one_home_disposal": "1주택자(처분조건부)",
    "multi_home": "다주택자",
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RegulatedArea(_Strict):
    id: str
    kind: list[str]
    sido: str
    sigungu: str | list[str]
    source: str = Field(min_length=3)
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    verification: Verification = "unverified"  # a user's file that says nothing is unverified
    checked: str = ""  # what was checked, against what

    @property
    def verified(self) -> bool:
        return self.verification == "official_text"

    def covers(self, sido: str | None, sigungu: str | None) -> bool:
        if self.sigungu == "*":
            return sido == self.sido or (sido is None and sigungu is not None and sigungu in SEOUL_GU)
        names = self.sigungu if isinstance(self.sigungu, list) else [self.sigungu]
        return sigungu in names


class Rule(_Strict):
    id: str
    kind: Literal["ltv", "dti", "dsr", "amount_cap", "stress_rate"]
    value: float | None = None
    value_manwon: int | None = None
    area: AreaKind | None = None
    buyer: list[Buyer] | None = None
    price_min_manwon: int | None = None
    price_max_manwon: int | None = None
    source: str = Field(min_length=3)
    date: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$")
    verification: Verification = "unverified"  # a user's file that says nothing is unverified
    checked: str = ""  # what was checked, against what

    @property
    def verified(self) -> bool:
        return self.verification == "official_text"

    def applies(self, area: AreaKind, buyer: Buyer, price_manwon: int | None = None) -> bool:
        if self.area is not None and self.area != area:
            return False
        if self.buyer is not None and buyer not in self.buyer:
            return False
        if self.kind == "amount_cap":
            if price_manwon is None:
                return False
            if self.price_min_manwon is not None and price_manwon <= self.price_min_manwon:
                return False
            if self.price_max_manwon is not None and price_manwon > self.price_max_manwon:
                return False
        return True


class LoanRules(_Strict):
    as_of: str
    checked_on: str | None = None
    caveat: str
    regulated_areas: list[RegulatedArea]
    rules: list[Rule]

    @field_validator("rules")
    @classmethod
    def _values_present(cls, rules: list[Rule]) -> list[Rule]:
        for rule in rules:
            if rule.kind == "amount_cap" and rule.value_manwon is None:
                raise ValueError(f"rule {rule.id!r}: an amount_cap needs value_manwon")
            if rule.kind != "amount_cap" and rule.value is None:
                raise ValueError(f"rule {rule.id!r}: a {rule.kind} rule needs value")
        return rules

    def area_of(self, sido: str | None, sigungu: str | None) -> tuple[AreaKind, RegulatedArea | None]:
        for area in self.regulated_areas:
            if area.covers(sido, sigungu):
                return "regulated", area
        return "unregulated", None

    def find(self, kind: str, area: AreaKind, buyer: Buyer, price_manwon: int | None = None) -> Rule | None:
        """The first matching rule of a kind; buyer-specific rules are listed before general ones."""
        matches = [r for r in self.rules if r.kind == kind and r.applies(area, buyer, price_manwon)]
        matches.sort(key=lambda r: r.buyer is None)
        return matches[0] if matches else None


SEOUL_GU = frozenset([
    "강남구", "강동구", "강북구", "강서구", "관악구", "광진구", "구로구", "금천구",
    "노원구", "도봉구", "동대문구", "동작구", "마포구", "서대문구", "서초구",
    "성동구", "성북구", "송파구", "양천구", "영등포구", "용산구", "은평구",
    "종로구", "중구", "중랑구",
])


@lru_cache(maxsize=8)
def load_loan_rules(path: str | None = None) -> LoanRules:
    """The bundled rules file, or the user's copy at ``path``."""
    try:
        if path:
            text = Path(path).expanduser().read_text(encoding="utf-8")
        else:
            text = resources.files(PACKAGE).joinpath("rules", "loan_rules.yaml").read_text("utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read loan rules {path!r}: {exc.strerror or exc}") from None
    try:
        return LoanRules.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError) as exc:
        first = " ".join(str(exc).split())[:300]
        raise ConfigError(f"loan rules {path or 'loan_rules.yaml'!r} are invalid: {first}") from None
