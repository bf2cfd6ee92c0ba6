"""The supervisor's StateGraph:

    initialize -> planning -> orchestrate <-> execute_teams -> aggregate -> generate_response

``orchestrate`` sends each task of its batch to a team sub-graph (``search_team``,
``analysis_team``, ``document_team``; several at once when the plan is parallel) and the teams
meet again in ``execute_teams``, whose router applies the note's rules.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from graphagents.registry import BuildContext

from .context import SupervisorContext
from .nodes.execute import make_execute_teams, route_after_execution
from .nodes.initialize import initialize
from .nodes.orchestrate import make_orchestrate, route_to_teams
from .nodes.planning import make_planning, route_after_planning
from .nodes.respond import make_aggregate, make_generate_response
from .state import MainSupervisorState
from .teams.analysis import build_analysis_team
from .teams.document import build_document_team
from .teams.search import build_search_team

TEAM_NODES = ("search_team", "analysis_team", "document_team")


def build_graph(ctx: SupervisorContext, checkpointer: Any = None) -> Any:
    g = StateGraph(MainSupervisorState)
    g.add_node("initialize", initialize)
    g.add_node("planning", make_planning(ctx))
    g.add_node("orchestrate", make_orchestrate(ctx))
    g.add_node("search_team", build_search_team(ctx))
    g.add_node("analysis_team", build_analysis_team(ctx))
    g.add_node("document_team", build_document_team(ctx))
    g.add_node("execute_teams", make_execute_teams(ctx))
    g.add_node("aggregate", make_aggregate(ctx))
    g.add_node("generate_response", make_generate_response(ctx))
    g.add_edge(START, "initialize")
    g.add_edge("initialize", "planning")
    g.add_conditional_edges("planning", route_after_planning, {"execute": "orchestrate",
                                                                "respond": "generate_response"})
    g.add_conditional_edges("orchestrate", route_to_teams, [*TEAM_NODES, "aggregate"])
    for team in TEAM_NODES:
        g.add_edge(team, "execute_teams")
    g.add_conditional_edges("execute_teams", route_after_execution, {"orchestrate_again": "orchestrate",
                                                                     "aggregate": "aggregate"})
    g.add_edge("aggregate", "generate_response")
    g.add_edge("generate_response", END)
    return g.compile(checkpointer=checkpointer)


def build(ctx: BuildContext) -> Any:
    from .context import open_context

    return build_graph(open_context(ctx), ctx.checkpointer)
