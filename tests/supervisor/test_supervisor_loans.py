"""The loan calculator: rules with sources and dates, the binding limit, missing inputs named."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphagents.agents.supervisor.data import load_loan_products
from graphagents.agents.supervisor.tools.loan_rules import load_loan_rules
from graphagents.agents.supervisor.tools.loans import LoanQuery, calculate, max_principal, monthly_payment
from graphagents.errors import ConfigError


@pytest.fixture(scope="module")
def products(dataset: Path):  # type: ignore[no-untyped-def]
    return load_loan_products(dataset)


def test_every_rule_names_its_source_and_date() -> None:
    rules = load_loan_rules()
    assert rules.rules and rules.regulated_areas
    for rule in [*rules.rules, *rules.regulated_areas]:
        assert len(rule.source) > 10 and rule.date[:2] == "20"


def test_every_bundled_rule_says_how_far_it_was_checked() -> None:
    """The bundled file cannot be checked against official texts offline: nothing in it may claim so."""
    rules = load_loan_rules()
    for rule in [*rules.rules, *rules.regulated_areas]:
        assert rule.verification in ("secondary_source", "unverified") and rule.checked
    assert rules.checked_on


def _user_rules(tmp_path: Path, verification: str) -> str:
    path = tmp_path / f"rules_{verification}.yaml"
    path.write_text(
        'as_of: "2026-01-01"\ncaveat: "확인하세요"\nregulated_areas: []\nrules:\n'
        '  - {id: ltv-all, kind: ltv, value: 0.5, source: "내 은행 내규 2026", date: "2026-01-01", '
        f'verification: {verification}}}\n', encoding="utf-8")
    return str(path)


def test_unverified_figures_are_estimates_in_the_answer_and_checked_ones_are_not(  # type: ignore[no-untyped-def]
        tmp_path: Path, products) -> None:
    from graphagents.agents.supervisor.offline.compose import _loan_lines

    query = LoanQuery(price_manwon=50_000, buyer="no_home", term_years=30)
    unchecked = calculate(query, load_loan_rules(_user_rules(tmp_path, "unverified")), products)
    assert unchecked["unverified"] == ["ltv-all"] and unchecked["limits"][0]["verification"] == "unverified"
    text = "\n".join(_loan_lines(unchecked))
    assert "추정" in text and "미검증" in text and "규칙상 최대" not in text
    checked = calculate(query, load_loan_rules(_user_rules(tmp_path, "official_text")), products)
    assert checked["unverified"] == []
    text = "\n".join(_loan_lines(checked))
    assert "규칙상 최대 대출 가능 금액: 2억 5,000만원" in text and "미검증" not in text


def test_without_price_or_income_a_products_ceiling_is_not_called_a_loan_amount(products) -> None:  # type: ignore[no-untyped-def]
    from graphagents.agents.supervisor.offline.compose import _loan_lines

    out = calculate(LoanQuery(), load_loan_rules(), products)
    text = "\n".join(_loan_lines(out))
    assert "상품 자체 상한" in text and "대출 가능 금액이 아닙니다" in text and "월 상환" not in text


def test_level_payment_and_its_inverse_agree() -> None:
    pay = monthly_payment(40_000, 0.045, 30)
    assert round(pay, 1) == 202.7  # 4억, 4.5%, 30 years: about 202.7만원 a month
    assert round(max_principal(pay * 12, 0.045, 30)) == 40_000
    assert monthly_payment(1_200, 0.0, 1) == 100


def test_regulated_seoul_purchase_is_capped_by_the_price_band(products) -> None:  # type: ignore[no-untyped-def]
    out = calculate(LoanQuery(price_manwon=230_900, sido="서울특별시", sigungu="강남구", buyer="no_home",
                              income_manwon=10_000, term_years=30), load_loan_rules(), products)
    kinds = {lim["kind"]: lim for lim in out["limits"]}
    assert out["area"]["status"] == "regulated"
    assert kinds["LTV"]["amount_manwon"] == 92_360 and kinds["LTV"]["rule"] == "ltv-regulated-no-home"
    assert kinds["한도"]["amount_manwon"] == 40_000  # 15억 < price <= 25억
    assert out["max_loan_manwon"] == min(lim["amount_manwon"] for lim in out["limits"])
    assert out["complete"] and not out["missing"]
    assert all(lim["source"] and lim["date"] for lim in out["limits"])


def test_first_home_buyer_gets_the_higher_ratio_and_dsr_binds_on_a_small_income(products) -> None:  # type: ignore[no-untyped-def]
    rules = load_loan_rules()
    first = calculate(LoanQuery(price_manwon=80_000, sigungu="노원구", buyer="first_home", income_manwon=3_000),
                      rules, products)
    ltv = next(lim for lim in first["limits"] if lim["kind"] == "LTV")
    assert ltv["ratio"] == 0.70 and ltv["amount_manwon"] == 56_000
    assert first["binding"] == "DSR" and first["max_loan_manwon"] < 56_000


def test_what_is_not_known_is_missing_and_assumptions_are_said(products) -> None:  # type: ignore[no-untyped-def]
    out = calculate(LoanQuery(), load_loan_rules(), products)
    assert out["max_loan_manwon"] is None and not out["complete"]
    assert any("연소득" in m for m in out["missing"]) and any("가격" in m for m in out["missing"])
    assert any("무주택자로 가정" in a for a in out["assumptions"])


def test_jeonse_loans_use_the_deposit_ratio_and_the_product_cap(products) -> None:  # type: ignore[no-untyped-def]
    out = calculate(LoanQuery(purpose="전세", deposit_manwon=30_000), load_loan_rules(), products)
    amounts = {p["id"]: p["amount_manwon"] for p in out["products"]}
    assert amounts == {"SYN-LOAN-3": 20_000, "SYN-LOAN-4": 24_000}  # 3억 × 80%, youth product capped at 2억
    assert out["max_loan_manwon"] == 24_000 and all(p["synthetic"] for p in out["products"])


def test_a_broken_rules_file_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "rules.yaml"
    bad.write_text("as_of: x\ncaveat: y\nregulated_areas: []\nrules:\n  - {id: a, kind: ltv, value: 0.5}\n")
    with pytest.raises(ConfigError, match="invalid"):
        load_loan_rules(str(bad))
