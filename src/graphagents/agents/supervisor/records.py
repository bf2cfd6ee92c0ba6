"""Frozen records of the supervisor's data: statute articles, transactions and loan products.

Graph state keeps plain dicts (every checkpointer can store them); these records are what the
tools and computations work with in between.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Article:
    """One statute article: ``id`` is "주임법:제6조의3", ``citation`` is "주택임대차보호법 제6조의3"."""

    id: str
    law: str
    law_short: str
    article_no: str
    title: str
    text: str
    deleted: bool = False
    effective: str = ""  # 시행일자 of the law version, when known
    url: str = ""  # the official page of the law (law.go.kr)

    @property
    def citation(self) -> str:
        return f"{self.law} {self.article_no}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "citation": self.citation}


@dataclass(frozen=True, slots=True)
class LoanProduct:
    id: str
    name: str
    purpose: str  # 매매 | 전세
    rate_annual: float
    max_amount_manwon: int
    term_years: tuple[int, ...]
    eligibility: str
    max_ltv: float | None = None
    max_dsr: float | None = None
    max_deposit_ratio: float | None = None
    synthetic: bool = True

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["term_years"] = list(self.term_years)
        return data


@dataclass(frozen=True, slots=True)
class Transaction:
    """One apartment deal: ``amount_manwon`` is the price (매매) or the deposit (전세), in 만원."""

    deal_type: str
    sigungu: str
    complex: str
    area_m2: float
    contract_ym: int
    amount_manwon: int
    contract_day: int | None = None
    floor: int | None = None
    build_year: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def year(self) -> int:
        return self.contract_ym // 100

    @property
    def month(self) -> int:
        return self.contract_ym % 100

    @property
    def pyeong(self) -> float:
        return self.area_m2 / 3.305785
