"""A user's data, everywhere it lives: export it, or erase it, with one call.

What belongs to a user:

* session records (``ga_sessions``, with each session's options, e.g. a customer profile);
* each session's LangGraph thread in the checkpointer (every checkpoint, write and blob);
* long-term memory items under :func:`user_namespace` in the ``BaseStore``;
* whatever an agent or a component keeps elsewhere (application records, cache scopes), reached
  through a :class:`UserData` hook: ``AgentSpec(user_data=UserData(export=..., delete=...))`` for an
  agent, :func:`register_user_data` for anything else (a shared cache, a plugin's table). A hook
  gets a :class:`UserScope` with the same services as the agent's ``BuildContext`` (database,
  store namespaces, caches, ``erase_semantic_cache``), so it needs nothing private.

:func:`delete_user` removes the session records first (so no new turn can start on them), then the
threads, the hooks' data and the memory items. SQLite files are opened with ``secure_delete`` and
their write-ahead logs truncated afterwards, so the deleted bytes do not linger on disk; PostgreSQL
reclaims dead rows with (auto)vacuum.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .events import jsonable
from .registry import all_specs
from .settings import Settings
from .store import POSTGRES_PREFIXES, sqlite_path

if TYPE_CHECKING:
    from langgraph.store.base import BaseStore

    from .cache import Cache
    from .store import Database

__all__ = ["UserData", "UserScope", "delete_user", "export_user", "flush_sqlite_logs", "register_user_data",
           "unregister_user_data", "user_namespace"]

USERS = "users"


def user_namespace(user_id: str, *labels: str) -> tuple[str, ...]:
    """The ``BaseStore`` namespace of a user's long-term memory: ``("users", user_id, *labels)``.

    Items stored under it are exported and erased with the user's data without any hook. The user id
    is percent-encoded where a store label cannot hold it (``.``: ids like ``hana@example.com``)."""
    return (USERS, user_id.replace("%", "%25").replace(".", "%2E"), *labels)


@dataclass(frozen=True)
class UserScope:
    """What a hook gets: whose data, the sessions that user has with this agent, and the services
    (the same ones a ``BuildContext`` gives the agent's graph)."""

    user_id: str
    settings: Settings
    agent: str = ""
    session_ids: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    """The agent's options when the caller knows them (the server's ``-o agent.key=value``)."""

    @property
    def database(self) -> Database:
        from .store import database_for

        return database_for(self.settings.resolved_database_url)

    @property
    def store(self) -> BaseStore:
        from ._connections import store_for

        return store_for(self.settings.resolved_store_url)

    def cache(self, namespace: str) -> Cache:
        """The cache ``<agent>:<namespace>`` that ``BuildContext.cache(namespace)`` gives the agent."""
        from ._connections import cache_for

        return cache_for(self.settings.cache_url, f"{self.agent or 'agent'}:{namespace}")

    def user_namespace(self, *labels: str) -> tuple[str, ...]:
        """This user's ``store`` namespace for the agent, as ``BuildContext.user_namespace`` makes it."""
        return user_namespace(self.user_id, self.agent or "agent", *labels)

    def erase_semantic_cache(self, namespace: str) -> int:
        """Delete this user's entries (scope = the user id) from the semantic cache that
        ``BuildContext.semantic_cache(namespace)`` gives the agent: every copy this process opened,
        and the shared one in Redis even if this process never opened it. Returns how many went."""
        from ._connections import erase_semantic_scope

        return erase_semantic_scope(self.settings.cache_url, f"{self.agent or 'agent'}:{namespace}", self.user_id)


@dataclass(frozen=True)
class UserData:
    """How to export and erase what an agent or component keeps about a user outside the core's
    stores. ``export`` returns JSON-able data; ``delete`` removes it and returns how many things went.
    Either may be left out (a cache is erased but not exported: it holds copies, not what the user
    gave)."""

    export: Callable[[UserScope], Mapping[str, Any]] | None = None
    delete: Callable[[UserScope], int] | None = None


_hooks: dict[str, UserData] = {}
_hooks_lock = threading.Lock()


def register_user_data(name: str, hook: UserData) -> None:
    """A component's hook (agents declare theirs on ``AgentSpec.user_data``)."""
    with _hooks_lock:
        _hooks[name] = hook


def unregister_user_data(name: str) -> None:
    with _hooks_lock:
        _hooks.pop(name, None)


def _hooked(user_id: str, settings: Settings, sessions: Mapping[str, list[str]],
            agent_options: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, UserData, UserScope]]:
    """Every hook with its scope: agents' first (sorted by name), then components'."""
    out: list[tuple[str, UserData, UserScope]] = []
    for name, spec in sorted(all_specs().items()):
        if spec.user_data is not None:
            scope = UserScope(user_id, settings, name, tuple(sessions.get(name, ())), agent_options.get(name, {}))
            out.append((name, spec.user_data, scope))
    with _hooks_lock:
        components = sorted(_hooks.items())
    out.extend((name, hook, UserScope(user_id, settings, name)) for name, hook in components)
    return out


