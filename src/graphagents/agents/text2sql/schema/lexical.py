"""A lexical booster for schema search: IDF-weighted query coverage over an inverted index.

The sentence encoder (:mod:`graphagents.retrieval`) is weak on one-word Korean queries against
schema text ("고객" vs "customers: 회원 고객 ..."), while schema documents carry both the English
identifier and the Korean comment; a lexical overlap score over both therefore bridges the two
languages cheaply, and :class:`LexicalIndex` makes it an inverted-index lookup rather than a scan.
It is deliberately not BM25: schema queries are short and table texts long, and what matters is how
much of the query a table covers (see :class:`LexicalIndex`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

_TOKEN = re.compile(r"[a-z]+|[0-9]+|[\uac00-\ud7a3]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# Trailing Korean particles/suffixes that would otherwise split "고객의" from "고객" (longest first).
_PARTICLES = ("에서", "으로", "별로", "까지", "부터", "이고", "은", "는", "이", "가", "을", "를", "의", "에",
              "로", "와", "과", "별", "도", "만")


def _stem_latin(token: str) -> str:
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 4 and token.endswith(("ses", "xes", "ches", "shes")):
        return token[:-2]
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


def _strip_particle(token: str) -> str:
    if len(token) >= 3:
        for particle in _PARTICLES:
            if token.endswith(particle) and len(token) - len(particle) >= 2:
                return token[: -len(particle)]
    return token


def lexical_features(text: str) -> frozenset[str]:
    """Word stems for Latin script, character bigrams for Hangul (Korean compounds share bigrams).

    ``order_items`` -> {order, item}; ``주문상태는`` -> {주문, 문상, 상태}. Single Hangul syllables
    are kept only when the whole token is one syllable, since they are too ambiguous inside words.
    """
    text = _CAMEL.sub(" ", unicodedata.normalize("NFKC", text)).lower()
    features: set[str] = set()
    for token in _TOKEN.findall(text):
        if token[0].isdigit():
            features.add(f"n:{token}")
        elif token[0].isascii():
            if len(token) > 1:
                features.add(f"w:{_stem_latin(token)}")
        else:
            token = _strip_particle(token)
            if len(token) == 1:
                features.add(f"k:{token}")
            features.update(f"k:{token[i:i + 2]}" for i in range(len(token) - 1))
    return frozenset(features)


class LexicalIndex:
    """IDF-weighted query coverage over an inverted index: how much of the query a document contains.

    Coverage (not cosine) because queries are short and documents long: a table whose comment holds
    every query word should score 1.0 however many columns it has. Scoring touches only the postings
    of the query's features, so it stays fast for tens of thousands of documents.
    """

    def __init__(self, documents: Sequence[Iterable[str]], weights: Sequence[float] | None = None) -> None:
        """``documents[i]`` is a list of texts; ``weights[j]`` scales a match found in text j of a doc."""
        self.size = len(documents)
        postings: dict[str, dict[int, float]] = defaultdict(dict)
        for i, texts in enumerate(documents):
            for j, text in enumerate(texts):
                w = 1.0 if weights is None else float(weights[j])
                for feature in lexical_features(text):
                    if postings[feature].get(i, 0.0) < w:
                        postings[feature][i] = w
        self._postings = {
            f: (np.fromiter(d.keys(), np.int64, len(d)), np.fromiter(d.values(), np.float32, len(d)))
            for f, d in postings.items()
        }
        self._max_idf = math.log1p(max(self.size, 1))

    def idf(self, feature: str) -> float:
        posting = self._postings.get(feature)
        return self._max_idf if posting is None else math.log1p(self.size / len(posting[0]))

    def scores(self, query: str) -> np.ndarray:
        """Per-document coverage of the query in [0, 1]; zeros when the query has no features."""
        out = np.zeros(self.size, dtype=np.float32)
        features = lexical_features(query)
        total = sum(self.idf(f) for f in features)
        if total <= 0:
            return out
        for feature in features:
            posting = self._postings.get(feature)
            if posting is not None:
                ids, weights = posting
                out[ids] += weights * (self.idf(feature) / total)
        return np.minimum(out, 1.0, out=out)


__all__ = ["LexicalIndex", "lexical_features"]
