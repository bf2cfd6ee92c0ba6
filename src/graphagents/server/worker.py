"""The app factory that ``graphagents serve --workers N`` runs in each worker process.

Worker processes are started fresh (uvicorn spawns them), so what the command line chose
(``--llm``, ``--model``, ``--option``) reaches them as JSON in ``GRAPHAGENTS_SERVE_CONFIG``;
everything else comes from the ``GRAPHAGENTS_*`` settings, as in one process.
"""

from __future__ import annotations

import json
import os
from typing import Any

from fastapi import FastAPI

from ..settings import get_settings
from .app import create_app

CONFIG_VAR = "GRAPHAGENTS_SERVE_CONFIG"


def serve_config(settings_update: dict[str, Any], agent_options: dict[str, dict[str, Any]]) -> str:
    return json.dumps({"settings": settings_update, "agent_options": agent_options}, ensure_ascii=False)


def create_worker_app() -> FastAPI:
    config = json.loads(os.environ.get(CONFIG_VAR) or "{}")
    settings = get_settings()
    if config.get("settings"):
        settings = settings.model_copy(update=config["settings"])
    return create_app(settings, config.get("agent_options") or {}, own_loop=True)
