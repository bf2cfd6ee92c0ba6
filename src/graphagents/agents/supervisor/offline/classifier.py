"""The offline planner: labelled example queries (nearest neighbours over the shared embedder)
plus precise lexical rules.

Rules decide when they fire (they are precise); the neighbours fill in what the rules leave open
and set the confidence. A team the neighbours suggest but no rule confirms is planned as
*optional*, so orchestration can drop it once the search results show it is not needed.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Protocol

import numpy as np
import yaml

from graphagents.korean import find_amounts

from .. import entities as ent
from ..analysis.fees import FEE
from .lexicon import lexicon, normalise

PACKAGE = "graphagents.agents.supervisor.offline"
K = 5
OUT_OF_DOMAIN_SIM = 0.35
HEDGE = 0.5
_DOC_NEEDS_ANALYSIS = re.compile(r"협상|분석해서|비교해서|바탕으로|반영|보고서")
_LOOKUP_INTENTS = frozenset({"legal", "loan_info", "market_lookup"})


class Embedder(Protocol):
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class Example:
    query: str
    intent: str
    teams: tuple[str, ...]
    scopes: tuple[str, ...]


@dataclass(frozen=True)
class PlanGuess:
    intent: str
    teams: tuple[str, ...]
    scopes: tuple[str, ...]
    confidence: float
    optional: tuple[str, ...] = ()
    reasons: Mapping[str, str] = field(default_factory=dict)
    neighbours: tuple[tuple[str, str, float], ...] = ()
    document_uses_analysis: bool = False

    @property
    def simple(self) -> bool:
        return self.intent in _LOOKUP_INTENTS


@lru_cache(maxsize=1)
def load_examples() -> tuple[Example, ...]:
    data = yaml.safe_load(resources.files(PACKAGE).joinpath("examples.yaml").read_text("utf-8"))
    out = []
    for group in data["groups"]:
        for query in group["queries"]:
            out.append(Example(str(query), group["intent"], tuple(group["teams"]), tuple(group["scopes"])))
    return tuple(out)


_matrices: weakref.WeakKeyDictionary[Any, dict[tuple[str, ...], np.ndarray]] = weakref.WeakKeyDictionary()
_matrices_lock = threading.Lock()


def example_matrix(embedder: Embedder, examples: Sequence[Example]) -> np.ndarray:
    """The examples' vectors, computed once per embedder (a process-wide one is shared by every
    agent built with it): about 6 s of CPU for the offline encoder, which the supervisor's ``warm``
    hook spends at server start instead of in the first question."""
    queries = tuple(e.query for e in examples)
    with _matrices_lock:
        found = _matrices.get(embedder, {}).get(queries)
    if found is not None:
        return found
    matrix = np.asarray(embedder.embed(list(queries)), dtype=np.float32)
    matrix.setflags(write=False)
    with _matrices_lock:
        _matrices.setdefault(embedder, {})[queries] = matrix
    return matrix


class PlanningClassifier:
    def __init__(self, embedder: Embedder, examples: Sequence[Example] | None = None) -> None:
        self.embedder = embedder
        self.examples = tuple(examples or load_examples())
        self._matrix: np.ndarray | None = None

    @property
    def matrix(self) -> np.ndarray:
        if self._matrix is None:
            self._matrix = example_matrix(self.embedder, self.examples)
        return self._matrix

    def neighbours(self, query: str, k: int = K) -> list[tuple[Example, float]]:
        vec = np.asarray(self.embedder.embed([query]), dtype=np.float32)[0]
        sims = self.matrix @ vec
        order = np.argsort(-sims)[:k]
        return [(self.examples[i], float(sims[i])) for i in order]

    def classify(self, query: str, entities: Mapping[str, Any] | None = None) -> PlanGuess:
        entities = entities or {}
        text = normalise(query)
        lex = lexicon()
        near = self.neighbours(query)
        weights = [max(s, 0.0) for _, s in near]
        total = sum(weights) or 1.0

        def vote(pred: Any) -> float:
            return sum(w for (e, _), w in zip(near, weights, strict=True) if pred(e)) / total

        intent_scores: dict[str, float] = {}
        for (e, _), w in zip(near, weights, strict=True):
            intent_scores[e.intent] = intent_scores.get(e.intent, 0.0) + w / total
        knn_intent = max(intent_scores, key=lambda k: intent_scores[k])
        top_sim = near[0][1] if near else 0.0
        shown = tuple((e.query, e.intent, round(s, 3)) for e, s in near)

        scopes = [s for s, pat in lex.scopes.items() if pat.search(text)]
        doc = bool(lex.teams["document"].search(text))
        domain = bool(scopes or doc or lex.teams["analysis_explicit"].search(text))
        scopes = _drop_stated_scopes(text, scopes, entities)
        if not domain:
            if lex.greeting.search(text) or knn_intent == "greeting":
                return PlanGuess("greeting", (), (), max(intent_scores.get("greeting", 0.0), 0.6), neighbours=shown)
            if knn_intent == "out_of_scope" or top_sim < OUT_OF_DOMAIN_SIM:
                return PlanGuess("out_of_scope", (), (), max(intent_scores.get("out_of_scope", 0.0), 0.5),
                                 neighbours=shown)
            scopes = [s for s in ("laws", "market", "loans") if vote(lambda e, s=s: s in e.scopes) >= HEDGE]
            if not scopes:
                scopes = ["laws"]
        reasons: dict[str, str] = {}
        if "market" not in scopes and _needs_price(text, entities):
            scopes.append("market")
        if "laws" not in scopes and "market" not in scopes and "loans" not in scopes:
            scopes.append("laws")
        scopes = [s for s in ("laws", "market", "loans") if s in scopes]
        reasons["search"] = "검색 범위: " + ", ".join({"laws": "법령", "market": "시세", "loans": "대출"}[s]
                                                     for s in scopes)
        teams = ["search"]
        optional: list[str] = []
        analysis, why = self._analysis(text, scopes, entities)
        if analysis:
            teams.append("analysis")
            reasons["analysis"] = why
        elif vote(lambda e: "analysis" in e.teams) >= HEDGE:
            teams.append("analysis")
            optional.append("analysis")
            reasons["analysis"] = "비슷한 질문들이 계산·비교를 포함함(약한 근거: 검색 결과를 보고 생략 가능)"
        if doc:
            teams.append("document")
            reasons["document"] = "문서 작성 요청 표현이 있음"
        intent = _intent(scopes, [t for t in teams if t not in optional], knn_intent)
        if analysis and "깡통전세" in why and "document" not in teams:
            intent = "risk_check"
        confidence = _confidence(teams, scopes, near, weights, total)
        return PlanGuess(intent, tuple(teams), tuple(scopes), confidence, tuple(optional), reasons, shown,
                         document_uses_analysis=doc and "analysis" in teams and bool(_DOC_NEEDS_ANALYSIS.search(text)))

    @staticmethod
    def _analysis(text: str, scopes: Sequence[str], entities: Mapping[str, Any]) -> tuple[bool, str]:
        lex = lexicon()
        if m := FEE.search(text):
            return True, f"법정 요율표로 중개보수 상한('{m.group(0)}')을 계산해야 함"
        if (m := lex.teams["risk"].search(text)) and ent.amount(entities, "deposit") and (
                ent.amount(entities, "price") or entities.get("senior_debt") or "market" in scopes):
            return True, f"보증금과 가격·선순위 채권으로 깡통전세 위험('{m.group(0)}')을 계산해야 함"
        if _risk_figures(entities):
            return True, "보증금·선순위 채권·주택가격이 모두 주어짐: 깡통전세 위험을 계산해야 함"
        if re.search(r"깡통", text):
            return True, "깡통전세 판단 방법과 확인 사항(수치가 없으면 무엇이 필요한지)"
        if (m := lex.teams["analysis_explicit"].search(text)) and not re.search(r"내역|목록|리스트", text):
            return True, f"계산·비교 요청('{m.group(0)}')"
        if lex.teams["lookup"].search(text):
            return False, ""
        quantity = lex.teams["analysis_quantity"].search(text)
        if quantity and ent.has_numbers(entities):
            return True, f"주어진 수치로 '{quantity.group(0)}'을 계산해야 함"
        if "loans" in scopes and quantity and (ent.amount(entities, "price") or ent.amount(entities, "income")):
            return True, "대출 한도 계산 필요"
        return False, ""


_BETWEEN = re.compile(r"\s?(?:은|는|이|가|도|:)?\s?(?:약|대략|한)?\s?")
_NONE_AFTER = re.compile(r"\s?(?:은|는|이|가|도)?\s?(?:전혀\s?|하나도\s?)?없")
_ENGLISH_AMOUNT_AFTER = re.compile(r"\s?(?:of|is|was|:)?\s?(?:about|around)?\s?(?:krw\s?|₩\s?)?\d", re.I)


def _stated(text: str, match: re.Match[str], starts: Sequence[int]) -> bool:
    """The scope word states a fact the user gave ("시세 5억", "대출이 1억", "대출은 없"), not a question."""
    return any(_BETWEEN.fullmatch(text[match.end():s]) for s in starts if s >= match.end()) or bool(
        _NONE_AFTER.match(text, match.end()) or _ENGLISH_AMOUNT_AFTER.match(text, match.end()))


def _drop_stated_scopes(text: str, scopes: list[str], entities: Mapping[str, Any]) -> list[str]:
    """A price the user gave needs no market lookup, and in a jeonse risk check a loan the user
    mentions is a debt to count, not a loan to calculate: such scopes are dropped when every word
    that triggered them states a given amount."""
    lex = lexicon()
    starts = [m.start for m in find_amounts(text)]
    out = []
    for scope in scopes:
        matches = list(lex.scopes[scope].finditer(text))
        stated = bool(matches) and all(_stated(text, m, starts) for m in matches)
        if scope == "market" and stated and ent.amount(entities, "price"):
            continue
        if scope == "loans" and stated and (lex.teams["risk"].search(text) or _risk_figures(entities)):
            continue
        out.append(scope)
    return out


def _risk_figures(entities: Mapping[str, Any]) -> bool:
    """A deposit, a debt ahead of it and the home's price, all given ("보증금 3억 5천, 집값 4억, 집주인
    대출 1억 ... 괜찮아요?"): whatever the words, the one thing these three compute is the jeonse ratio."""
    return bool(ent.amount(entities, "deposit") and ent.amount(entities, "price") and entities.get("senior_debt"))


