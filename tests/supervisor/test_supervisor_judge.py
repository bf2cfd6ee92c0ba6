"""The measuring stick: supervisor's scorer gives right only to right answers.

Each case is a label of the held-out file with a reply written by hand: a right one, and wrong ones
made from it (the number the issue's newcomer got, the name left out, the article quoted for a
topic we do not cover, an empty reply). A judge that says "right" to everything, or "declined" to
everything, must fail these checks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from graphagents.agents.supervisor.eval import score
from graphagents.evals import Case, Output, Score

HELDOUT = (Path(__file__).parents[2] / "src/graphagents/agents/supervisor/evaldata/heldout_queries.jsonl")


def judge(label: dict[str, Any], reply: str, cited: Sequence[str], *, ran: Sequence[str] = (),
          error: str = "") -> Score:
    case = Case(label["id"], label["query"], label)
    return score(case, Output(reply, {"reply": reply, "cited": list(cited), "ran": list(ran)}, error=error))
LABELS = {row["id"]: row for row in map(json.loads, HELDOUT.read_text("utf-8").splitlines())}

RISK = ("깡통전세 점검: (보증금 2억 5,000만원 + 선순위 채권 1억원[집주인 대출]) ÷ 주택가격 3억원 = 116.7% → 깡통전세")
DOC = ("발신인(임차인): 이민호 / 수신인(임대인): 박영희 / 목적물: 서울 마포구 성산동 123-4번지 201호\n"
       "임대차계약(보증금 1억 5,000만원)은 2025년 8월 31일에 종료되었습니다.")
OOS = "주택 청약(자격·가점)은(는) 제가 가진 자료에 없어 답할 수 없습니다. 청약홈에서 확인하세요."
FEE = "중개보수 상한: 500만원 (거래금액: 매매가 10억원; 10억원 × 0.5% = 500만원)"

# (label id, reply, cited articles, teams that ran, the verdict a correct judge gives)
CASES: list[tuple[str, str, list[str], list[str], str]] = [
    ("sup-h01", RISK, [], ["search", "analysis"], "right"),
    ("sup-h01", RISK.replace("116.7%", "83.3%").replace(" + 선순위 채권 1억원[집주인 대출]", ""), [], [], "wrong"),
    ("sup-h01", "요청하신 시세를 조회하지 못했습니다.", [], ["search"], "declined"),
    ("sup-h11", DOC, ["주임법:제4조", "주임법:제3조의3"], ["search", "document"], "right"),
    ("sup-h11", DOC.replace("박영희", "(미기재: 임대인 성명)"), ["주임법:제4조", "주임법:제3조의3"], [], "wrong"),
    ("sup-h11", DOC.replace("이민호", "김민호"), ["주임법:제4조", "주임법:제3조의3"], [], "partial"),
    ("sup-h20", OOS, [], [], "right"),
    ("sup-h20", "관련 법 조문: 주택임대차보호법 제3조 「...」", ["주임법:제3조"], ["search"], "wrong"),
    ("sup-h20", "", [], [], "declined"),  # an empty reply declines (the harness rule)
    ("sup-h35", FEE, ["공인중개사법:제32조"], ["search", "analysis"], "right"),
    ("sup-h35", FEE.replace("500만원", "400만원").replace("0.5%", "0.4%"), ["공인중개사법:제32조"], [], "partial"),
    ("sup-h35", "요청하신 시세를 조회하지 못했습니다.", [], [], "wrong"),
    ("sup-h42", "민법 제629조(임차권의 양도, 전대의 제한) 「임차인은 임대인의 동의없이 … 전대하지 못한다.」",
     ["민법:제629조"], ["search"], "right"),
    ("sup-h42", "민법 제623조 「임대인은 목적물을 …」", ["민법:제623조"], ["search"], "wrong"),
    ("sup-h42", "관련 자료를 찾지 못했어요.", [], ["search"], "declined"),
    ("sup-h57", "제6조의3 …", ["주임법:제6조의3"], ["search"], "partial"),
    ("sup-h30", "헬리오시티의 거래는 시세 데이터에 없어 이 단지의 시세는 답할 수 없습니다.", [], ["search"], "right"),
    ("sup-h30", "조회된 거래 46건 (SQL은 아래에 표시).", [], ["search"], "wrong"),
]


def _check(fn: Callable[..., Score], cases: Sequence[tuple[str, str, list[str], list[str], str]]) -> list[Any]:
    return [(cid, want, got) for cid, reply, cited, ran, want in cases
            if (got := fn(LABELS[cid], reply, cited, ran=ran).status) != want]


def test_the_judge_gives_each_reply_its_verdict() -> None:
    assert _check(judge, CASES) == []


@pytest.mark.parametrize("always", ["right", "declined", "partial", "wrong"])
def test_a_judge_that_always_says_the_same_fails(always: str) -> None:
    def constant(*_: Any, **__: Any) -> Score:
        return Score(always)  # type: ignore[arg-type]

    assert _check(constant, CASES) != []


def test_a_wrong_oracle_scores_no_right_answer() -> None:
    """Every label answered with another label's right reply, or nothing, or an error."""
    rights = [(cid, reply, cited) for cid, reply, cited, _, want in CASES if want == "right"]
    shifted = [(rights[i][0], rights[(i + 1) % len(rights)][1], rights[(i + 1) % len(rights)][2])
               for i in range(len(rights))]
    verdicts = [judge(LABELS[cid], reply, cited).status for cid, reply, cited in shifted]
    verdicts += [judge(label, "", []).status for label in LABELS.values()]
    verdicts += [judge(label, "ok", list(label["required_citations"]), error="timeout").status
                 for label in LABELS.values()]
    assert "right" not in verdicts


def test_dev_labels_are_judged_by_their_citations() -> None:
    label = {"id": "d", "query": "q", "teams": ["search"], "required_citations": ["주임법:제3조", "주임법:제3조의2"]}
    ran = ["search"]
    assert judge(label, "…", ["주임법:제3조", "주임법:제3조의2", "주임법:제8조"], ran=ran).status == "right"
    assert judge(label, "…", ["주임법:제3조"], ran=ran).status == "partial"
    assert judge(label, "관련 법 조문: 민법 제618조", ["민법:제618조"], ran=ran).status == "wrong"
    assert judge(label, "관련 자료를 찾지 못했어요.", [], ran=ran).status == "declined"
