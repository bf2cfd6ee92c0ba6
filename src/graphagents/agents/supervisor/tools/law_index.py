"""The statute index: the articles in a retrieval store (embedded files, or pgvector when the
``law_store`` option names a PostgreSQL URL), searched hybrid (BM25 over Kiwi morphemes + dense,
fused with RRF), after an exact lookup of the articles the query or the plan names.

Each article is indexed with its title and what it is about in everyday words
(``rules/article_topics.yaml``): people ask "집주인 동의 받고 단 시설을 사가라고 할 수 있나" where the
statute says 부속물매수청구권, and BM25 only matches what is written.

A hit is *relevant* when it also matches lexically with a score near the best one: dense
similarity alone ranks something first for any question, so it does not count as finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graphagents.retrieval import Document, Store, UpsertResult, open_store

from ..records import Article
from .laws import article_refs, article_topics, hit_dict, law_query

STORE_NAME = "supervisor_statutes"
K = 6
K_BROAD = 10
LEASE_LAWS = frozenset({"주임법", "민법"})
RELEVANT_SHARE = 0.35
"""A hit's BM25 score must reach this share of the best BM25 score of the query to be relevant."""


class LawIndex:
    def __init__(self, articles: Sequence[Article], store: Store, built: UpsertResult | None = None) -> None:
        self.articles = {a.id: a for a in articles}
        self.store = store
        self.built = built  # what opening changed: nothing when the index was already up to date

    @classmethod
    def open(cls, articles: Sequence[Article], url: str | None, embedder: Any, *, data_dir: Path) -> LawIndex:
        """Open (or build) the index; re-adding unchanged articles is a no-op (content hashes)."""
        location = url or f"file://{Path(data_dir).resolve() / 'retrieval'}"
        store = open_store(location, STORE_NAME, embedder)
        topics = article_topics()
        built = store.upsert(Document(a.id, a.text, {"title": "\n".join([f"{a.law} {a.article_no} {a.title}",
                                                                          *topics.get(a.id, [])]),
                                                     "law": a.law, "article_no": a.article_no})
                             for a in articles if not a.deleted)
        return cls(articles, store, built)

    def search(self, query: str, keywords: Sequence[str] = (), *, broaden: bool = False,
               sale_only: bool = False) -> dict[str, Any]:
        """Named articles first, then hybrid hits; ``relevant`` counts what the orchestrator may trust.

        ``sale_only`` (a purchase question with no tenant in it): lease articles may still be found,
        but they do not count as relevant, so a sale is not answered with the lease statute."""
        text = law_query(query, keywords, broaden=broaden)
        found: list[dict[str, Any]] = []
        for aid in article_refs(" ".join([query, *keywords]), self.articles):
            found.append({**hit_dict(self.articles[aid], 1.0, "named"), "relevant": True})
        hits = self.store.search(text, k=K_BROAD if broaden else K)
        best = max((h.bm25_score or 0.0 for h in hits), default=0.0)
        for h in hits:
            if any(f["id"] == h.id for f in found) or h.id not in self.articles:
                continue
            relevant = best > 0 and (h.bm25_score or 0.0) >= RELEVANT_SHARE * best
            if sale_only and self.articles[h.id].law_short in LEASE_LAWS:
                relevant = False
            found.append({**hit_dict(self.articles[h.id], h.score, "hybrid"), "relevant": relevant,
                          "bm25_rank": h.bm25_rank, "dense_rank": h.dense_rank})
        # Named articles first, then lexically relevant hits by BM25 rank (the evidence that they speak
        # of what was asked), then the rest in fused order.
        found.sort(key=lambda f: (f["match"] != "named", not f["relevant"], f.get("bm25_rank") or 10**6))
        return {"hits": found, "relevant": sum(1 for f in found if f["relevant"]), "query": text}
