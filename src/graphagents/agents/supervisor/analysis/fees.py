"""중개보수: the upper limit of a broker's fee for a house, from the legal fee table shipped as
package data (``rules/brokerage_fees.yaml``, with its source, date and how it was checked).

Computed only when the question says what is needed: a house (not an 오피스텔, shop or land, whose
rates the table does not hold), the kind of deal (매매 or 임대차) and its amount. Otherwise the
answer says what is missing instead of a figure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict

from graphagents.korean import format_krw

from .. import entities as ent
from ..units import format_manwon

PACKAGE = "graphagents.agents.supervisor"
ARTICLES = ["공인중개사법:제32조"]
HOUSES_ONLY = "포함된 요율표는 주택(매매·임대차)뿐이라 계산하지 않았습니다"
FEE = re.compile(r"중개\s?(?:보수|수수료|비)|복비|부동산\s?수수료|중개료")
_NOT_HOUSE = re.compile(r"오피스텔|상가|점포|사무실|토지|땅|공장|창고|건물\s?(?:전체|통)")
_LEASE = re.compile(r"전세|월세|보증금|임대|임차|세입|세\s?놓|반전세")
_SALE = re.compile(r"매매|매수|매도|사(?:려|면|서|고|기)|살\s?때|산다|구입|팔(?:려|면|고|기)|팔\s?때|판다|분양")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Band(_Strict):
    below_manwon: int | None = None
    per_mille: int
    cap_manwon: int | None = None


class FeeTable(_Strict):
    source: str
    effective: str
    checked_on: str
    verification: Literal["official_text", "secondary_source", "unverified"]
    checked: str
    rent_multiplier: int
    small_rent_multiplier: int
    small_deal_below_manwon: int
    sale: list[Band]
    lease: list[Band]


@lru_cache(maxsize=1)
def fee_table() -> FeeTable:
    text = resources.files(PACKAGE).joinpath("rules", "brokerage_fees.yaml").read_text("utf-8")
    return FeeTable.model_validate(yaml.safe_load(text))


def _band(bands: list[Band], amount_manwon: int) -> Band:
    return next(b for b in bands if b.below_manwon is None or amount_manwon < b.below_manwon)


def _range(bands: list[Band], band: Band) -> str:
    i = bands.index(band)
    low = bands[i - 1].below_manwon if i else None
    if band.below_manwon is None:
        return f"{format_manwon(low or 0)} 이상"
    return (f"{format_manwon(low)} 이상 " if low else "") + f"{format_manwon(band.below_manwon)} 미만"


def fee_cap(kind: Literal["sale", "lease"], amount_manwon: int) -> dict[str, Any]:
    """The upper limit for a deal of ``amount_manwon`` (the 거래금액): rate × amount, capped."""
    table = fee_table()
    bands = table.sale if kind == "sale" else table.lease
    band = _band(bands, amount_manwon)
    raw_won = amount_manwon * 10_000 * band.per_mille // 1000
    cap_won = band.cap_manwon * 10_000 if band.cap_manwon is not None else None
    fee_won = min(raw_won, cap_won) if cap_won is not None else raw_won
    rate = f"{band.per_mille / 10:g}%"
    numbers = f"{format_manwon(amount_manwon)} × {rate} = {format_krw(raw_won)}"
    if cap_won is not None:
        numbers += f", 한도 {format_krw(cap_won)}" + (" 적용" if raw_won > cap_won else " 이내")
    return {"kind": kind, "amount_manwon": amount_manwon, "rate": rate, "band": _range(bands, band),
            "cap_won": cap_won, "fee_won": fee_won, "numbers": numbers, "source": table.source,
            "effective": table.effective, "verification": table.verification}


def lease_amount(deposit_manwon: int, rent_manwon: int) -> tuple[int, str]:
    """The 거래금액 of a lease with a monthly rent: 보증금 + 월차임 × 100 (× 70 when that is under 5천만원)."""
    t = fee_table()
    amount = deposit_manwon + rent_manwon * t.rent_multiplier
    how = f"보증금 {format_manwon(deposit_manwon)} + 월세 {format_manwon(rent_manwon)} × {t.rent_multiplier}"
    if amount < t.small_deal_below_manwon:
        amount = deposit_manwon + rent_manwon * t.small_rent_multiplier
        how = (f"보증금 {format_manwon(deposit_manwon)} + 월세 {format_manwon(rent_manwon)} × "
               f"{t.small_rent_multiplier}(×{t.rent_multiplier}로 {format_manwon(t.small_deal_below_manwon)} 미만)")
    return amount, f"{how} = {format_manwon(amount)}"


def _missing(base: dict[str, Any], what: str) -> dict[str, Any]:
    return {**base, "result": {}, "numbers": "", "missing": [what]}


def _deal_kind(text: str, price: int | None, lease_amount: int | None) -> Literal["sale", "lease"] | None:
    """매매 or 임대차: from the amounts' roles when they say it, else from the words; None if both or neither."""
    if price and not lease_amount:
        return "sale"
    if lease_amount and not price:
        return "lease"
    sale, lease = bool(_SALE.search(text)), bool(_LEASE.search(text))
    return "sale" if sale and not lease else "lease" if lease and not sale else None


def brokerage_fee(text: str, entities: Mapping[str, Any]) -> dict[str, Any]:
    """The computation record for a 중개보수 question: the figure with its inputs, or what is missing."""
    base: dict[str, Any] = {"kind": "brokerage_fee", "title": "중개보수 상한", "articles": list(ARTICLES)}
    if m := _NOT_HOUSE.search(text):
        return _missing(base, f"{m.group(0)} 중개보수 요율 — {HOUSES_ONLY}")
    price, deposit = ent.amount(entities, "price"), ent.amount(entities, "deposit")
    rent = ent.amount(entities, "monthly_rent")
    others = ent.amounts(entities, "other")
    kind = _deal_kind(text, price, deposit or rent)
    if kind is None:
        return _missing(base, "거래 종류(매매인지 전세·월세인지) — 중개보수 요율이 거래 종류마다 다릅니다")
    if kind == "sale":
        amount = price or (others[0] if len(others) == 1 else None)
        if amount is None:
            return _missing(base, "매매가(거래금액) — 중개보수 상한 계산에 필요")
        result, how = fee_cap("sale", amount), f"매매가 {format_manwon(amount)}"
    else:
        deposit = deposit or (others[0] if len(others) == 1 else None)
        if deposit is None and rent is None:
            return _missing(base, "보증금(월세면 월세도) — 중개보수 상한 계산에 필요")
        if rent:
            amount, how = lease_amount(deposit or 0, rent)
        else:
            amount, how = int(deposit or 0), f"보증금 {format_manwon(int(deposit or 0))}"
        result = fee_cap("lease", amount)
    result["basis"] = how
    if "원룸" in text:
        result["note"] = "원룸이 오피스텔이면 주택 요율이 아니라 오피스텔 요율이 적용됩니다"
    return {**base, "result": result, "numbers": f"거래금액: {how}; {result['numbers']}", "missing": []}
