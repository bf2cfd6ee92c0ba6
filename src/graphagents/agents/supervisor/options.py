"""The supervisor's options (``ga.load("supervisor", **options)``, ``-o key=value``), validated by the
runtime at load time. Models are per role, not options: ``models={"planner": ..., "orchestrator":
..., "responder": ..., "sql": ...}`` (the ``sql`` role drives the text2sql sub-agent)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphagents.errors import ConfigError

MAX_ROUNDS_LIMIT = 20


class SupervisorOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    data: str | None = Field(None, description="a real-estate dataset folder of the bundled layout (laws/, "
                                                "synthetic/; default: the bundled one, or "
                                                "$GRAPHAGENTS_REALESTATE_DATA)")
    market_db: str | None = Field(None, description="transactions database for the market tool: sqlite:///... or "
                                                     "postgresql://... (default: the synthetic data in SQLite)")
    market_synthetic: bool | None = Field(None, description="whether market_db holds our synthetic table "
                                                            "(default: true for the built-in one, false otherwise)")
    loan_rules: str | None = Field(None, description="YAML loan rules file (default: the bundled one)")
    law_store: str | None = Field(None, description="statute index: unset = embedded under DATA_DIR, "
                                                    "postgresql://... = pgvector")
    max_rounds: int = Field(6, ge=1, le=MAX_ROUNDS_LIMIT, description="orchestration rounds per question")
    max_team_runs: int = Field(3, ge=1, le=10, description="runs of one team per question")
    parallel: bool = Field(True, description="run independent teams in parallel when the plan says so")
    review_last: bool = Field(False, description="consult the orchestrator once more after the last planned team, "
                                                   "so it can add a team the plan missed (one more model call)")
    orchestration: Literal["adaptive", "fixed"] = Field(
        "adaptive", description='"fixed" is the note\'s original pipeline (run every planned team, no decisions), '
                                "kept as the baseline the bench compares against")


def parse_options(raw: Mapping[str, Any]) -> SupervisorOptions:
    try:
        return SupervisorOptions.model_validate(dict(raw))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "options"
        raise ConfigError(f"supervisor option {where!r}: {err['msg']}") from None
