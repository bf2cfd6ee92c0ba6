"""중개보수 from the legal fee table: the figures the 2021 revision's reports give, the caps of the
low bands, the monthly-rent rule, and a decline (never a figure) when the house, the kind of deal
or the amount is unknown."""

from __future__ import annotations

import pytest

from graphagents.agents.supervisor.analysis import fees
from graphagents.agents.supervisor.analysis.runner import run_analysis
from graphagents.agents.supervisor.offline.entities import extract_entities


@pytest.mark.parametrize(("kind", "manwon", "fee_won"), [
    ("sale", 90_000, 4_500_000),     # 9억 매매: 810만 -> 450만 (reported with the 2021 revision)
    ("sale", 120_000, 7_200_000),    # 12억: 720만
    ("sale", 150_000, 10_500_000),   # 15억: 1,050만
    ("lease", 60_000, 2_400_000),    # 6억 전세: 480만 -> 240만
    ("lease", 90_000, 3_600_000),    # 9억 전세: 360만
    ("sale", 4_500, 250_000),        # 4,500만 매매: 0.6% = 27만, capped at 25만
    ("sale", 19_000, 800_000),       # 1억 9천 매매: 0.5% = 95만, capped at 80만
    ("lease", 8_000, 300_000),       # 8천 전세: 0.4% = 32만, capped at 30만
    ("lease", 59_999, 1_799_970),    # just under 6억: still 0.3%
])
def test_the_fee_table(kind: str, manwon: int, fee_won: int) -> None:
    assert fees.fee_cap(kind, manwon)["fee_won"] == fee_won  # type: ignore[arg-type]


def test_a_monthly_rent_counts_a_hundred_months_or_seventy_below_fifty_million() -> None:
    assert fees.lease_amount(10_000, 100)[0] == 20_000
    amount, how = fees.lease_amount(1_000, 30)  # 1,000 + 30 x 100 = 4,000 < 5,000: x 70 -> 3,100
    assert amount == 3_100 and "× 70" in how
    assert fees.fee_cap("lease", amount)["fee_won"] == 155_000  # the 15만 5,000원 of the reports


def test_the_table_ships_with_its_source_date_and_how_it_was_checked() -> None:
    t = fees.fee_table()
    assert "별표 1" in t.source and t.effective == "2021-10-19" and t.verification == "secondary_source"
    assert t.checked and t.checked_on


@pytest.mark.parametrize(("query", "fee"), [
    ("6억짜리 아파트 매매하면 중개보수 상한이 얼마야?", 2_400_000),
    ("전세 2억 5천 계약하면 복비 얼마야?", 750_000),
    ("보증금 1억에 월세 100만원 빌라 중개비는?", 600_000),
    ("20억 아파트 사면 중개 수수료 최대 얼마?", 14_000_000),
])
def test_questions_get_the_figure_with_its_inputs(query: str, fee: int) -> None:
    out = run_analysis(query, extract_entities(query), {})
    (c,) = [c for c in out["computations"] if c["kind"] == "brokerage_fee"]
    assert c["result"]["fee_won"] == fee and "거래금액" in c["numbers"] and c["articles"] == ["공인중개사법:제32조"]


@pytest.mark.parametrize(("query", "missing"), [
    ("오피스텔 매매 중개보수 얼마예요?", "오피스텔"),
    ("상가 임대 복비는 얼마나 돼요?", "상가"),
    ("중개보수는 보통 얼마예요?", "거래 종류"),
    ("아파트 매매 중개수수료 상한 알려줘", "매매가"),
])
def test_without_a_house_a_deal_kind_or_an_amount_there_is_no_figure(query: str, missing: str) -> None:
    out = run_analysis(query, extract_entities(query), {})
    (c,) = [c for c in out["computations"] if c["kind"] == "brokerage_fee"]
    assert "fee_won" not in c["result"] and missing in c["missing"][0]
