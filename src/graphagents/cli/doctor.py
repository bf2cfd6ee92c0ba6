"""``graphagents doctor``: the resolved settings, then one line per check."""

from __future__ import annotations

import tempfile
from collections.abc import Callable

from rich.markup import escape
from rich.table import Table

from ..errors import ConfigError, GraphAgentsError, redact_url
from ..registry import AgentSpec, Check, DoctorContext, all_specs, broken_agents
from ..settings import Settings, get_settings
from .render import console


def _check_llm(name: str) -> str:
    from ..llm import load_chat_model

    load_chat_model(name)
    return "offline brains (no model calls)" if name == "offline" else f"{name} is configured"


def run_doctor() -> int:
    """Returns the number of problems found."""
    settings = get_settings()
    table = Table("setting", "value", title="resolved settings (GRAPHAGENTS_*)")
    table.add_row("LLM", settings.llm)
    table.add_row("DATA_DIR", str(settings.data_dir.resolve()))
    table.add_row("CHECKPOINT_URL", redact_url(settings.resolved_checkpoint_url))
    table.add_row("DATABASE_URL", redact_url(settings.resolved_database_url))
    table.add_row("CACHE_URL", redact_url(settings.cache_url) if settings.cache_url else "in-process")
    table.add_row("STORE_URL", redact_url(settings.resolved_store_url))
    table.add_row("MODELS", ", ".join(f"{role}={spec}" for role, spec in sorted(settings.models.items())) or "-")
    table.add_row("HOST:PORT", f"{settings.host}:{settings.port}")
    table.add_row("limits", f"{settings.max_message_chars} chars/message, {settings.max_body_bytes} bytes/body")
    console.print(table)

    def data_dir() -> str:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=settings.data_dir):
            pass
        return "writable"

    def checkpointer() -> str:
        from .._checkpoint import open_checkpointer

        open_checkpointer(settings.resolved_checkpoint_url)
        return "opened"

    def database() -> str:
        from ..store import open_database

        open_database(settings.resolved_database_url).close()
        return "opened"

    def memory_store() -> str:
        from .._longterm import close_store, open_store

        close_store(open_store(settings.resolved_store_url))
        return "opened"

    def cache() -> str:
        from ..cache import open_cache

        open_cache(settings.cache_url, namespace="doctor")
        return "reachable" if settings.cache_url else "in-process LRU+TTL"

    def agents() -> str:
        broken = broken_agents()
        if broken:
            name, reason = next(iter(broken.items()))
            raise ConfigError(f"agent {name!r} failed to load: {reason}")
        return ", ".join(sorted(all_specs())) or "none registered"

    checks: list[tuple[str, Callable[[], str]]] = [
        ("data dir", data_dir),
        ("checkpointer", checkpointer),
        ("database", database),
        ("memory store", memory_store),
        ("cache", cache),
        ("llm", lambda: _check_llm(settings.llm)),
        *((f"model {role}", lambda spec=spec: _check_llm(spec)) for role, spec in sorted(settings.models.items())),
        ("agents", agents),
        ("local model", _local_model),
    ]
    for _, spec in sorted(all_specs().items()):
        checks.extend((check.name, check.run) for check in _agent_checks(spec, settings))
    problems = 0
    for name, check in checks:
        try:
            console.print(f"[green]ok[/green]   {escape(name)}: {escape(check())}", highlight=False, soft_wrap=True)
        except GraphAgentsError as exc:
            problems += 1
            console.print(f"[red]FAIL[/red] {escape(name)}: {escape(str(exc))}", highlight=False, soft_wrap=True)
        except Exception as exc:  # a check must never crash the doctor
            problems += 1
            console.print(f"[red]FAIL[/red] {escape(name)}: {type(exc).__name__}: {escape(str(exc))}", highlight=False,
                          soft_wrap=True)
    return problems


def _local_model() -> str:
    from ..llm.local import doctor_check

    return doctor_check()


def _agent_checks(spec: AgentSpec, settings: Settings) -> list[Check]:
    """The agent's own checks (``AgentSpec.doctor``): its data, index and services. Options that do
    not validate, or a hook that fails, are one failed line, never a crashed doctor."""
    if spec.doctor is None:
        return []
    from .._options import validate_options

    try:
        options, _ = validate_options(spec.options_model, {}, agent=spec.name, session=False)
        return list(spec.doctor(DoctorContext(settings, spec.name, dict(options))))
    except Exception as exc:
        reason = f"{exc}" if isinstance(exc, GraphAgentsError) else f"{type(exc).__name__}: {exc}"

        def failed() -> str:
            raise ConfigError(f"its checks could not be made: {reason}")

        return [Check(spec.name, failed)]
