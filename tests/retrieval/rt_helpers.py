"""Helpers shared by the retrieval tests (importable because pytest puts this folder on sys.path)."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphagents.retrieval import FakeEmbedder


class CountingFake(FakeEmbedder):
    """The fake embedder, recording every text that reaches the "model"."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seen: list[str] = []

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        self.seen.extend(texts)
        return super()._embed_batch(texts)