def _needs_price(text: str, entities: Mapping[str, Any]) -> bool:
    """A risk check on a named home whose price the user did not give: the market data may have it."""
    return bool(lexicon().teams["risk"].search(text) and ent.amount(entities, "deposit")
                and not ent.amount(entities, "price") and (entities.get("complex") or entities.get("region")))


def _intent(scopes: Sequence[str], teams: Sequence[str], knn_intent: str) -> str:
    if "document" in teams:
        return "comprehensive" if "analysis" in teams and ("market" in scopes or "loans" in scopes) else "document"
    if "market" in scopes and "loans" in scopes:
        return "market_loan"
    if "market" in scopes:
        return "market_analysis" if "analysis" in teams else "market_lookup"
    if "loans" in scopes:
        return "loan_calc" if "analysis" in teams else "loan_info"
    if "analysis" in teams:
        return "risk_check" if knn_intent == "risk_check" else "legal_calc"
    return "legal"


def _confidence(teams: Sequence[str], scopes: Sequence[str], near: Sequence[tuple[Example, float]],
                weights: Sequence[float], total: float) -> float:
    """Share of neighbour weight whose team set agrees with the plan, floored for rule-backed plans."""
    agree = sum(w for (e, _), w in zip(near, weights, strict=True) if set(e.teams) == set(teams)) / total
    scope_agree = sum(w for (e, _), w in zip(near, weights, strict=True) if set(e.scopes) == set(scopes)) / total
    return round(max(0.5, 0.5 + 0.25 * agree + 0.25 * scope_agree) if teams else agree, 2)
