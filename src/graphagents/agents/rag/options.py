"""Options of the rag agent: the design note's ``feature_flags`` and ``agent_config``, as agent options
(``ga.load("rag", feature_flags={...})``, ``-o agent_config.retrieval_k=5``) and per-session options
(the HTTP body's ``options``; a session's values override the agent's, key by key)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["AgentConfig", "ConfigPatch", "FeatureFlags", "FlagsPatch", "RagOptions", "RagSessionOptions",
           "effective_settings"]


class FeatureFlags(BaseModel):
    """The note's experiment switches."""

    model_config = ConfigDict(extra="forbid")

    self_refine_enabled: bool = Field(True, description="judge the answer and retrieve again when it is weak")
    active_retrieval_enabled: bool = Field(True, description="k from the intent (0/3/8/15); off = retrieval_k")
    context_compression_enabled: bool = Field(
        False, description="keep only the evidence sentences closest to the question (saves evidence tokens)")
    llm_based_quality_check: bool = Field(True, description="with a model, the LLM judge; off = the offline judge")
    dynamic_query_rewrite: bool = Field(True, description="rewrite the retrieval query from the judge's missing_info")
    quality_check_enabled: bool = Field(True, description="run the judge at all (off: accept the first answer)")
    max_refine_iterations: int = Field(2, ge=0, le=5, description="extra retrieve/generate rounds at most")
    quality_threshold: float = Field(0.5, ge=0.0, le=1.0, description="retrieve again when overall < this")


class AgentConfig(BaseModel):
    """The note's agent settings (model names are the configured chat model and embedder)."""

    model_config = ConfigDict(extra="forbid")

    temperature: float = Field(0.7, ge=0.0, le=2.0, description="generation temperature (when the model takes it)")
    max_tokens: int = Field(1500, ge=64, le=32_000, description="longest generated answer, tokens")
    retrieval_k: int = Field(8, ge=1, le=50, description="passages retrieved when active retrieval is off")
    cache_threshold: float = Field(0.85, gt=0.0, le=1.0, description="cosine needed for a semantic cache hit")
    context_window: int = Field(12_800, ge=2_000, le=2_000_000,
                                description="the model's context window; the token plan scales to it")
    retrieval_mode: Literal["rerank", "hybrid", "bm25", "dense"] = Field(
        "rerank", description="retriever(s) used; rerank = hybrid top 20 reranked by topic and aspect")
    dense_weight: float = Field(0.5, ge=0.0, le=2.0,
                                description="RRF weight of the dense list (BM25's is 1); docs/rag.md says why 0.5")


class RagOptions(BaseModel):
    """Agent options."""

    model_config = ConfigDict(extra="forbid")

    feature_flags: FeatureFlags = Field(default_factory=FeatureFlags, description="the note's feature flags")
    agent_config: AgentConfig = Field(default_factory=AgentConfig, description="the note's agent settings")
    mode: Literal["ai_agent", "llm"] = Field("ai_agent", description="ai_agent = full pipeline; llm = baseline")
    corpus: list[str] = Field(default_factory=list,
                              description="files/folders searched instead of the bundled medical corpus")
    store_url: str | None = Field(None, description="retrieval store: unset = embedded, postgresql://... = pgvector")
    store_name: str = Field("rag_medical", pattern=r"^[a-z][a-z0-9_]{0,39}$", description="retrieval store name")
    cache_enabled: bool = Field(True, description="use the semantic response cache")


class FlagsPatch(BaseModel):
    """Some feature flags (the others keep the agent's values)."""

    model_config = ConfigDict(extra="forbid")

    self_refine_enabled: bool | None = None
    active_retrieval_enabled: bool | None = None
    context_compression_enabled: bool | None = None
    llm_based_quality_check: bool | None = None
    dynamic_query_rewrite: bool | None = None
    quality_check_enabled: bool | None = None
    max_refine_iterations: int | None = Field(None, ge=0, le=5)
    quality_threshold: float | None = Field(None, ge=0.0, le=1.0)


class ConfigPatch(BaseModel):
    """Some agent settings (the others keep the agent's values)."""

    model_config = ConfigDict(extra="forbid")

    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=64, le=32_000)
    retrieval_k: int | None = Field(None, ge=1, le=50)
    cache_threshold: float | None = Field(None, gt=0.0, le=1.0)
    context_window: int | None = Field(None, ge=2_000, le=2_000_000)
    retrieval_mode: Literal["rerank", "hybrid", "bm25", "dense"] | None = None
    dense_weight: float | None = Field(None, ge=0.0, le=2.0)


class RagSessionOptions(BaseModel):
    """Per-session options: partial flags and config override the agent's."""

    model_config = ConfigDict(extra="forbid")

    feature_flags: FlagsPatch = Field(default_factory=FlagsPatch, description="feature flags for this session")
    agent_config: ConfigPatch = Field(default_factory=ConfigPatch, description="agent settings for this session")
    mode: Literal["ai_agent", "llm"] | None = Field(None, description="ai_agent or llm (baseline) for this session")


def effective_settings(agent: RagOptions, session: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any], str]:
    """The flags, config and mode of one turn: the agent's, overridden key by key by the session's
    (validated again, so a bad session value is a one-line error when the session is created)."""
    parsed = RagSessionOptions(**dict(session or {}))
    flags = FeatureFlags(**{**agent.feature_flags.model_dump(), **parsed.feature_flags.model_dump(exclude_none=True)})
    config = AgentConfig(**{**agent.agent_config.model_dump(), **parsed.agent_config.model_dump(exclude_none=True)})
    return flags.model_dump(), config.model_dump(), parsed.mode or agent.mode
