"""find_similar_query: past successful questions and their SQL (design note, section 7.2)."""

from __future__ import annotations

from .context import ToolContext, ToolResult


def find_similar_query(params: dict[str, str], ctx: ToolContext) -> ToolResult:
    question = (params.get("question") or "").strip() or ctx.question
    # only the asking user's own past questions (for this database): never another user's text
    result = ctx.agent.memory.find(ctx.agent.fingerprint, question, scope=ctx.agent.memory_scope(ctx.user_id))
    if result.best is None and not result.candidates:
        return ToolResult(True, "No similar past query: write a new one (GENERATE_NEW).", "no similar query",
                          {"action": result.action})
    lines = [f"Action: {result.action}"]
    for cand in result.candidates[:3]:
        lines.append(f"- score {cand.score:.2f} | {cand.question}\n  SQL: {cand.sql}")
    lines.extend(f"Suggestion: {s}" for s in result.suggestions)
    best = result.best
    data = {"action": result.action, "best_sql": best.sql if best else None,
            "best_score": best.score if best else None}
    return ToolResult(True, "\n".join(lines), f"{result.action}", data)
