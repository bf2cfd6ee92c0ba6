"""Code-level policy over the model's tool calls (design note, part 2, section 4).

A prompt can ask a model to explore and to explain before submitting; only code can make sure.
:func:`maybe_rewrite_tool_call_for_policy` rewrites the parsed step in place and says what it
did, so the node can emit a ``decision`` event with from / to / reason.
"""

from __future__ import annotations

from collections.abc import Callable

from graphagents.llm.xml_protocol import ReactStep
from graphagents.toolloop import Rewrite, rewrite_call

from .state import ReactSessionState

LAST_CALL_FORCE_SUBMIT = "last_call_force_submit"
REQUIRE_EXPLORATION_FIRST = "require_exploration_first"
REQUIRE_EXPLAIN_FIRST = "require_explain_first"

_FINISHING = frozenset({"execute_sql_preview", "submit_sql"})


def maybe_rewrite_tool_call_for_policy(
    *,
    step: ReactStep,
    state: ReactSessionState,
    question: str,
    sql_key: Callable[[str], str] = str.strip,
) -> Rewrite | None:
    """Apply the rules in order; return the rewrite made, or None when the call stands.

    1. The last call of the budget becomes ``submit_sql`` with the step's SQL, or else the
       latest SQL the loop has seen (a model that never submits still ends with an answer).
    2. ``submit_sql`` / ``execute_sql_preview`` before ``min_exploration`` exploration calls
       becomes ``search_tables`` on the question.
    3. ``submit_sql`` / ``execute_sql_preview`` before any successful ``explain`` becomes
       ``explain`` of the same SQL. Once one explain succeeded, later SQL may differ (the
       note's relaxed rule: the model fixes small things after seeing the plan).
    """
    call = step.tool_call
    if call is None or step.is_error:
        return None
    name = call.name
    sql = (call.parameters.get("sql") or "").strip()
    if state.remaining_tool_calls <= 1:
        if name == "submit_sql":
            return None
        final_sql = sql or state.last_sql
        if not final_sql:
            return None  # nothing to submit: the call runs and the budget ends the turn
        return rewrite_call(step, "submit_sql", {"sql": final_sql}, LAST_CALL_FORCE_SUBMIT)
    if name not in _FINISHING:
        return None
    if not state.has_enough_exploration():
        return rewrite_call(step, "search_tables", {"query": question}, REQUIRE_EXPLORATION_FIRST)
    if not state.has_any_explained_sql() and not state.is_sql_explained(sql_key(sql)):
        return rewrite_call(step, "explain", {"sql": sql}, REQUIRE_EXPLAIN_FIRST)
    return None
