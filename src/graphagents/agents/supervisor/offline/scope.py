"""Honest scope: real-estate topics the statutes and data do not cover (청약, 재건축, tax rates,
commercial leases, ...) are recognised by their words, so that the answer says so first, names the
law that governs them and where to ask, and quotes none of our articles for them.

A question only about such a topic plans no team. A question that also asks something we cover
("전세 갱신하면서 취득세도 알려줘") is answered for that part, with the uncovered part named first.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict

from .lexicon import normalise

PACKAGE = "graphagents.agents.supervisor"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TopicRule(_Strict):
    id: str
    name: str
    pattern: str
    unless: str | None = None
    exclusive: bool = False
    laws: str
    where: str


class ScopeRules(_Strict):
    covered: str
    topics: list[TopicRule]
    core: str


@dataclass(frozen=True, slots=True)
class Uncovered:
    id: str
    name: str
    said: str  # the words of the question that named it
    laws: str
    where: str


@lru_cache(maxsize=1)
def scope_rules() -> ScopeRules:
    text = resources.files(PACKAGE).joinpath("rules", "scope.yaml").read_text("utf-8")
    return ScopeRules.model_validate(yaml.safe_load(text))


@lru_cache(maxsize=1)
def _compiled() -> tuple[list[tuple[TopicRule, re.Pattern[str], re.Pattern[str] | None]], re.Pattern[str]]:
    rules = scope_rules()
    return ([(t, re.compile(t.pattern), re.compile(t.unless) if t.unless else None) for t in rules.topics],
            re.compile(rules.core))


def uncovered_topics(query: str) -> tuple[list[Uncovered], bool]:
    """The uncovered topics the question names, and whether anything else in it is ours to answer."""
    text = normalise(query)
    topics, core = _compiled()
    found: list[Uncovered] = []
    rest = text
    exclusive = False
    for rule, pattern, unless in topics:
        matches = list(pattern.finditer(text))
        if not matches or (unless is not None and unless.search(text)):
            continue
        found.append(Uncovered(rule.id, rule.name, matches[0].group(0), rule.laws, rule.where))
        exclusive = exclusive or rule.exclusive
        for m in matches:
            rest = rest.replace(m.group(0), " ")
    return found, bool(found) and not exclusive and bool(core.search(rest) or core.search(_PARTICLE.sub(r"\1", rest)))


_PARTICLE = re.compile(r"([가-힣])(?:을|를|은|는|이|가|도|만|의)(?=\s|$)")
"""A particle after a word ("월세를 올려", "보증금은 돌려"): the core patterns are written on bare words."""


def as_dicts(found: list[Uncovered]) -> list[dict[str, Any]]:
    return [asdict(u) for u in found]


def not_covered_text(topics: list[dict[str, Any]], *, partial: bool) -> str:
    """The sentence that opens the answer: what is not covered, which law governs it, where to ask."""
    names = ", ".join(t["name"] for t in topics)
    laws = "; ".join(f"{t['name']}: {t['laws']} — {t['where']}" for t in topics)
    if partial:
        return (f"{names}에 관한 부분은 제가 가진 자료(법령 조문·데이터)에 없어 답하지 않았습니다 ({laws}에서 "
                "확인하세요). 나머지 질문에 대한 답입니다.")
    return (f"{names}은(는) 제가 가진 자료에 없어 답할 수 없습니다. 제가 가진 자료는 {scope_rules().covered}입니다. "
            f"{laws}에서 확인하세요. 전세·월세 계약, 보증금, 갱신, 중개보수, 실거래 신고, 시세(합성 데이터), 대출 한도 "
            "질문은 도와드릴 수 있어요.")
