"""Rebuild the rag agent's shipped vectors: ``src/graphagents/agents/rag/data/medquad/vectors-offline.npz``.

The bundled MedQuAD passages are chunked exactly as the agent indexes them (``ingest`` with its
defaults, into a throw-away store), and every text the offline embedder is asked for is saved by
text hash. Run it after changing the corpus, the chunking or the offline encoder:

    .venv/bin/python scripts/build_rag_vectors.py

It takes a few minutes on two cores (the encoder runs on every passage once); a progress bar says
how far it is.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="ga-rag-vectors-"))
    os.environ["GRAPHAGENTS_DATA_DIR"] = str(work)  # a cold embedder cache: every vector is computed here

    from graphagents.agents.rag.corpus import MEDICAL_VECTORS, medical_corpus_path
    from graphagents.packagedata import package_path
    from graphagents.retrieval import OfflineEmbedder, VectorCache, ingest, open_store, write_seed

    asked: list[str] = []

    class Recording(OfflineEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            asked.extend(texts)
            return super().embed(texts)

    embedder = Recording(disk=VectorCache(work / "vectors.sqlite"))
    store = open_store(f"file://{work / 'store'}", "rag_vectors", embedder)
    started = time.perf_counter()
    print(f"embedding the bundled passages of {medical_corpus_path()} (a few minutes)", file=sys.stderr)
    report = ingest([medical_corpus_path()], store, progress=True)
    store.close()
    target = package_path("graphagents.agents.rag", "data", "medquad") / MEDICAL_VECTORS[-1]
    n = write_seed(target, embedder, asked)
    print(f"{report.added} passages indexed, {n} vectors written to {target} "
          f"({target.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
