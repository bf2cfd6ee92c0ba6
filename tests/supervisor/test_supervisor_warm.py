"""The supervisor's warm hook: the offline planner's example vectors are computed at server start,
not in the first question (where they cost about 6 s of CPU while every other turn of the process
waited on the GIL)."""

from __future__ import annotations

from typing import Any

import numpy as np

import graphagents as ga
from graphagents.agents.supervisor.offline.classifier import load_examples
from graphagents.agents.supervisor.spec import SPEC
from graphagents.retrieval import FakeEmbedder

QUESTION = "전세 계약 갱신청구권이 뭐야?"


class CountingEmbedder(FakeEmbedder):
    """Records every text the model encodes (the caches' hits are not encoded)."""

    def __init__(self) -> None:
        super().__init__()
        self.encoded: list[str] = []

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        self.encoded += texts
        return super()._embed_batch(texts)


def _agent(embedder: CountingEmbedder) -> Any:
    return ga.load("supervisor", checkpoint_url="memory", embedder=lambda: embedder)


def test_warm_computes_the_example_vectors_so_the_first_question_does_not() -> None:
    examples = {e.query.strip() for e in load_examples()}
    cold_embedder = CountingEmbedder()
    cold = _agent(cold_embedder).session().send(QUESTION)
    assert examples <= set(cold_embedder.encoded)  # unwarmed, the first question encodes them all

    embedder = CountingEmbedder()
    agent = _agent(embedder)
    assert SPEC.warm is not None
    SPEC.warm(agent.build_context)
    assert examples <= set(embedder.encoded)
    embedder.encoded.clear()
    warm = agent.session().send(QUESTION)
    assert not examples & set(embedder.encoded), "the first question encoded the examples again"
    assert warm.state["plan"] == cold.state["plan"] and warm.text == cold.text
