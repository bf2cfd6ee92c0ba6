"""The three teams, each a LangGraph sub-graph used as a node of the supervisor's graph."""
