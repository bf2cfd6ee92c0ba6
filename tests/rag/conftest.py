"""Fixtures for the rag agent's tests: a small slice of the bundled medical corpus (ingested once per
test session with the real offline encoder), and agents built on it with an in-memory checkpointer."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graphagents.agents.rag.corpus import medical_corpus_path

# Documents (MedQuAD titles) the tests ask about, plus every passage that mentions metformin.
TITLES = ("Diabetes Type 2", "Diabetes Type 1", "Diagnosis of Diabetes and Prediabetes", "High Blood Pressure",
          "Low Blood Pressure", "Adult Acute Lymphoblastic Leukemia", "Childhood Acute Lymphoblastic Leukemia")
PER_TITLE = 8
MAX_PASSAGES = 60


@pytest.fixture(scope="session")
def medical_passages() -> list[dict[str, Any]]:
    path = medical_corpus_path()
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="session")
def mini_corpus(medical_passages: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = [p for p in medical_passages if "metformin" in p["text"].lower()]
    per_title: dict[str, int] = {}
    for p in medical_passages:
        title = str(p.get("title", ""))
        if p not in chosen and title in TITLES and per_title.get(title, 0) < PER_TITLE:
            per_title[title] = per_title.get(title, 0) + 1
            chosen.append(p)
    for p in medical_passages:  # a few unrelated passages, so that retrieval has to choose
        if len(chosen) >= MAX_PASSAGES + 10:
            break
        if p not in chosen and "CDC" in p["id"]:
            chosen.append(p)
    out = tmp_path_factory.mktemp("rag_corpus") / "mini.jsonl"
    out.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in chosen), encoding="utf-8")
    return out


@pytest.fixture(scope="session")
def rag_options(mini_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Agent options for the slice, in a store of its own (a test that moves DATA_DIR keeps it)."""
    return {"corpus": [str(mini_corpus)], "store_name": "rag_test",
            "store_url": f"file://{tmp_path_factory.mktemp('rag_store')}"}


@pytest.fixture(scope="session")
def mini_store(rag_options: dict[str, Any]) -> Iterator[Any]:
    """The slice ingested once (the embedder's disk cache then serves every later store of it)."""
    from graphagents.agents.rag.corpus import corpus_for
    from graphagents.retrieval import load_embedder

    corpus = corpus_for(rag_options["store_url"], "rag_test", load_embedder("offline"), rag_options["corpus"])
    yield corpus.ensure()


@pytest.fixture
def make_agent(rag_options: dict[str, Any], mini_store: Any) -> Callable[..., Any]:
    """``make_agent(llm=None, models=None, **options)``: a rag Agent over the slice."""
    from graphagents.agents.rag.spec import SPEC
    from graphagents.runtime import Agent

    def make(llm: Any = "offline", models: dict[str, Any] | None = None, **options: Any) -> Any:
        options = {**rag_options, **options}
        return Agent(SPEC, llm=llm, models=models, checkpoint_url="memory", embedder="offline", **options)

    return make
