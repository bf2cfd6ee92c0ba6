"""What the server takes from each agent's spec, by convention, without naming an agent.

* ``AgentSpec.routes``: the agent's router, mounted under ``/api/agents/<name>`` (see
  :mod:`graphagents.routes`), with its paths' body limits;
* ``AgentSpec.page_view``: ``"package:file.js"``, package data served at ``/views/<name>.js`` for
  the web page to ``import()`` when the agent is selected.
"""

from __future__ import annotations

from importlib import resources as importlib_resources
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.responses import Response

from ..errors import ConfigError, UnknownAgentError
from ..registry import AgentSpec, all_specs, get_spec
from ..routes import RESERVED, routes_prefix
from ..settings import Settings

__all__ = ["mount_agent_routes", "page_view_source", "page_view_url", "router"]

router = APIRouter()


def mount_agent_routes(app: FastAPI, settings: Settings) -> None:
    """Include every registered agent's router under its prefix and register its body limits.

    A router whose path would shadow one of the server's own (``/api/agents/<name>/sessions`` ...)
    or a factory that fails is a ConfigError naming the agent: the server does not start with an
    agent half mounted."""
    for name, spec in sorted(all_specs().items()):
        if spec.routes is None:
            continue
        try:
            made = spec.routes()
        except Exception as exc:
            raise ConfigError(f"agent {name!r}: its routes could not be made: {type(exc).__name__}: {exc}") from exc
        prefix = routes_prefix(name)
        for route in made.router.routes:
            path = str(getattr(route, "path", ""))
            first = path.lstrip("/").split("/", 1)[0]
            if not path.startswith("/") or not first or first in RESERVED:
                raise ConfigError(f"agent {name!r}: route {path!r} is not allowed; start it with '/' and a "
                                  f"segment other than {', '.join(sorted(RESERVED))}")
        app.include_router(made.router, prefix=prefix, tags=[name])
        for path, limit in made.body_limits.items():
            app.state.body_limits[prefix + path] = int(limit(settings))


def _resource(spec: AgentSpec) -> Any:
    package, sep, name = (spec.page_view or "").partition(":")
    if not sep or not package or not name.endswith(".js") or "/" in name or "\\" in name or name.startswith("."):
        raise ConfigError(f"agent {spec.name!r}: page_view must be 'package:file.js', got {spec.page_view!r}")
    return importlib_resources.files(package) / name


def page_view_url(spec: AgentSpec) -> str | None:
    """Where the page imports the agent's view module from, or None (the page draws it generically)."""
    return f"/views/{spec.name}.js" if spec.page_view else None


def page_view_source(spec: AgentSpec) -> str:
    """The module's text; ConfigError when the spec names a file its package does not ship."""
    resource = _resource(spec)
    try:
        return str(resource.read_text(encoding="utf-8"))
    except (FileNotFoundError, ModuleNotFoundError) as exc:
        raise ConfigError(f"agent {spec.name!r}: page view {spec.page_view!r} is not in its package") from exc


@router.get("/views/{name}.js", include_in_schema=False)
async def page_view(name: str) -> Response:
    """An agent's page view module (an ES module: see docs/architecture.md for what it exports)."""
    spec = get_spec(name)
    if not spec.page_view:
        raise UnknownAgentError(f"agent {name!r} has no page view")
    return Response(page_view_source(spec), media_type="text/javascript; charset=utf-8",
                    headers={"Cache-Control": "no-cache"})