def _thread_id(agent: str, session_id: str) -> str:
    return f"{agent}:{session_id}"


def _sessions_by_agent(records: list[Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for r in records:
        out.setdefault(r.agent, []).append(r.session_id)
    return out


def _store_items(store: BaseStore, user_id: str) -> list[Any]:
    items: list[Any] = []
    while True:
        page = store.search(user_namespace(user_id), limit=500, offset=len(items))
        items.extend(page)
        if len(page) < 500:
            return items


def export_user(user_id: str, *, settings: Settings,
                agent_options: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Everything stored about ``user_id``, as one JSON-able document."""
    from . import _connections
    from ._locks import session_locks_for
    from .runtime import check_user_id

    check_user_id(user_id)
    records = _connections.session_store_for(settings.resolved_database_url).for_user(user_id)
    saver = _connections.checkpointer_for(settings.resolved_checkpoint_url)
    locks = session_locks_for(settings)
    sessions = []
    for r in records:
        thread = _thread_id(r.agent, r.session_id)
        with locks.hold(thread):  # a running turn finishes first: the export sees whole turns
            checkpoint = saver.get_tuple({"configurable": {"thread_id": thread, "checkpoint_ns": ""}})
        values = checkpoint.checkpoint.get("channel_values", {}) if checkpoint is not None else {}
        sessions.append({"agent": r.agent, "session_id": r.session_id, "created_at": _iso(r.created_at),
                         "options": r.options, "state": jsonable(dict(values))})
    by_agent = _sessions_by_agent(records)
    hooks = {name: jsonable(dict(hook.export(scope)))
             for name, hook, scope in _hooked(user_id, settings, by_agent, agent_options or {})
             if hook.export is not None}
    memory = [{"namespace": list(item.namespace), "key": item.key, "value": jsonable(item.value),
               "updated_at": _iso(item.updated_at.timestamp())}
              for item in _store_items(_connections.store_for(settings.resolved_store_url), user_id)]
    return {"user_id": user_id, "exported_at": _iso(dt.datetime.now(dt.UTC).timestamp()),
            "sessions": sessions, "data": hooks, "memory": memory}


def delete_user(user_id: str, *, settings: Settings,
                agent_options: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, int]:
    """Erase everything stored about ``user_id``; returns what was removed, by kind."""
    from . import _connections
    from ._locks import session_locks_for
    from .runtime import check_user_id

    check_user_id(user_id)
    session_store = _connections.session_store_for(settings.resolved_database_url)
    records = session_store.for_user(user_id)
    by_agent = _sessions_by_agent(records)
    removed: dict[str, int] = {"sessions": 0, "threads": 0, "memory": 0}
    for r in records:  # records first: a deleted session takes no new turn
        session_store.delete(r.agent, r.session_id)
        removed["sessions"] += 1
    saver = _connections.checkpointer_for(settings.resolved_checkpoint_url)
    locks = session_locks_for(settings)
    for r in records:
        thread = _thread_id(r.agent, r.session_id)
        # With the session's turn lock held: a running turn finishes (and its writes are erased
        # with the rest); a message that waited for it finds the record gone and takes no turn.
        with locks.hold(thread):
            saver.delete_thread(thread)
        removed["threads"] += 1
    for name, hook, scope in _hooked(user_id, settings, by_agent, agent_options or {}):
        if hook.delete is not None:
            removed[name] = int(hook.delete(scope))
    store = _connections.store_for(settings.resolved_store_url)
    for item in _store_items(store, user_id):
        store.delete(tuple(item.namespace), item.key)
        removed["memory"] += 1
    flush_sqlite_logs(settings)
    return removed


def flush_sqlite_logs(settings: Settings) -> None:
    """Checkpoint and empty each SQLite write-ahead log. Until then the main file still holds the
    pages as they were before the deletion (the WAL holds the new, zeroed ones), so call this after
    any deletion that must leave no bytes behind."""
    urls = {settings.resolved_checkpoint_url, settings.resolved_database_url, settings.resolved_store_url}
    for url in urls:
        if url == "memory" or url.startswith(POSTGRES_PREFIXES):
            continue
        with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(sqlite_path(url), timeout=5)) as c:
            c.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat(timespec="seconds")
