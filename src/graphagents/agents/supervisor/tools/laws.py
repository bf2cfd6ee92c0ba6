"""The law tool: hybrid retrieval (BM25 over Kiwi morphemes + dense vectors, fused with RRF) over
the statute articles, plus exact lookup of articles the query or the plan names.

Colloquial words are mapped to statute terms first ("집주인" -> "임대인", "재계약" -> "갱신"), because
users do not speak the statutes' language and BM25 only matches what is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from graphagents.korean import morphemes

from ..records import Article

PACKAGE = "graphagents.agents.supervisor"
LAW_ALIASES: dict[str, str] = {
    "주택임대차보호법": "주임법", "주임법": "주임법", "임대차보호법": "주임법", "민법": "민법",
    "공인중개사법": "공인중개사법", "부동산 거래신고 등에 관한 법률": "부동산거래신고법",
    "부동산거래신고법": "부동산거래신고법", "거래신고법": "부동산거래신고법",
    "부동산거래신고등에관한법률": "부동산거래신고법",
}
_REF = re.compile(r"(?:(주택임대차보호법|임대차보호법|주임법|민법|공인중개사법|부동산 ?거래신고 ?등에 ?관한 ?법률|"
                  r"부동산거래신고법|거래신고법)\s*)?(제)?\s*(\d+)\s*조(?:\s*의\s*(\d+))?")


@lru_cache(maxsize=1)
def legal_terms() -> dict[str, list[str]]:
    text = resources.files(PACKAGE).joinpath("rules", "legal_terms.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    return {str(k): [str(v) for v in vs] for k, vs in data["terms"].items()}


@lru_cache(maxsize=1)
def article_topics() -> dict[str, list[str]]:
    """Article id -> what the article is about in everyday words (indexed with the article)."""
    text = resources.files(PACKAGE).joinpath("rules", "article_topics.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    return {str(k): [str(v) for v in vs] for k, vs in data["topics"].items()}


def expand(text: str, *, broaden: bool = False) -> list[str]:
    """Statute terms for the colloquial words in ``text`` (all of them when broadening).

    A word matches as written ("안 돌려") or as a lemma ("올릴" is the verb 올리다), so one entry
    covers every conjugation."""
    lemmas = set(morphemes(text))
    out: list[str] = []
    for word, terms in legal_terms().items():
        if word in text or word in lemmas:
            out += [t for t in (terms if broaden else terms[:2]) if t not in out and t not in text]
    return out


def article_refs(text: str, articles: Mapping[str, Article]) -> list[str]:
    """Ids of the articles a text names ("주택임대차보호법 제6조의3", "민법 제623조", "제7조").

    A number needs "제" or a law name before it, so "3조 원" is not an article."""
    found: list[str] = []
    for m in _REF.finditer(text):
        name, marker, number, branch = m.groups()
        if not (name or marker):
            continue
        short = LAW_ALIASES.get(name.replace(" ", "") if name else "", "") or (LAW_ALIASES.get(name) if name else None)
        key = f"{short or '주임법'}:제{number}조" + (f"의{branch}" if branch else "")
        if key in articles and key not in found:
            found.append(key)
    return found


def law_query(query: str, keywords: Sequence[str], *, broaden: bool) -> str:
    parts = [query, *keywords, *expand(query, broaden=broaden)]
    return " ".join(dict.fromkeys(p for p in parts if p))


def hit_dict(article: Article, score: float, how: str) -> dict[str, Any]:
    return {"id": article.id, "citation": article.citation, "law": article.law, "article_no": article.article_no,
            "title": article.title, "text": article.text, "score": round(float(score), 4), "match": how,
            "effective": article.effective, "url": article.url}


def merge_hits(groups: Iterable[list[dict[str, Any]]], limit: int) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for group in groups:
        for hit in group:
            seen.setdefault(hit["id"], hit)
    return list(seen.values())[:limit]
