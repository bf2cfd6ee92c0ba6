"""The statute index: the articles in a retrieval store (embedded files, or pgvector when the
``law_store`` option names a PostgreSQL URL) for dense similarity, plus two small BM25 indexes built
in process, searched over three signals fused with weighted RRF, after an exact lookup of the
articles the query or the plan names.

The signals (chosen on the dev queries and the tuning questions of
``tests/supervisor/data/statute_questions.jsonl``, never on a held-out set; docs/supervisor.md):

* BM25 over Kiwi morphemes of the whole article: its law, number and title, what it is about in
  everyday words (``rules/article_topics.yaml``) and its text;
* BM25 over the *key field* alone: the title and the everyday topics. A long article (공인중개사법
  제33조 has 1,200 characters) matches many words of any question by its length; the short field
  says what the article is *about*, so a question in everyday words ("집주인 동의 받고 단 시설을 사가라고
  할 수 있나") meets the words its article was described with (부속물매수청구권 is not how people ask);
* dense similarity (multilingual USE) of the whole article, at a third of the weight: it ranks
  something first for any question, so it only breaks ties between lexical candidates.

The question's own words weigh 1 in BM25, the plan's keywords too; the statute terms the thesaurus
adds (``rules/legal_terms.yaml``: 집주인 -> 임대인) weigh 0.3, so a thesaurus entry helps a question
meet the statute's word without pulling every question that says 집주인 towards the article
titled 임대인의 의무.

A hit is *relevant* when it matches lexically with a score near the best one in either field:
dense similarity alone does not count as finding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from graphagents.korean import search_terms
from graphagents.retrieval import Document, Store, UpsertResult, open_store

from ..records import Article
from .laws import article_refs, article_topics, expand, hit_dict, law_query

STORE_NAME = "supervisor_statutes"
K = 6
K_BROAD = 10
DEPTH = 40
"""Each signal's list fused: its top 40 of the ~80 articles."""
RRF_K = 60
WEIGHTS = {"text": 1.0, "keys": 1.0, "dense": 0.3}
"""RRF weight per signal."""
THESAURUS_WEIGHT = 0.3
"""BM25 weight of a term the thesaurus added (the question's own words weigh 1)."""
BM25_K1, BM25_B = 1.5, 0.75
LEASE_LAWS = frozenset({"주임법", "민법"})
RELEVANT_SHARE = 0.35
"""A hit's BM25 score must reach this share of the best BM25 score of the query (in the whole-article
field or in the key field) to be relevant."""


def key_text(article: Article, topics: Sequence[str]) -> str:
    """The key field: what the article is about, in the statute's words and in everyday ones."""
    return "\n".join([article.title, *topics])


def full_text(article: Article, topics: Sequence[str]) -> str:
    return "\n".join([f"{article.law} {article.article_no} {article.title}", *topics, article.text])


class _Field:
    """BM25 (bm25s, Lucene variant) over one field of every article, scored per query term so that
    terms can carry weights."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        import bm25s

        self.ids = list(ids)
        self.index = bm25s.BM25(k1=BM25_K1, b=BM25_B, method="lucene")
        self.index.index([search_terms(t) for t in texts], show_progress=False)
        self.vocab = set(self.index.vocab_dict)

    def scores(self, weighted: Mapping[str, float]) -> np.ndarray:
        out = np.zeros(len(self.ids), dtype=np.float64)
        for term, weight in weighted.items():
            if term in self.vocab:
                out += weight * np.asarray(self.index.get_scores([term]), dtype=np.float64)
        return out


def _ranked(ids: Sequence[str], scores: np.ndarray, n: int) -> list[tuple[str, float]]:
    order = sorted((i for i in range(len(ids)) if scores[i] > 0), key=lambda i: (-round(float(scores[i]), 6), ids[i]))
    return [(ids[i], float(scores[i])) for i in order[:n]]


class LawIndex:
    def __init__(self, articles: Sequence[Article], store: Store, built: UpsertResult | None = None) -> None:
        self.articles = {a.id: a for a in articles}
        self.store = store
        self.built = built  # what opening changed: nothing when the index was already up to date
        topics = article_topics()
        live = [a for a in articles if not a.deleted]
        ids = [a.id for a in live]
        self.fields = {"text": _Field(ids, [full_text(a, topics.get(a.id, [])) for a in live]),
                       "keys": _Field(ids, [key_text(a, topics.get(a.id, [])) for a in live])}

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

    @staticmethod
    def query_terms(query: str, keywords: Sequence[str], *, broaden: bool) -> dict[str, float]:
        """BM25 terms with weights: the question's and the plan's words 1, the thesaurus' additions 0.3."""
        weighted = dict.fromkeys(search_terms(" ".join([query, *keywords])), 1.0)
        for term in search_terms(" ".join(expand(query, broaden=broaden))):
            weighted.setdefault(term, THESAURUS_WEIGHT)
        return weighted

    def search(self, query: str, keywords: Sequence[str] = (), *, broaden: bool = False,
               sale_only: bool = False) -> dict[str, Any]:
        """Named articles first, then fused hits; ``relevant`` counts what the orchestrator may trust.

        ``sale_only`` (a purchase question with no tenant in it): lease articles may still be found,
        but they do not count as relevant, so a sale is not answered with the lease statute."""
        text = law_query(query, keywords, broaden=broaden)
        found: list[dict[str, Any]] = []
        for aid in article_refs(" ".join([query, *keywords]), self.articles):
            found.append({**hit_dict(self.articles[aid], 1.0, "named"), "relevant": True})
        weighted = self.query_terms(query, keywords, broaden=broaden)
        signals: dict[str, list[tuple[str, float]]] = {
            name: _ranked(f.ids, f.scores(weighted), DEPTH) for name, f in self.fields.items()}
        signals["dense"] = [(h.id, h.score) for h in self.store.search(text, k=DEPTH, mode="dense")]
        fused: dict[str, float] = {}
        rank: dict[str, dict[str, int]] = {}
        lexical: set[str] = set()
        for name, hits in signals.items():
            best = hits[0][1] if hits and name != "dense" else 0.0
            for r, (aid, score) in enumerate(hits, start=1):
                fused[aid] = fused.get(aid, 0.0) + WEIGHTS[name] / (RRF_K + r)
                rank.setdefault(aid, {})[name] = r
                if best > 0 and score >= RELEVANT_SHARE * best:
                    lexical.add(aid)
        named = {f["id"] for f in found}
        order = sorted((i for i in fused if i in self.articles and i not in named), key=lambda i: (-fused[i], i))
        for aid in order[:K_BROAD if broaden else K]:
            relevant = aid in lexical
            if sale_only and self.articles[aid].law_short in LEASE_LAWS:
                relevant = False
            at = rank[aid]
            found.append({**hit_dict(self.articles[aid], fused[aid], "hybrid"), "relevant": relevant,
                          "bm25_rank": at.get("text"), "key_rank": at.get("keys"), "dense_rank": at.get("dense")})
        # Named articles first, then lexically relevant hits in fused order (the evidence that they speak
        # of what was asked), then the rest.
        found.sort(key=lambda f: (f["match"] != "named", not f["relevant"]))
        return {"hits": found, "relevant": sum(1 for f in found if f["relevant"]), "query": text}
