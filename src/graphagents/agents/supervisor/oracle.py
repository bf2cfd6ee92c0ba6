"""A scripted model that plans and orchestrates from the labels of a query file.

``eval --llm oracle`` runs the whole pipeline (planning prompt, JSON parsing with repair, team
sub-graphs, retrieval of the named articles, aggregation, response) with decisions that are
right by construction; anything below 100% plan accuracy or citation recall is a pipeline bug.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage

from graphagents.testing import FunctionChatModel

from .records import Article

_QUERY = re.compile(r"## 질문\n(.*?)\n\n## ", re.S)
_ORCH_QUERY = re.compile(r"## 사용자 질문\n(.*?)\n\n## ", re.S)


def _intent_type(teams: Sequence[str], scopes: Sequence[str]) -> str:
    if "document" in teams:
        return "comprehensive" if "analysis" in teams and set(scopes) - {"laws"} else "document"
    if "market" in scopes and "loans" in scopes:
        return "market_loan"
    if "market" in scopes:
        return "market_analysis" if "analysis" in teams else "market_lookup"
    if "loans" in scopes:
        return "loan_calc" if "analysis" in teams else "loan_info"
    return "legal_calc" if "analysis" in teams else "legal"


def plan_for(label: Mapping[str, Any], articles: Mapping[str, Article]) -> dict[str, Any]:
    """The plan the labels call for, with the required articles named as search keywords."""
    teams, scopes = list(label["teams"]), list(label.get("search_scopes") or ["laws"])
    if label.get("required_citations") and "laws" not in scopes:
        scopes.append("laws")
    keywords = [articles[a].citation for a in label.get("required_citations") or [] if a in articles]
    steps: list[dict[str, Any]] = []
    for team in teams:
        step: dict[str, Any] = {"team": team, "reason": f"라벨: {team}"}
        if team == "search":
            step.update(scopes=scopes, keywords=keywords)
        else:
            step["uses"] = ["search"]
        steps.append(step)
    return {"intent": {"intent_type": _intent_type(teams, scopes), "confidence": 1.0, "entities": {}},
            "teams": steps, "strategy": "sequential"}


class Oracle:
    def __init__(self, labels: Sequence[Mapping[str, Any]], articles: Mapping[str, Article]) -> None:
        self.by_query = {" ".join(str(q["query"]).split()): q for q in labels}
        self.articles = articles

    def label(self, query: str) -> Mapping[str, Any] | None:
        """The label of the question the prompt carries. The planner may have appended a Korean gloss
        to an English question ("... (계약갱신요구권 임대인)"): the label is then the one whose
        question the prompt's text starts with (the longest, should one question extend another)."""
        text = " ".join(query.split())
        if text in self.by_query:
            return self.by_query[text]
        starts = [q for q in self.by_query if text.startswith(q + " (")]
        return self.by_query[max(starts, key=len)] if starts else None

    def __call__(self, messages: list[BaseMessage]) -> str:
        text = str(messages[-1].content)
        if text.startswith("당신은 부동산 상담 서비스의 계획 담당자"):
            m = _QUERY.search(text)
            label = self.label(m.group(1)) if m else None
            if label is None:
                return json.dumps({"intent": {"intent_type": "out_of_scope", "confidence": 0.2}, "teams": []})
            return json.dumps(plan_for(label, self.articles), ensure_ascii=False)
        if text.startswith("당신은 실행 오케스트레이터"):
            return json.dumps({"action": "continue", "reasoning": "라벨의 계획대로 진행합니다", "confidence": 1.0})
        if text.startswith("당신은 부동산 상담 도우미"):
            cited = re.findall(r"^- (\S+ 제\d+조(?:의\d+)?)", text, re.M)
            return "라벨 기준 답변입니다. " + (f"근거: {', '.join(cited)}." if cited else "")
        raise ValueError(f"the oracle does not know this prompt: {text[:60]!r}")


def oracle_model(labels: Sequence[Mapping[str, Any]], articles: Mapping[str, Article]) -> FunctionChatModel:
    return FunctionChatModel(function=Oracle(labels, articles))
