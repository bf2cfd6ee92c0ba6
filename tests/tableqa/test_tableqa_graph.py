"""The agent end to end: chaining, immutable originals, voting, retries, caps, declines, escapes."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from tableqa_helpers import DEPARTMENT, MANAGEMENT, coder_prompts, planner_prompts, scripted, values

import graphagents as ga
from graphagents.errors import InputError
from graphagents.sandbox import get_store
from graphagents.sandbox.codec import frame_to_ipc, make_arrow_safe
from graphagents.sandbox.store import table_id_for

TABLES = [DEPARTMENT, MANAGEMENT]


def ask(question: str, llm: Any = None, tables: list[str] | None = None, **options: Any) -> Any:
    agent = ga.load("tableqa", llm, tables=tables or TABLES, **options)
    return agent.session().send(question)


def test_done_means_question_offline() -> None:
    reply = ask("Which department has the most employees, and what is its budget?")
    assert values(reply) == ["Defense", "439.3"]
    steps = reply.state["steps"]
    assert [s["action"] for s in steps] == ["Retrieve", "Operate", "Finish"]
    assert "nlargest(1, 'Num_Employees'" in steps[0]["code"]
    assert reply.state["tables_used"] == ["department"]
    assert "Defense | 439.3" in reply.text and "Retrieve[" in reply.text


def _chain_model() -> Any:
    plans = [
        "Thought 1: join the tables.\nAction 1: Retrieve[join department and management on the department id]",
        "Thought 2: keep the big budgets.\nAction 2: Operate[keep rows of df with Budget_in_Billions above 10]",
        "Thought 3: count them.\nAction 3: Operate[count the rows of df]",
        "Thought 4: done.\nAction 4: Finish[df]",
    ]
    codes = [
        "```python\nnew_table = df_orig_1.merge(df_orig_2, left_on='Department_ID', right_on='department_ID')\n```",
        "```python\nnew_table = df[df['Budget_in_Billions'] > 10]\n```",
        "```python\nnew_table = len(df)\n```",
    ]
    return scripted(plans, codes)


def test_operate_works_on_the_output_of_the_retrieve() -> None:
    model = _chain_model()
    reply = ask("How many managed departments have a budget above 10 billion?", model)
    inter = reply.state["intermediate_tables"]
    assert [t["action"] for t in inter] == ["Retrieve", "Operate", "Operate"]
    assert inter[1]["input_id"] == inter[0]["id"] and inter[2]["input_id"] == inter[1]["id"]
    joined = get_store().get(inter[0]["id"])
    assert len(joined) == 5 and "head_ID" in joined.columns  # the join, not the original
    assert values(reply) == ["4"]  # Treasury twice, Homeland Security, Transportation; not Commerce (6.2)
    prompts = coder_prompts(model)
    assert "# - df: 이전 단계에서 생성된 Retrieve 결과 테이블 (step 1:" in prompts[1]
    assert "head_ID" in prompts[1]  # the coder sees the joined df's columns
    assert "Observation 1: new df (step 1): 5 rows x 9 columns" in planner_prompts(model)[1]


def test_macts_unchained_behaviour_gives_a_different_answer() -> None:
    reply = ask("How many managed departments have a budget above 10 billion?", _chain_model(), chain=False)
    inter = reply.state["intermediate_tables"]
    assert all(t["input_id"] == reply.state["original_tables"][0]["id"] for t in inter)
    assert values(reply) != ["4"]  # every step saw the original department table


def test_originals_never_change_at_any_step() -> None:
    agent = ga.load("tableqa", _chain_model(), tables=TABLES)
    session = agent.session()
    config = {"configurable": {"thread_id": f"tableqa:{session.id}", "session_options": session.options}}
    first: list[dict[str, Any]] | None = None
    seen = 0
    for snapshot in agent.graph.stream({"user_input": "How many?", "session_options": {}}, config,
                                        stream_mode="values"):
        originals = snapshot.get("original_tables")
        if not originals:
            continue
        first = first or [dict(t) for t in originals]
        assert originals == first
        for ref in originals:  # the content hash of every original still equals its id
            frame = get_store().get(ref["id"])
            assert table_id_for(frame_to_ipc(make_arrow_safe(frame)[0])) == ref["id"]
        seen += 1
    assert seen >= 6


def test_coder_gets_the_error_and_fixes_its_code() -> None:
    plans = ["Action 1: Retrieve[departments with a budget over 100]", "Action 2: Finish[df]"]
    codes = ["new_table = df[df['budget'] > 100]", "new_table = df[df['Budget_in_Billions'] > 100][['Name']]"]
    model = scripted(plans, codes)
    reply = ask("Which departments have budgets over 100 billion?", model)
    assert values(reply) == ["Defense", "Health and Human Services"]
    assert "KeyError: 'budget'" in coder_prompts(model)[1]


def test_failed_code_is_the_planners_observation() -> None:
    plans = ["Action 1: Retrieve[something]", "Action 2: Finish[nothing]"]
    model = scripted(plans, ["import os\nnew_table = os.listdir('/')"] * 3)
    reply = ask("Which?", model)
    step = reply.state["steps"][0]
    assert step["ok"] is False and step["error_type"] == "refused"
    assert "Observation 1: The code failed: Refused at line 1: import of 'os'" in planner_prompts(model)[1]


def test_planner_votes_and_coder_votes() -> None:
    plans = ["Action: Finish[Defense]", "Action: Finish[defense]", "Action: Finish[State]"]
    reply = ask("Which department is the biggest?", scripted(plans, []), plan_samples=3)
    assert values(reply) == ["Defense"]
    votes = [e for e in reply.events if e.type == "decision" and e.kind == "vote"]
    assert votes[0].details["votes"] == 2 and votes[0].details["samples"] == 3
    plans = ["Action 1: Retrieve[the largest department]", "Action 2: Finish[df]"]
    codes = ["new_table = df.nlargest(1, 'Num_Employees')[['Name']]", "new_table = df.head(1)[['Name']]",
             "new_table = df.sort_values('Num_Employees').tail(1)[['Name']]"]
    reply = ask("Largest?", scripted(plans, codes), code_samples=3)
    assert values(reply) == ["Defense"]  # two programs agree on the result table
    assert reply.state["steps"][0]["code_votes"] == 2


def test_step_cap_returns_the_best_supported_answer() -> None:
    plans = ["Action: Calculate[2 + 3]"] + ["Action: Retrieve[rows]"] * 10
    reply = ask("Sum?", scripted(plans, lambda _: "new_table = df.head(2)"), max_steps=3)
    assert reply.state["status"] == "budget" and values(reply) == ["5"]
    assert len(reply.state["steps"]) == 3 and "Answer (step limit reached): 5" in reply.text
    korean = ask("합은?", scripted(plans, lambda _: "new_table = df.head(2)"), max_steps=3)
    assert korean.text.startswith("답 (단계 한도 도달): 5") and "\n단계:\n" in korean.text


def test_unparsable_planner_output_gets_a_format_note() -> None:
    model = scripted(["I am not sure.", "Action: Finish[42]"], [])
    reply = ask("x?", model)
    assert values(reply) == ["42"]
    assert "could not be parsed" in planner_prompts(model)[1]
    garbage = ask("x?", scripted(["no", "still no", "never"], []))
    assert garbage.state["status"] == "error" and garbage.state["answer"] == []


def test_search_is_not_available() -> None:
    reply = ask("x?", scripted(["Action: Search[department of defense]", "Action: Finish[1]"], []))
    assert "Search is not available" in reply.state["steps"][0]["observation"]


def test_calculate_uses_the_safe_evaluator() -> None:
    plans = ["Action: Calculate[__import__('os').system('id')]", "Action: Calculate[(439.3 - 9.96) / 2]",
             "Action: Finish[214.67]"]
    reply = ask("x?", scripted(plans, []))
    steps = reply.state["steps"]
    assert steps[0]["ok"] is False and "Calculate failed" in steps[0]["observation"]
    assert steps[1]["observation"] == "Result: 214.67"


def test_offline_declines_with_a_reason() -> None:
    reply = ask("Which department would be the best to work for?")
    assert reply.state["status"] == "declined" and values(reply) == []
    assert reply.state["reason"]


def test_no_tables_is_a_clear_reply() -> None:
    agent = ga.load("tableqa")
    reply = agent.session().send("How many?")
    assert reply.state["status"] == "declined" and "--table" in reply.text


def test_bad_table_option_fails_when_the_agent_loads() -> None:
    """The agent's tables are read when it is built: ``--table`` with a file that cannot be read is a
    one-line error and a non-zero exit (issue 26), not a turn that answers with the error."""
    with pytest.raises(InputError, match="does not exist"):
        ga.load("tableqa", tables=["nope.csv"])


def test_second_question_reuses_the_loaded_originals() -> None:
    agent = ga.load("tableqa", tables=TABLES)
    session = agent.session()
    first = session.send("Which department has the most employees, and what is its budget?")
    second = session.send("Which department has the fewest employees?")
    assert first.state["original_tables"] == second.state["original_tables"]
    assert values(second) == ["Education"]
    assert len(second.state["intermediate_tables"]) == 2  # the list started over for the new question


def test_bad_options_are_config_errors() -> None:
    with pytest.raises(ga.GraphAgentsError, match="max_steps"):
        ga.load("tableqa", max_steps=0).session().send("x")
    frame = pd.DataFrame()
    assert frame.empty


def test_graph_structure_snapshot() -> None:
    from pathlib import Path

    from snapshot_check import assert_snapshot

    drawing = ga.load("tableqa").graph.get_graph().draw_mermaid()
    assert_snapshot(drawing, Path(__file__).parent / "snapshots" / "tableqa_graph.mmd")


def test_sessions_may_only_name_their_users_uploads() -> None:
    from pathlib import Path

    from graphagents.agents.tableqa.uploads import Uploads
    from graphagents.settings import get_settings
    from graphagents.store import database_for

    agent = ga.load("tableqa")
    for source in ("/etc/passwd", DEPARTMENT, "postgresql://127.0.0.1/postgres#pg_authid", "x=/etc/hosts"):
        with pytest.raises(ga.GraphAgentsError, match="not an uploaded table id"):
            agent.session(None, tables=[source])
    stored = get_store().put(pd.read_csv(DEPARTMENT))  # in the store, but nobody's upload
    reply = agent.session(None, tables=[f"department={stored}"]).send("How many?")
    assert reply.state["status"] == "error" and "no uploaded table" in reply.text
    assert not reply.state.get("original_tables")
    uploads = Uploads(database_for(get_settings().resolved_database_url))
    mine = uploads.add("tq-owner", "dept.csv", Path(DEPARTMENT).read_bytes())
    assert mine.id == stored  # the same content has the same id
    reply = agent.session(None, user_id="tq-owner", tables=[f"department={stored}"]).send(
        "Which department has the most employees, and what is its budget?")
    assert values(reply) == ["Defense", "439.3"]
    assert agent.session(None, tables=[stored]).send("How many?").state["status"] == "error"  # anonymous: not theirs


def test_intermediate_tables_come_with_the_reply_as_artifacts() -> None:
    reply = ask("Which department has the most employees, and what is its budget?")
    kinds = [a.kind for a in reply.artifacts]
    assert kinds == ["intermediate_table"] * len(reply.state["intermediate_tables"]) and kinds
    first, last = reply.artifacts[0].to_dict(), reply.artifacts[-1].to_dict()
    assert first["step"].startswith("1: Retrieve[") and first["total_rows"] == 1
    assert last["columns"] == ["Name", "Budget_in_Billions"] and last["rows"] == [["Defense", 439.3]]
    table = ask("How many?", _chain_model()).artifacts
    assert [a.kind for a in table][-1] == "table"  # Finish[df]: the answer table too
