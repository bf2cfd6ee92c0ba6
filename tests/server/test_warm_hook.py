"""An agent's ``warm`` hook runs in the server's warm-up, before ``/readyz`` says ready."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import graphagents as ga
from graphagents.registry import BuildContext, unregister
from graphagents.server import create_app
from graphagents.settings import Settings

calls: list[BuildContext] = []


@pytest.fixture
def warmed_spec(example_spec: Any) -> Iterator[Any]:
    spec = dataclasses.replace(example_spec, name="warmed", warm=calls.append)
    ga.register(spec)
    yield spec
    unregister(spec.name)
    calls.clear()


def test_the_warm_hook_runs_once_with_the_agents_build_context_before_ready(warmed_spec: Any,
                                                                            tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path, warm_on_start=True, warm_agents=["warmed"]))
    with TestClient(app) as tc:
        deadline = time.monotonic() + 120
        while (res := tc.get("/readyz")).status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert res.status_code == 200, res.json()
        [agent] = app.state.pool.built()
        assert len(calls) == 1 and calls[0] is agent.build_context and calls[0].agent == "warmed"
