"""The offline answer: quotes the paragraph that matches, cites 법 이름 + 제n조, says when data is
synthetic or a needed amount is missing, and declines out-of-scope questions plainly."""

from __future__ import annotations

from graphagents.agents.supervisor.offline.compose import OUT_OF_SCOPE, best_paragraph, compose, delegated_notes

ARTICLE_6_3 = ("① 제6조에도 불구하고 임대인은 임차인이 ... 계약갱신을 요구할 경우 정당한 사유 없이 거절하지 못한다.\n"
               "② 임차인은 제1항에 따른 계약갱신요구권을 1회에 한하여 행사할 수 있다.")


def citation(**more: object) -> dict[str, object]:
    return {"id": "주임법:제6조의3", "citation": "주택임대차보호법 제6조의3", "law": "주택임대차보호법",
            "article_no": "제6조의3", "title": "계약갱신 요구 등", "text": ARTICLE_6_3, "match": "hybrid", **more}


def test_the_matching_paragraph_is_quoted() -> None:
    assert best_paragraph(ARTICLE_6_3, "갱신요구권은 몇 번 쓸 수 있어?").startswith("②")


def test_citations_synthetic_data_and_missing_facts_are_said() -> None:
    agg = {"intent": {"intent_type": "market_analysis"}, "citations": [citation()],
           "analysis": {"computations": []}, "missing": ["연소득 — DSR·DTI 한도 계산에 필요"],
           "sources": [{"kind": "market", "synthetic": True}], "finish_reason": "plan_complete"}
    text = compose("갱신요구권은 몇 번?", agg)
    assert "주택임대차보호법 제6조의3(계약갱신 요구 등)" in text and "근거 조문: 주택임대차보호법 제6조의3" in text
    assert "합성(가상)" in text and "연소득" in text


def test_a_delegated_amount_is_listed_as_missing() -> None:
    art = citation(text="① 보증금 중 일정액의 범위와 기준은 대통령령으로 정한다.", id="주임법:제8조",
                   citation="주택임대차보호법 제8조", title="보증금 중 일정액의 보호")
    assert delegated_notes("소액임차인 최우선변제 금액이 얼마야?", [art]) == [
        "주택임대차보호법 제8조이 위임한 시행령·시행규칙의 구체적 금액·비율(데이터에 없음)"]
    assert delegated_notes("이 조문은 무슨 내용이야?", [art]) == []  # the amount is not what was asked
    reporting = citation(text="① 대통령령으로 정하는 금액을 초과하는 임대차 계약을 체결한 경우 신고하여야 한다.")
    assert delegated_notes("어떤 계약을 신고해?", [reporting])  # the condition itself lives in the decree


def test_out_of_scope_and_stall_notes() -> None:
    assert compose("주가", {"intent": {"intent_type": "out_of_scope"}}) == OUT_OF_SCOPE
    text = compose("x", {"intent": {"intent_type": "legal"}, "citations": [citation()], "finish_reason": "stall"})
    assert "새로운 정보가 나오지 않아" in text


def test_a_permit_area_question_names_the_designation_as_missing() -> None:
    import graphagents as ga

    reply = ga.load("supervisor", checkpoint_url="memory").session().send(
        "토지거래허가구역인 잠실 아파트를 사려는데 허가 절차 알려줘")
    assert "토지거래허가구역 지정 현황" in reply.text and "지정 공고로 확인" in reply.text
    assert "토지거래허가구역 지정 현황" in "".join(reply.state["missing"])
