"""The surfaces name no agent: the server, the page's generic scripts, the doctor and LangGraph's
module reach agents only through the registry's specs (issue 22 §2). The import side is
import-linter's contract in `make lint`; this catches names in strings, paths and JavaScript."""

from __future__ import annotations

import re
from importlib.metadata import entry_points
from pathlib import Path

import graphagents

ROOT = Path(graphagents.__file__).parent
SURFACES = [*sorted((ROOT / "server").glob("*.py")), ROOT / "server" / "static" / "app.js",
            ROOT / "server" / "static" / "views.js", ROOT / "server" / "static" / "markdown.js",
            ROOT / "server" / "static" / "index.html", ROOT / "cli" / "doctor.py", ROOT / "langgraph_graphs.py"]


def built_in_agents() -> list[str]:
    return sorted(ep.name for ep in entry_points(group="graphagents.agents"))


def test_no_surface_names_a_built_in_agent() -> None:
    names = built_in_agents()
    assert {"slotfill", "text2sql", "rag", "supervisor", "tableqa"} <= set(names)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    found = {f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}"
             for path in SURFACES for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line)}
    assert found == set()


def test_every_agent_with_a_page_view_ships_it() -> None:
    """Each built-in spec's page view module is package data the server can read."""
    from graphagents.registry import all_specs
    from graphagents.server.plugins import page_view_source

    for name in built_in_agents():
        spec = all_specs()[name]
        assert spec.page_view, name
        assert "export function renderState" in page_view_source(spec), name
