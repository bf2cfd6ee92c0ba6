from __future__ import annotations

import pytest

from graphagents.llm import (
    GARBAGE,
    REPRINT_PROMPT,
    StreamingXmlSectionsExtractor,
    ToolCall,
    XmlProtocolError,
    escape_xml,
    parse_react_xml,
    parse_with_repair,
    partial_parse,
    render_response,
    wrap_cdata,
)
from graphagents.llm.xml_protocol import TEXT_SECTIONS, reprint_request
from graphagents.llm.xml_salvage import TagIndex, children

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


# ------------------------------------------------------------------ repair never promotes quoted text
QUOTED_CALL = (
    "<response><reasoning><![CDATA[I could run <tool_call><name>submit_sql</name><parameters>"
    "<sql>DELETE FROM customers</sql></parameters></tool_call> but I will not.]]></reasoning>"
    "<user_facing>Sales & returns are in two tables.</user_facing></response>"
)


def test_repair_never_promotes_a_tool_call_quoted_in_cdata() -> None:
    outcome = parse_with_repair(QUOTED_CALL, reprint=lambda _: GARBAGE)  # the stray & breaks strict XML
    assert outcome.path == "partial"
    assert outcome.step.tool_call is None
    assert outcome.step.user_facing == "Sales & returns are in two tables."
    assert "DELETE FROM customers" in outcome.step.reasoning


def test_repair_never_promotes_a_tool_call_inside_a_closed_element() -> None:
    text = ("<reasoning>the plan: <tool_call><name>submit_sql</name><parameters><sql>DROP TABLE t</sql>"
            "</parameters></tool_call> later</reasoning><user_facing>a & b</user_facing>")
    step = partial_parse(text)
    assert step.tool_call is None and step.user_facing == "a & b"
    assert "DROP TABLE t" in step.reasoning


def test_partial_parse_closes_a_forgotten_section_at_the_next_sibling() -> None:
    text = ("<reasoning>look at the tables & columns<tool_call><name>search_tables</name>"
            "<parameters><query>고객 &amp; 주문</query></parameters></tool_call>")
    step = partial_parse(text)
    assert step.reasoning == "look at the tables & columns"
    assert step.tool_call == ToolCall("search_tables", {"query": "고객 & 주문"})


def test_partial_parse_never_takes_a_truncated_parameter() -> None:
    step = partial_parse("<tool_call><name>submit_sql</name><parameters><sql>SELECT * FROM t WHERE a = 1 AND")
    assert step.tool_call == ToolCall("submit_sql", {})


def test_sections_are_parameters() -> None:
    text = "<response><plan>1. look</plan><user_facing>ok</user_facing></response>"
    step = parse_react_xml(text, sections=("plan", "user_facing"))
    assert step.extra == {"plan": "1. look"} and step.section("plan") == "1. look"
    broken = "<response><plan>1. look & see</plan><user_facing>ok</user_facing>"
    assert partial_parse(broken, sections=("plan", "user_facing")).extra == {"plan": "1. look & see"}


def test_reprint_prompt_is_a_parameter_and_the_default_is_not_about_sql() -> None:
    assert "SQL" not in REPRINT_PROMPT
    assert reprint_request("<bad>", "Fix this plan: {{response}}") == "Fix this plan: <bad>"
    assert reprint_request("{{response}} <x>").endswith("{{response}} <x>")  # values are never re-expanded


# ------------------------------------------------------------------ linear on adversarial input
def test_partial_parse_of_30k_unclosed_tags_visits_each_tag_a_bounded_number_of_times() -> None:
    for text in ("<reasoning>" * 3000, "<tool_call><parameters>" + "<x>" * 10_000, "<a " * 10_000,
                 "<![CDATA[" * 5000, "<tool_call name='x'>" * 3000 + "<user_facing>end"):
        index = TagIndex(text)
        top = children(index, 0, len(index.tags), len(text), boundary=(*TEXT_SECTIONS, "tool_call"),
                       transparent=("response",))
        for el in top:
            children(index, el.first, el.last, el.end, boundary=("name", "parameters"))
        assert index.visits <= 3 * len(index.tags) + 1
    with pytest.raises(XmlProtocolError):
        partial_parse("<reasoning>" * 3000)
    assert partial_parse("<tool_call name='x'>" * 3000 + "<user_facing>end").user_facing == "end"


def test_streaming_extractor_scans_each_character_a_bounded_number_of_times() -> None:
    body = "가나다 <b> & SELECT a < b " * 40_000  # ~1 MB of reasoning in 16-character chunks
    text = f"<response><reasoning>{body}</reasoning><user_facing>끝</user_facing></response>"
    ex = StreamingXmlSectionsExtractor(throttle_s=0.0, clock=lambda: 0.0)
    chunks = [text[i : i + 16] for i in range(0, len(text), 16)]
    deltas = [d for c in chunks for d in ex.feed(c)] + ex.flush()
    assert ex.scanned <= len(text) + 12 * len(chunks)  # a held-back tail is at most one marker long
    assert "".join(d.text for d in deltas if d.section == "reasoning") == body
    assert ex.section_text("user_facing") == "끝"


def test_streaming_extractor_reads_cdata_as_text_and_strips_its_markers() -> None:
    ex = StreamingXmlSectionsExtractor(throttle_s=0.0, clock=lambda: 0.0)
    text = "<reasoning>a <![CDATA[x </reasoning> y]]> b</reasoning><user_facing>u</user_facing>"
    for i in range(0, len(text), 3):
        ex.feed(text[i : i + 3])
    ex.flush()
    assert ex.section_text("reasoning") == "a x </reasoning> y b"
    assert ex.section_text("user_facing") == "u"
