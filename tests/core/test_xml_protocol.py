from __future__ import annotations

import pytest

from graphagents.llm import (
    GARBAGE,
    StreamingXmlSectionsExtractor,
    XmlProtocolError,
    escape_xml,
    parse_react_xml,
    parse_with_repair,
    render_response,
    wrap_cdata,
)

GOOD = """<response>
  <reasoning>Need the plan first.</reasoning>
  <user_facing>실행 계획을 확인할게요.</user_facing>
  <tool_call><name>explain</name>
    <parameters><sql><![CDATA[SELECT * FROM t WHERE a < 3 AND b > 1]]></sql><limit>5</limit></parameters>
  </tool_call>
</response>"""


def test_clean_parse() -> None:
    step = parse_react_xml(GOOD)
    assert step.reasoning == "Need the plan first."
    assert step.user_facing == "실행 계획을 확인할게요."
    assert step.tool_call is not None
    assert step.tool_call.name == "explain"
    assert step.tool_call.parameters == {"sql": "SELECT * FROM t WHERE a < 3 AND b > 1", "limit": "5"}


def test_render_round_trip_keeps_markup_characters() -> None:
    sql = "SELECT a FROM t WHERE x < 1 AND y > 2 AND s = 'a&b' AND z = ']]>'"
    text = render_response(reasoning="r <b>", user_facing="u & v", tool="submit_sql", parameters={"sql": sql})
    step = parse_react_xml(text)
    assert step.tool_call is not None and step.tool_call.parameters["sql"] == sql
    assert step.reasoning == "r <b>" and step.user_facing == "u & v"


def test_escape_and_cdata() -> None:
    assert escape_xml("<a & 'b'>") == "&lt;a &amp; &apos;b&apos;&gt;"
    assert wrap_cdata("plain") == "plain"
    assert wrap_cdata("a<b").startswith("<![CDATA[")


def test_strict_parse_rejects_broken_xml() -> None:
    with pytest.raises(XmlProtocolError):
        parse_react_xml("<response><tool_call><name>x</name><parameters><sql>SELECT 1 < 2</sql>")


def test_repair_chain_prefers_reprint() -> None:
    broken = "<reasoning>hm</reasoning><tool_call><name>explain</name><parameters><sql>SELECT 1 < 2</sql>"
    outcome = parse_with_repair(broken, reprint=lambda _: GOOD)
    assert outcome.path == "reprint"
    assert outcome.step.tool_call is not None and outcome.step.tool_call.name == "explain"


def test_repair_chain_falls_back_to_partial_parse() -> None:
    broken = "<reasoning>hm</reasoning><tool_call><name>submit_sql</name><parameters><sql>SELECT 1 < 2</sql>"

    def failing_reprint(_: str) -> str:
        raise RuntimeError("model down")

    outcome = parse_with_repair(broken, reprint=failing_reprint)
    assert outcome.path == "partial"
    assert outcome.step.tool_call is not None
    assert outcome.step.tool_call.parameters == {"sql": "SELECT 1 < 2"}
    assert any("model down" in p for p in outcome.problems)


def test_repair_chain_ends_in_error_step_never_an_exception() -> None:
    outcome = parse_with_repair(GARBAGE, reprint=lambda _: GARBAGE)
    assert outcome.path == "error"
    assert outcome.step.is_error
    assert outcome.step.tool_call is not None and outcome.step.tool_call.parameters["message"]


def test_streaming_extractor_emits_incrementally_and_holds_partial_close_tags() -> None:
    clock = iter(range(100))
    ex = StreamingXmlSectionsExtractor(throttle_s=0.0, clock=lambda: float(next(clock)))
    chunks = ["<response><reason", "ing>Look at ", "the tables</reas", "oning><user_facing>안녕",
              "하세요</user_facing>"]
    deltas = [d for c in chunks for d in ex.feed(c)]
    reasoning = "".join(d.text for d in deltas if d.section == "reasoning")
    assert reasoning == "Look at the tables"
    assert "</" not in reasoning
    assert [d.complete for d in deltas if d.section == "reasoning"][-1] is True
    assert "".join(d.text for d in deltas if d.section == "user_facing") == "안녕하세요"


def test_streaming_extractor_throttles() -> None:
    now = [0.0]
    ex = StreamingXmlSectionsExtractor(throttle_s=1.0, clock=lambda: now[0])
    assert ex.feed("<reasoning>a") != []
    assert ex.feed("b") == []  # within the throttle window
    now[0] = 2.0
    assert [d.text for d in ex.feed("c")] == ["bc"]
    assert [d.text for d in ex.flush()] == []
    ex.feed("d")
    assert "".join(d.text for d in ex.flush()) in {"d", ""}
    assert ex.section_text("reasoning") == "abcd"
