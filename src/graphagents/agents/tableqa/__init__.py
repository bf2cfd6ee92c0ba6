"""tableqa: MACT multi-table question answering (planner + coder, sandboxed pandas, chained tables)."""
