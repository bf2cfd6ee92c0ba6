"""Options of the tableqa agent (validated; unknown keys are an error) and the per-agent context."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.json_schema import SkipJsonSchema

from graphagents.errors import ConfigError
from graphagents.sandbox import ArtifactStore, Limits, SandboxPool, get_pool, get_store

if TYPE_CHECKING:
    from .uploads import Uploads

__all__ = ["MAX_STEPS_LIMIT", "AgentContext", "TableQAOptions", "TableQASessionOptions", "parse_options"]

MAX_STEPS_LIMIT = 20
_SESSION_TABLE = re.compile(r"^(\w+=)?tbl_[0-9a-f]{32}$")


class TableQAOptions(BaseModel):
    """Agent options (``ga.load("tableqa", plan_samples=5)``, ``--option plan_samples=5``)."""

    model_config = ConfigDict(extra="forbid")

    plan_samples: int = Field(1, ge=1, le=10, description="planner samples per step, majority vote (MACT: 5)")
    code_samples: int = Field(1, ge=1, le=10, description="coder programs per step, vote on results (MACT: 5)")
    max_steps: int = Field(6, ge=1, le=MAX_STEPS_LIMIT, description="tool calls per question before a budget answer")
    coder_retries: int = Field(2, ge=0, le=5, description="extra coder attempts after an error")
    timeout_s: float = Field(10.0, gt=0, le=300, description="sandbox wall-clock limit per program")
    memory_mb: int = Field(1024, ge=128, le=16384, description="sandbox memory per program")
    chain: bool = Field(True, description="False reproduces MACT's release: every step sees the original table")
    tables: list[str] = Field(default_factory=list, description="table sources for every session (files, URLs)")


class TableQASessionOptions(BaseModel):
    """Per-session options: stored table ids only (files and URLs are the operator's agent options)."""

    model_config = ConfigDict(extra="forbid")

    tables: list[str] = Field(
        default_factory=list,
        max_length=64,
        description="the user's uploaded tables for this session (tbl_... or name=tbl_..., from "
        "POST /api/agents/tableqa/uploads); overrides the agent's tables",
    )

    channel: SkipJsonSchema[Literal["page", "cli", "api"] | None] = Field(
        None, description="where the user talks to the agent (the web page sends 'page'): declines point at what "
        "works there (the upload button, --table, or the uploads API)")

    @field_validator("tables")
    @classmethod
    def _uploaded_ids(cls, value: list[str]) -> list[str]:
        out = [str(v).strip() for v in value]
        for item in out:
            if not _SESSION_TABLE.match(item):
                raise ValueError(f"{item[:80]!r} is not an uploaded table id (tbl_... or name=tbl_..., from "
                                 "POST /api/agents/tableqa/uploads); files and database URLs are agent options")
        return out


def parse_options(raw: Mapping[str, Any]) -> TableQAOptions:
    try:
        return TableQAOptions(**dict(raw))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "options"
        raise ConfigError(f"tableqa option {where}: {first['msg']}") from None


@dataclass
class AgentContext:
    """What the nodes share: options, the table store, the sandbox pool."""

    options: TableQAOptions
    store: ArtifactStore
    pool: SandboxPool
    uploads: Callable[[], Uploads] | None = None  # the users' uploads (session tables); None = none allowed
    _tables: list[Any] | None = None

    def agent_tables(self) -> list[Any]:
        """The ``tables`` option's tables, read once (:meth:`open` reads them when the agent is built,
        so that a file that cannot be read stops ``--table`` with its one-line error, not a turn)."""
        if self._tables is None:
            from .tables import load_sources

            self._tables = load_sources(self.options.tables)
        return self._tables

    @property
    def limits(self) -> Limits:
        return Limits(timeout_seconds=self.options.timeout_s, memory_mb=self.options.memory_mb)

    @classmethod
    def open(cls, raw: Mapping[str, Any], *, store: ArtifactStore | None = None,
             pool: SandboxPool | None = None, uploads: Callable[[], Uploads] | None = None) -> AgentContext:
        actx = cls(parse_options(raw), store or get_store(), pool or get_pool(), uploads)
        if actx.options.tables:
            actx.agent_tables()
        return actx
