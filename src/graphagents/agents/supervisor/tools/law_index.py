"""The statute index: the articles in two retrieval stores (embedded files, or pgvector when the
``law_store`` option names a PostgreSQL URL), searched over three signals fused with weighted RRF,
after an exact lookup of the articles the query or the plan names.

The signals (measured on the dev queries and the tuning questions of
``tests/supervisor/data/statute_questions.jsonl``; figures in docs/supervisor.md):

* BM25 over Kiwi morphemes of the whole article: its law, number and title, what it is about in
  everyday words (``rules/article_topics.yaml``) and its text;
* BM25 over the *key field* alone: the title and the everyday topics. A long article (공인중개사법
  제33조 has 1,200 characters) matches many words of any question by its length; the short field
  says what the article is *about*, so a question in everyday words ("집주인 동의 받고 단 시설을 사가라고
  할 수 있나") meets the words its article was described with (부속물매수청구권 is not how people ask);
* dense similarity (multilingual USE) of the whole article, at a third of the weight: it ranks
  something first for any question, so it only breaks ties between lexical candidates.

A hit is *relevant* when it matches lexically with a score near the best one in either field:
dense similarity alone does not count as finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from graphagents.retrieval import Document, Store, UpsertResult, open_store

from ..records import Article
from .laws import article_refs, article_topics, hit_dict, law_query

STORE_NAME = "supervisor_statutes"
KEY_STORE_NAME = "supervisor_statute_keys"
K = 6
K_BROAD = 10
DEPTH = 40
"""Each signal's list fused: its top 40 of the ~80 articles."""
RRF_K = 60
WEIGHTS = {"text": 1.0, "keys": 1.0, "dense": 0.3}
"""RRF weight per signal: chosen on the dev and tuning questions (docs/supervisor.md), never on a
held-out set."""
LEASE_LAWS = frozenset({"주임법", "민법"})
RELEVANT_SHARE = 0.35
"""A hit's BM25 score must reach this share of the best BM25 score of the query (in the whole-article
field or in the key field) to be relevant."""


def key_text(article: Article, topics: Sequence[str]) -> str:
    """The key field: what the article is about, in the statute's words and in everyday ones."""
    return "\n".join([article.title, *topics])


class LawIndex:
    def __init__(self, articles: Sequence[Article], store: Store, built: UpsertResult | None = None,
                 keys: Store | None = None) -> None:
        self.articles = {a.id: a for a in articles}
        self.store = store
        self.keys = keys
        self.built = built  # what opening changed: nothing when the index was already up to date

    @classmethod
    def open(cls, articles: Sequence[Article], url: str | None, embedder: Any, *, data_dir: Path) -> LawIndex:
        """Open (or build) the index; re-adding unchanged articles is a no-op (content hashes)."""
        location = url or f"file://{Path(data_dir).resolve() / 'retrieval'}"
        store = open_store(location, STORE_NAME, embedder)
        keys = open_store(location, KEY_STORE_NAME, embedder)
        topics = article_topics()
        live = [a for a in articles if not a.deleted]
        built = store.upsert(Document(a.id, a.text, {"title": "\n".join([f"{a.law} {a.article_no} {a.title}",
                                                                          *topics.get(a.id, [])]),
                                                     "law": a.law, "article_no": a.article_no})
                             for a in live)
        keys.upsert(Document(a.id, key_text(a, topics.get(a.id, [])), {"law": a.law, "article_no": a.article_no})
                    for a in live)
        return cls(articles, store, built, keys)

    def _signals(self, text: str) -> dict[str, list[Any]]:
        found = {"text": self.store.search(text, k=DEPTH, mode="bm25"),
                 "dense": self.store.search(text, k=DEPTH, mode="dense")}
        if self.keys is not None:
            found["keys"] = self.keys.search(text, k=DEPTH, mode="bm25")
        return found

    def search(self, query: str, keywords: Sequence[str] = (), *, broaden: bool = False,
               sale_only: bool = False) -> dict[str, Any]:
        """Named articles first, then fused hits; ``relevant`` counts what the orchestrator may trust.

        ``sale_only`` (a purchase question with no tenant in it): lease articles may still be found,
        but they do not count as relevant, so a sale is not answered with the lease statute."""
        text = law_query(query, keywords, broaden=broaden)
        found: list[dict[str, Any]] = []
        for aid in article_refs(" ".join([query, *keywords]), self.articles):
            found.append({**hit_dict(self.articles[aid], 1.0, "named"), "relevant": True})
        signals = self._signals(text)
        fused: dict[str, float] = {}
        rank: dict[str, dict[str, int]] = {}
        lexical: dict[str, bool] = {}
        for name, hits in signals.items():
            best = max((h.score for h in hits), default=0.0) if name != "dense" else 0.0
            for r, h in enumerate(hits, start=1):
                fused[h.id] = fused.get(h.id, 0.0) + WEIGHTS[name] / (RRF_K + r)
                rank.setdefault(h.id, {})[name] = r
                if name != "dense" and best > 0 and h.score >= RELEVANT_SHARE * best:
                    lexical[h.id] = True
        named = {f["id"] for f in found}
        order = sorted((i for i in fused if i in self.articles and i not in named), key=lambda i: (-fused[i], i))
        for aid in order[:K_BROAD if broaden else K]:
            relevant = lexical.get(aid, False)
            if sale_only and self.articles[aid].law_short in LEASE_LAWS:
                relevant = False
            at = rank[aid]
            found.append({**hit_dict(self.articles[aid], fused[aid], "hybrid"), "relevant": relevant,
                          "bm25_rank": at.get("text"), "key_rank": at.get("keys"), "dense_rank": at.get("dense")})
        # Named articles first, then lexically relevant hits in fused order (the evidence that they speak
        # of what was asked), then the rest.
        found.sort(key=lambda f: (f["match"] != "named", not f["relevant"]))
        return {"hits": found, "relevant": sum(1 for f in found if f["relevant"]), "query": text}
