"""The note's orchestration criteria as rules, for when there is no model.

After each round: too few search results (< 3) -> search again with broader keywords; a simple
lookup whose remaining teams were only hedged -> skip them; a next team that needs another
team's output it was not planned to get -> collaborate; otherwise continue (>= 5 results:
"enough"). Each rule says why in Korean, because the reason is what the page shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..decisions import Decision, run_counts
from ..state import TeamTask

FEW = 3
ENOUGH = 5


def decide(*, intent: Mapping[str, Any], last_runs: Sequence[Mapping[str, Any]], runs: Sequence[Mapping[str, Any]],
           queue: Sequence[TeamTask], max_team_runs: int) -> Decision:
    counts = run_counts(runs)
    search = next((r for r in reversed(last_runs) if r["team"] == "search"), None)
    if search is not None and search.get("status") != "error":
        found = int(search.get("count", 0))
        broadened = bool(search["task"].get("broaden"))
        if found < FEW and not broadened and counts["search"] < max_team_runs:
            return Decision("add_agent", f"검색 결과가 {found}건뿐이라(3건 미만) 키워드를 넓혀 다시 검색합니다",
                            0.8, next_agent="search", scopes=tuple(search["task"].get("scopes") or ()))
        if queue and all(t.get("optional") for t in queue) and intent.get("simple") and found >= FEW:
            names = ", ".join(t["team"] for t in queue)
            return Decision("skip_remaining", f"단순 조회 질문이고 검색 결과 {found}건으로 답할 수 있어 "
                            f"남은 단계({names})를 생략합니다", 0.8)
    if queue:
        nxt = queue[0]
        have = {r["team"] for r in runs if r.get("status") == "ok"}
        uses = set(nxt.get("inputs_from") or [])
        if nxt["team"] == "analysis" and "search" in have and "search" not in uses:
            return Decision("collaborate", "분석 팀이 검색 결과(시세·대출·조문)를 입력으로 받아 계산해야 합니다", 0.8,
                            next_agent="analysis", from_teams=("search",), focus="검색 결과를 분석")
        if nxt["team"] == "document" and "analysis" in have and "analysis" not in uses:
            analysis = next(r for r in reversed(runs) if r["team"] == "analysis")
            if analysis.get("output", {}).get("insights"):
                return Decision("collaborate", "분석 결과(상한·위험도·시세)를 문서 초안에 반영하도록 넘깁니다", 0.8,
                                next_agent="document", from_teams=("analysis",),
                                focus="분석 결과를 문서에 반영")
    if search is not None and int(search.get("count", 0)) >= ENOUGH:
        return Decision("continue", f"검색 결과 {search['count']}건으로 충분해 계획대로 진행합니다", 0.9)
    return Decision("continue", "계획대로 다음 단계를 진행합니다", 0.7)
