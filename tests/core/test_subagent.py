"""build_subagent: a registered agent as another agent's sub-graph, through its own options."""

from __future__ import annotations

from typing import Any

import pytest

from graphagents.errors import ConfigError
from graphagents.registry import BuildContext, build_subagent
from graphagents.settings import get_settings


def test_options_are_validated_by_the_sub_agents_model_and_the_graph_has_no_checkpointer() -> None:
    parent = BuildContext(None, None, get_settings(), {}, agent="parent")
    with pytest.raises(ConfigError, match="'text2sql' has no option 'nope'"):
        build_subagent("text2sql", parent, llm=None, nope=1)
    graph: Any = build_subagent("text2sql", parent, llm=None, max_calls=4)
    assert graph.checkpointer is None
    state = graph.invoke({"user_input": "How many customers are there?", "session_options": {}})
    assert state["status"] == "submitted" and state["table"]["rows"]
