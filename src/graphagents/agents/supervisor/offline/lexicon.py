"""The offline lexicon (``lexicon.yaml``) compiled once: scope, team and greeting patterns."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

from graphagents.korean import fold

PACKAGE = "graphagents.agents.supervisor.offline"


@dataclass(frozen=True)
class Lexicon:
    scopes: dict[str, re.Pattern[str]]
    teams: dict[str, re.Pattern[str]]
    greeting: re.Pattern[str]


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    data = yaml.safe_load(resources.files(PACKAGE).joinpath("lexicon.yaml").read_text("utf-8"))
    return Lexicon(
        scopes={k: re.compile(v) for k, v in data["scopes"].items()},
        teams={k: re.compile(v) for k, v in data["teams"].items()},
        greeting=re.compile(data["greeting"]),
    )


def normalise(text: str) -> str:
    """The core normalisation policy, case-folded: what every pattern is written against."""
    return fold(text)
