"""Process-wide settings, read from ``GRAPHAGENTS_*`` environment variables (and ``.env``)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

__all__ = ["Settings", "get_settings"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GRAPHAGENTS_", env_file=".env", extra="ignore")

    llm: str = Field("offline", description='"offline", or "provider:model" such as "openai:gpt-4o-mini"')
    embedder: str = Field(
        "offline", description='"offline" (multilingual USE, no network), "fake" (tests) or "provider:model"'
    )
    data_dir: Path = Field(Path(".graphagents"), description="where embedded stores and caches live")
    checkpoint_url: str | None = Field(
        None, description="LangGraph checkpointer: unset = SQLite under DATA_DIR, postgresql://... = Postgres"
    )
    database_url: str | None = Field(
        None,
        description="application records (sessions, slotfill applications); unset = Postgres if "
        "CHECKPOINT_URL is Postgres, else SQLite under DATA_DIR",
    )
    cache_url: str | None = Field(None, description="unset = in-process cache, redis://... = Redis")
    store_url: str | None = Field(
        None,
        description="long-term memory (a LangGraph BaseStore): unset = Postgres if DATABASE_URL is Postgres, "
        "else SQLite under DATA_DIR; memory = in-process",
    )
    models: dict[str, str] = Field(
        default_factory=dict,
        description='named models per role, JSON: {"planner": "openai:gpt-4o", "judge": "offline"}; '
        "a role not listed uses LLM",
    )
    langgraph_options: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description='agent options of the graphs langgraph.json names, JSON: {"tableqa": {"tables": ["a.csv"]}}',
    )
    turn_workers: int = Field(8, ge=1, le=256, description="threads that run the sync nodes of async turns")
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    max_message_chars: int = Field(4000, ge=1, description="longest user message accepted")
    max_body_bytes: int = Field(64_000, ge=1024, description="largest HTTP request body accepted")
    max_upload_bytes: int = Field(
        20_000_000, ge=1024, description="largest table file accepted by POST /api/agents/tableqa/uploads (tableqa)"
    )
    step_cap: int = Field(60, ge=5, description="default LangGraph steps per turn before a turn is ended")
    durability: Literal["sync", "async", "exit"] = Field(
        "sync", description="when a turn's steps are checkpointed: 'sync' each step before the next starts, "
        "'async' while the next runs, 'exit' once at the end of the turn (cheapest; a crash loses the whole "
        "turn, which the client then sends again)")
    turn_connections: int = Field(
        16, ge=1, le=1000, description="PostgreSQL checkpointer: connections per process for running turns (each "
        "holds its session's advisory lock and runs the turn's checkpoint statements); more turns wait for one, "
        "in order. Keep workers x this under PostgreSQL's max_connections, with room for the other pools")
    checkpoint_linger_ms: float = Field(
        1000.0, ge=0, le=60_000, description="PostgreSQL: how long a turn's checkpoints and task writes may "
        "wait to be stored together in one statement; they are stored before the turn's final event, when the "
        "thread is read, or after this long (a crash loses at most that much of a run, which then starts again "
        "from its last stored step); 0 stores each as LangGraph hands it over (then DURABILITY alone decides)")
    stream_linger_ms: float = Field(
        50.0, ge=0, le=1000, description="how long the server holds a turn's events to send them together "
        "(one SSE chunk, one socket write): 0 writes each burst at once; the final event is never held")
    session_wait_seconds: float = Field(
        30.0, gt=0, le=3600, description="longest wait for a busy session's turn lock before 409 + Retry-After"
    )
    max_session_queue: int = Field(
        8, ge=0, le=1000, description="messages that may wait for one busy session in a process (429 beyond)"
    )
    max_active_turns: int = Field(
        256, ge=1, le=100_000, description="turns one server process runs or queues at once (503 beyond)"
    )
    warm_on_start: bool = Field(
        True, description="the server builds every agent and loads the Korean analyser at start (/readyz waits)"
    )
    warm_agents: Annotated[list[str] | None, NoDecode] = Field(
        None, description="agents built at start, comma-separated or a JSON list (unset = every registered agent)"
    )
    llm_timeout_seconds: float = Field(
        60.0, gt=0, le=3600, description="a model provider's request timeout in seconds (connect, each read, "
        "write); a stalled provider fails the call after this long and the agent falls back")
    llm_max_retries: int = Field(
        2, ge=0, le=10, description="retries of a failed model request (timeouts, dropped connections, 429, 5xx), "
        "with the client's exponential backoff; a 429/503 Retry-After header sets the wait")
    turn_deadline_seconds: float = Field(
        180.0, gt=0, le=86_400, description="a turn's budget for model calls: once it has passed, no new model "
        "call is made in that turn, every decision point takes its offline fallback and the reply says so")
    llm_structured_output: Literal["auto", "on", "off"] = Field(
        "auto", description="JSON decision points ask the provider for schema-constrained output (OpenAI's "
        "response_format json_schema, Ollama's format): auto = for OpenAI itself and Ollama, not for other "
        "openai-compatible servers (many reject the field); on = for those too; off = prompt text only")
    max_model_output_chars: int = Field(
        32_000, ge=1000, le=10_000_000, description="longest free-text model answer kept (a final answer is cut "
        "there and the reply says so; a JSON or XML answer beyond it is unusable and falls back)")
    session_lock_lease: float = Field(
        30.0, ge=1, le=3600, description="Redis session-lock lease in seconds, renewed while a turn runs"
    )

    @field_validator("warm_agents", mode="before")
    @classmethod
    def _agent_names(cls, value: Any) -> Any:
        """``slotfill,rag`` or ``["slotfill", "rag"]`` from the environment; a list as it is."""
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [name.strip() for name in text.split(",") if name.strip()]
        return value

    @property
    def resolved_checkpoint_url(self) -> str:
        return self.checkpoint_url or f"sqlite:///{self.data_dir / 'checkpoints.sqlite'}"

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        if self.checkpoint_url and self.checkpoint_url.startswith(("postgresql://", "postgres://")):
            return self.checkpoint_url
        return f"sqlite:///{self.data_dir / 'graphagents.sqlite'}"

    @property
    def resolved_store_url(self) -> str:
        if self.store_url:
            return self.store_url
        database = self.resolved_database_url
        if database.startswith(("postgresql://", "postgres://")):
            return database
        return f"sqlite:///{self.data_dir / 'store.sqlite'}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
