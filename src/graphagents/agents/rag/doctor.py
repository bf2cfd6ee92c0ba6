"""``graphagents doctor``'s checks for rag (``AgentSpec.doctor``): the corpus, its shipped vectors
and the search index, each read without building anything."""

from __future__ import annotations

from pathlib import Path

from graphagents.errors import ConfigError
from graphagents.registry import Check, DoctorContext

__all__ = ["checks"]


def checks(ctx: DoctorContext) -> list[Check]:
    return [Check("rag corpus", lambda: _corpus(ctx)), Check("rag vectors", lambda: _vectors(ctx)),
            Check("rag index", lambda: _index(ctx))]


def _paths(ctx: DoctorContext) -> list[Path]:
    from .corpus import medical_corpus_path

    return [Path(p) for p in ctx.options.get("corpus") or []] or [medical_corpus_path()]


def _corpus(ctx: DoctorContext) -> str:
    paths = _paths(ctx)
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise ConfigError(f"corpus not found: {', '.join(missing)}")
    if not ctx.options.get("corpus"):
        passages = sum(1 for line in paths[0].read_text(encoding="utf-8").splitlines() if line.strip())
        return f"bundled MedQuAD, {passages:,} passages (CC BY 4.0, attribution in its README)"
    return f"{len(paths)} file(s) or folder(s) from the corpus option"


def _vectors(ctx: DoctorContext) -> str:
    """Whether the shipped vectors cover every text the default corpus is indexed by, for the
    configured embedder (another embedder embeds the corpus itself on first use)."""
    from graphagents.packagedata import package_path
    from graphagents.retrieval import SeedVectors, read_documents

    from .corpus import MEDICAL_VECTORS, medical_corpus_path

    if ctx.options.get("corpus"):
        return "not used: the corpus option replaces the bundled corpus (its texts are embedded on first use)"
    seed = SeedVectors(package_path("graphagents.agents.rag", *MEDICAL_VECTORS))
    embedder = ctx.settings.embedder
    if embedder != "offline":
        return f"made by {seed.embedder}; the configured embedder {embedder!r} embeds the corpus on first use"
    texts = [d.index_text for d in read_documents(medical_corpus_path())]
    unique = {t.strip() for t in texts if t.strip()}
    covered = len(seed.get_many(sorted(unique)))
    if covered < len(unique):
        raise ConfigError(f"the shipped vectors cover {covered} of {len(unique):,} passage texts: rebuild them "
                          "with scripts/build_rag_vectors.py")
    return f"{len(seed):,} shipped vectors of {seed.embedder} cover every passage (first use embeds nothing)"


def _index(ctx: DoctorContext) -> str:
    from graphagents.errors import redact_url
    from graphagents.retrieval import load_embedder, open_store

    url = ctx.options.get("store_url")
    name = str(ctx.options.get("store_name") or "rag_medical")
    store = open_store(url, name, load_embedder(ctx.settings.embedder))
    try:
        count = len(store)
    finally:
        store.close()
    where = redact_url(url) if url else "embedded under DATA_DIR"
    if count == 0:
        return f"{name!r} ({where}) is empty: built on the first question, from the shipped vectors"
    return f"{name!r} ({where}): {count:,} passages indexed"
