"""A complex the user names is looked up as that complex: its rows, or "not in the data" — never
the district's rows counted in its place."""

from __future__ import annotations

import re

import pytest

from graphagents.agents.supervisor.analysis.market import restrict_to_complex
from graphagents.agents.supervisor.offline.complexes import named_complex
from graphagents.agents.supervisor.offline.lexicon import normalise


@pytest.mark.parametrize(("query", "name"), [
    ("반포자이 전세 시세 알려줘", "반포자이"),
    ("도곡렉슬 34평 매매가", "도곡렉슬"),
    ("잠실 파크리오 59㎡ 최근 거래", "파크리오"),
    ("래미안대치팰리스 아파트 전세가율", "래미안대치팰리스"),
    ("노원구 상계주공 7단지 매매", "상계주공"),
    ("개포 디에이치아너힐즈 84㎡ 실거래가", "디에이치아너힐즈"),
])
def test_a_named_complex_is_read(query: str, name: str) -> None:
    assert named_complex(normalise(query)) == name


@pytest.mark.parametrize("query", [
    "강남구 30평대 아파트 매매 시세", "마포구 59㎡ 아파트 전세가율", "우리 아파트 전세 시세", "신축 아파트 84㎡ 시세",
    "역에서 가까운 아파트 매매가", "가상단지B 서초구 전세", "잠실 아파트 최근 거래", "전세 3억 매매가 4억이면 위험해?",
])
def test_regions_sizes_and_ordinary_words_are_no_complex(query: str) -> None:
    assert named_complex(normalise(query)) is None


def test_only_the_named_complexs_rows_are_kept() -> None:
    table = {"columns": ["complex", "amount_manwon"], "rows": [["가상단지A(송파구)", 1], ["가상단지B(송파구)", 2]]}
    kept = restrict_to_complex({"table": table, "rows": 2}, "가상단지B(송파구)")
    assert kept["table"]["rows"] == [["가상단지B(송파구)", 2]] and kept["rows"] == 1
    gone = restrict_to_complex({"table": table, "rows": 2}, "반포자이")
    assert gone["table"] is None and gone["rows"] == 0 and gone["complex_missing"]["returned_rows"] == 2
    blind = restrict_to_complex({"table": {"columns": ["amount_manwon"], "rows": [[1]]}, "rows": 1}, "반포자이")
    assert blind["table"] is None and "단지명 열이 없어" in blind["complex_missing"]["why"]


@pytest.mark.usefixtures("dataset")
def test_a_complex_not_in_the_data_is_said_not_replaced_by_its_district() -> None:
    from graphagents.agents.supervisor.spec import SPEC
    from graphagents.runtime import Agent

    session = Agent(SPEC, llm="offline", checkpoint_url="memory").session()
    reply = session.send("반포자이 84㎡ 최근 매매 시세 알려줘")
    assert reply.text.startswith("반포자이의 거래는 시세 데이터에 없어")
    assert "중앙값" not in reply.text and "조회된 거래" not in reply.text
    risk = session.send("도곡렉슬 전세 5억인데 근저당 2억이면 깡통전세야?")
    assert risk.text.startswith("도곡렉슬의 거래는") and "매매가를 함께 알려" in risk.text
    assert not re.search(r"÷ 주택가격 \d", risk.text)  # no ratio at some other home's price


def test_a_name_shared_by_several_complexes_is_asked_about_not_averaged() -> None:
    table = {"columns": ["complex", "amount_manwon"],
             "rows": [["가상단지B(강남구)", 1], ["가상단지B(노원구)", 2], ["가상단지A(노원구)", 3]]}
    out = restrict_to_complex({"table": table, "rows": 3}, "가상단지B")
    assert out["table"] is None and "여러 곳" in out["complex_missing"]["why"]
    one = restrict_to_complex({"table": table, "rows": 3}, "가상단지B(노원구)")
    assert one["rows"] == 1
