"""The market tool: questions about the transactions table go to the text2sql agent, run as a
sub-graph over a real SQL database (the synthetic data in SQLite by default, Postgres or the
user's own table through the ``market_db`` option).

The question is written in Korean from the planner's entities, so the sub-agent sees what a user
would type. Only when the sub-agent declines or its SQL finds no row for a place the planner named
(e.g. a user's table whose region column holds whole addresses) does the tool read the rows itself,
with one bound parameter (``market_fallback``), and the answer says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig

from graphagents.artifacts import SqlArtifact, TableArtifact
from graphagents.errors import redact_url
from graphagents.registry import SubAgent


@dataclass(frozen=True)
class MarketSource:
    url: str
    synthetic: bool  # our synthetic table (every answer that uses it must say so)

    def describe(self) -> dict[str, Any]:
        label = "합성(가상) 실거래 데이터 — 실제 시세가 아님" if self.synthetic else "사용자 지정 거래 테이블"
        return {"kind": "market", "label": label, "synthetic": self.synthetic, "url": redact_url(self.url)}


def market_question(query: str, entities: Mapping[str, Any]) -> str | None:
    """The sub-agent's question: the rows analysis needs (region or complex), both deal types.

    None when the query names no place: "주변 시세" of an unknown place is not a question to guess."""
    complex_name = entities.get("complex")
    region = (entities.get("region") or {}).get("sigungu")
    if complex_name:
        return f"{complex_name} 거래 내역"
    if region:
        return f"{region} 거래 내역"
    return None


def run_market(agent: SubAgent, source: MarketSource, query: str, entities: Mapping[str, Any],
               config: RunnableConfig | None = None) -> dict[str, Any]:
    """Ask the text2sql sub-agent; its SQL and result table come back from its artifacts, as a user
    of text2sql would see them, and its status from its public state."""
    question = market_question(query, entities)
    if question is None:
        return {"question": "", "sql": None, "status": "needs_region", "table": None, "rows": 0, "reply": "",
                "source": source.describe(), "missing": ["지역(시·군·구) 또는 단지명 — 시세를 조회할 곳"]}
    result = agent.invoke(question, config)
    sql_artifact = result.first(SqlArtifact)
    table_artifact = result.first(TableArtifact)
    sql = sql_artifact.sql if sql_artifact is not None else None
    table: dict[str, Any] | None = None
    if table_artifact is not None:
        table = {"columns": list(table_artifact.columns), "rows": [list(r) for r in table_artifact.rows]}
        if table_artifact.total_rows is not None:
            table["total_rows"] = table_artifact.total_rows
    rows = len(table["rows"]) if table else 0
    reply = result.reply
    out = {"question": question, "sql": sql, "status": result.status,
           "table": table, "rows": rows, "reply": reply, "source": source.describe()}
    if not sql or not rows:  # the sub-agent declined, or its SQL found nothing for the place
        declined = " ".join(reply.split())[:160] if not sql else "조건에 맞는 행이 없다는 결과"
        fallback = _fallback(source, entities)
        if fallback is not None and fallback["table"]["rows"]:
            # our own parameterised query found the place: use its rows and say how they were read
            found = len(fallback["table"]["rows"])
            out.update(sql=fallback["sql"], status="fallback", table=fallback["table"], rows=found,
                       method="fallback", declined=declined,
                       fallback={k: fallback[k] for k in ("params", "table_name", "column", "term", "truncated")},
                       source={**source.describe(),
                               "fallback": f"시세 조회 에이전트(text2sql)가 '{question}'에 "
                                           f"{'맞는 행을 찾지 못해' if sql else '답하지 못해'}, "
                                           f"{fallback['table_name']}.{fallback['column']} 값에 "
                                           f"'{fallback['term']}'이(가) 들어간 거래 {found}건을 "
                                           "직접 조회했습니다"})
            return out
        if not sql:
            out["missing"] = [f"시세 데이터 — 시세 조회 에이전트(text2sql)가 '{question}'에 답하지 못함: {declined}"]
    return out


def _fallback(source: MarketSource, entities: Mapping[str, Any]) -> dict[str, Any] | None:
    """The supervisor's own parameterised query (``market_fallback``); None when it finds nothing or
    the database cannot be read (the sub-agent's reason is then what the user sees)."""
    from .market_fallback import fallback_query

    try:
        return fallback_query(source.url, entities)
    except Exception:  # an unreadable database leaves the decline as it was
        return None
