"""Analysis computations: statistics by size and period, trend, jeonse ratio, lease arithmetic,
jeonse risk, each with the numbers it used; missing inputs named instead of guessed."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from graphagents.agents.supervisor.analysis import lease, market, risk
from graphagents.agents.supervisor.analysis.runner import run_analysis
from graphagents.agents.supervisor.data import COLUMNS, transaction_rows
from graphagents.agents.supervisor.offline.entities import extract_entities

NAMES = [c[0] for c in COLUMNS]


@pytest.fixture(scope="module")
def table(dataset: Path) -> dict[str, object]:
    return {"columns": NAMES, "rows": [list(r) for r in transaction_rows(dataset)]}


def test_columns_are_recognised_by_name_not_position(table) -> None:  # type: ignore[no-untyped-def]
    txs = market.to_transactions(table["columns"], table["rows"])
    assert len(txs) == 284
    korean = ["단지명", "거래금액(만원)", "전용면적(㎡)", "계약년월"]
    rows = [[t.complex, f"{t.amount_manwon:,}", t.area_m2, t.contract_ym] for t in txs[:3]]
    again = market.to_transactions(korean, rows, default_deal_type="매매")
    assert [t.amount_manwon for t in again] == [t.amount_manwon for t in txs[:3]]
    assert market.to_transactions(["a", "b"], [[1, 2]]) == []


def test_price_stats_by_size_class_match_a_hand_count(table) -> None:  # type: ignore[no-untyped-def]
    txs = market.to_transactions(table["columns"], table["rows"])
    chosen, applied = market.select(txs, deal_type="매매", sigungu="송파구", area_range=(79.8, 88.2))
    expected = sorted(t.amount_manwon for t in txs if t.deal_type == "매매" and t.sigungu == "송파구"
                      and 79.8 <= t.area_m2 <= 88.2)
    (group,) = market.price_stats(chosen, by="size")
    assert group["count"] == len(expected) and group["min"] == expected[0] and group["max"] == expected[-1]
    assert applied == {"deal_type": "매매", "sigungu": "송파구", "area_m2": [79.8, 88.2]}


def test_the_period_window_ends_at_the_latest_month_present() -> None:
    assert market.months_back(202512, 6) == 202507
    assert market.months_back(202503, 6) == 202410


def test_trend_and_jeonse_ratio_show_their_numbers(table) -> None:  # type: ignore[no-untyped-def]
    txs = market.to_transactions(table["columns"], table["rows"])
    gangnam, _ = market.select(txs, sigungu="강남구")
    tr = market.trend([t for t in gangnam if t.deal_type == "매매"])
    assert tr is not None and tr["direction"] in ("상승", "하락", "보합") and len(tr["months"]) >= 3
    jr = market.jeonse_ratio(gangnam)
    assert jr is not None and 20 < jr["median_ratio_pct"] < 90
    pair = jr["pairs"][0]
    assert pair["ratio_pct"] == round(pair["jeonse_median"] / pair["sale_median"] * 100, 1)


def test_increase_cap_is_one_twentieth_and_a_percentage_alone_still_gets_a_verdict() -> None:
    out = lease.increase_cap(30_000, 10.0)
    assert out["max_increase_manwon"] == 1_500 and out["max_after_manwon"] == 31_500 and out["exceeds_cap"]
    only_pct = lease.increase_cap(None, 4.0)
    assert only_pct["exceeds_cap"] is False and only_pct["missing"]


def test_renewal_window_is_six_to_two_months_before_the_end() -> None:
    out = lease.renewal_window(date(2026, 9, 30))
    assert (out["from"], out["to"]) == ("2026-03-30", "2026-07-30")
    assert lease.add_months(date(2026, 3, 31), -1) == date(2026, 2, 28)
    assert "지금 요구할 수 있습니다" in lease.renewal_status(5)["verdict"]
    assert "끝났습니다" in lease.renewal_status(1)["verdict"]


def test_conversion_never_invents_the_decree_rate() -> None:
    out = lease.conversion_rent(10_000, 2.5)
    assert out["missing"] and "대통령령" in out["missing"][1]
    assert "partial_manwon" in out and "가산 이율" in out["numbers"]


def test_damages_compute_only_the_rent_parts_and_say_what_is_missing() -> None:
    ents = extract_entities("집주인이 실거주한다고 갱신 거절하고 석 달 뒤에 월세 100만원에 다른 사람을 들였어. "
                            "나는 보증금 1억에 월세 80만원이었는데 손해배상액을 계산해줘")
    out = run_analysis("손해배상액을 계산해줘", ents, {})
    (comp,) = [c for c in out["computations"] if c["kind"] == "damages"]
    parts = {p["item"][:3]: p["amount_manwon"] for p in comp["result"]["parts"]}
    assert parts == {"제1호": 240, "제2호": 480}  # 80만원 × 3, (100 − 80)만원 × 24
    assert any("제7조의2" in m for m in out["missing"]) and any("새 임차인의 보증금" in m for m in out["missing"])


def test_jeonse_risk_crosses_thresholds_and_names_unknown_debt() -> None:
    high = risk.jeonse_risk(40_000, 50_000, {"manwon": 10_000, "basis": "max_claim"}, price_source="user")
    assert high["ratio_pct"] == 100.0 and high["level"] == "very_high" and len(high["flags"]) == 4
    assert "채권최고액" in high["numbers"] and "4억원" in high["numbers"] and "5억원" in high["numbers"]
    # a 채권최고액 the user gave is used as said: not called unknown, not listed as missing
    assert not high["missing"] and not high["lower_bound"] and not any("하한" in n for n in high["notes"])
    assert any("채권최고액 1억원을 말씀대로" in n for n in high["notes"])
    low = risk.jeonse_risk(20_000, 50_000, None, price_source="user")
    assert low["level"] == "low" and low["missing"] and low["lower_bound"]
    assert any("하한" in n for n in low["notes"])


def test_a_loan_is_the_principal_and_the_ratio_is_also_shown_at_the_usual_max_claim() -> None:
    r = risk.jeonse_risk(25_000, 40_000, {"manwon": 5_000, "basis": "loan"}, price_source="사용자 제시")
    assert r["ratio_pct"] == 75.0 and r["max_claim_range_pct"] == [77.5, 78.8]
    assert "집주인 대출" in r["numbers"] and any("120%~130%" in n for n in r["notes"])


@pytest.mark.parametrize(("query", "ratio", "basis"), [
    ("보증금 2억 8천에 집주인 대출 1억 있는 빌라, 매매가 3억 5천이면 위험해?", 108.6, "loan"),
    ("채권최고액 6천만원 근저당이 있고 전세 1억 9천, 집값 2억 6천인 집 깡통전세야?", 96.2, "max_claim"),
    ("선순위로 근저당 9천 잡혀 있대요. 보증금 1억 5천, 시세 3억이면 안전한가요?", 80.0, "mortgage"),
    ("집주인은 근저당 없다고 해요. 전세 2억 7천, 매매가 3억이면 위험?", 90.0, "none_stated"),
    ("전세자금대출 1억 받아서 보증금 2억 집에 들어가는데 매매가는 4억, 위험한가요?", 50.0, None),
    ("전세 2억 2천, 시세 2억 5천, 근저당 설정된 게 3천 있대요 위험?", 100.0, "mortgage"),
    ("Is my jeonse safe? deposit 300 million won, the landlord has a mortgage of 150 million, "
     "the house is worth 400 million (보증금 3억원, 선순위 채권 1억 5,000만원, 매매가 4억원, 깡통전세 위험 근저당)",
     112.5, "mortgage"),
    # no risk word at all: a deposit, a debt ahead of it and a price are what the ratio is made of
    ("보증금 2억, 집값 3억, 집주인 대출 5천 있는 집 괜찮을까요?", 83.3, "loan"),
])
def test_the_ratio_counts_the_debt_ahead_of_the_deposit(query: str, ratio: float, basis: str | None) -> None:
    out = run_analysis(query, extract_entities(query), {})
    (r,) = [c["result"] for c in out["computations"] if c["kind"] == "jeonse_risk"]
    assert (r["ratio_pct"], r["senior_debt_basis"]) == (ratio, basis)


def test_deposit_debt_and_price_plan_the_risk_check_not_a_loan_calculation() -> None:
    from graphagents.agents.supervisor.offline.classifier import PlanningClassifier
    from graphagents.retrieval import load_embedder

    query = "보증금 3억 5천, 집값 4억, 집주인 대출 1억 있는 빌라 괜찮아요?"
    guess = PlanningClassifier(load_embedder()).classify(query, extract_entities(query))
    assert "analysis" in guess.teams and "loans" not in guess.scopes


def test_runner_filters_market_rows_by_the_entities(table) -> None:  # type: ignore[no-untyped-def]
    query = "송파구 전용 84㎡ 아파트 최근 6개월 매매 실거래가 평균 알려줘"
    out = run_analysis(query, extract_entities(query), {"search": {"market": {"table": table, "source": {}}}})
    stats = next(c for c in out["computations"] if c["kind"] == "price_stats")
    filters = stats["result"]["filters"]
    assert filters["deal_type"] == "매매" and filters["sigungu"] == "송파구" and filters["period"][1] == 202512
    assert all(g["deal_type"] == "매매" for g in stats["result"]["groups"])


def test_runner_without_inputs_computes_nothing_it_cannot() -> None:
    out = run_analysis("마포구 전세가율 알려줘", extract_entities("마포구 전세가율 알려줘"), {})
    assert out["computations"] == []
