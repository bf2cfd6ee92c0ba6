"""Process-wide connections shared by every agent: checkpointers (sync and async), the long-term
memory store, caches and session stores, one per URL."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import BaseStore

from . import _loop
from ._checkpoint import SqliteCheckpointer, aclose_saver, close_saver, open_async_checkpointer, open_checkpointer
from ._longterm import close_store, open_store
from ._sessions import SessionStore
from .cache import Cache, SemanticCache, open_cache, open_semantic_cache
from .store import close_databases, database_for

_lock = threading.Lock()
_checkpointers: dict[str, BaseCheckpointSaver] = {}
_async_checkpointers: dict[str, BaseCheckpointSaver] = {}
_stores: dict[str, BaseStore] = {}
_caches: dict[tuple[str | None, str], Cache] = {}
_session_stores: dict[str, SessionStore] = {}
_semantic_caches: dict[tuple[str | None, str, str], SemanticCache] = {}


def checkpointer_for(url: str) -> BaseCheckpointSaver:
    with _lock:
        if url not in _checkpointers:
            _checkpointers[url] = open_checkpointer(url)
        return _checkpointers[url]


async def async_checkpointer_for(url: str) -> BaseCheckpointSaver:
    """The async saver for ``url``, opened on (and bound to) the turn loop: await it there. The sync
    savers of memory and SQLite serve both paths."""
    sync = checkpointer_for(url)
    if isinstance(sync, InMemorySaver | SqliteCheckpointer):
        return sync
    with _lock:
        saver = _async_checkpointers.get(url)
    if saver is not None:
        return saver
    opened = await open_async_checkpointer(url)
    with _lock:
        saver = _async_checkpointers.setdefault(url, opened)
    if saver is not opened:  # another turn opened one meanwhile
        await aclose_saver(opened)
    return saver


def store_for(url: str) -> BaseStore:
    with _lock:
        if url not in _stores:
            _stores[url] = open_store(url)
        return _stores[url]


def cache_for(url: str | None, namespace: str, *, maxsize: int = 1000, ttl: float = 3600) -> Cache:
    """One cache per (CACHE_URL, namespace): every agent built in the process shares it."""
    key = (url, namespace)
    with _lock:
        if key not in _caches:
            _caches[key] = open_cache(url, namespace=namespace, maxsize=maxsize, ttl=ttl)
        return _caches[key]


def semantic_cache_for(url: str | None, namespace: str, embedder: Any) -> SemanticCache:
    """One semantic cache per (CACHE_URL, namespace, embedder): every agent and user-data hook of the
    process shares it (in process) or reaches the same Redis keys."""
    key = (url, namespace, str(getattr(embedder, "name", "")))
    with _lock:
        if key not in _semantic_caches:
            _semantic_caches[key] = open_semantic_cache(url, namespace=namespace, embedder=embedder)
        return _semantic_caches[key]


def semantic_caches(url: str | None, namespace: str) -> list[SemanticCache]:
    """The semantic caches open for (CACHE_URL, namespace), whatever their embedder (a user's deletion)."""
    with _lock:
        return [c for (u, ns, _), c in _semantic_caches.items() if u == url and ns == namespace]


def erase_semantic_scope(url: str | None, namespace: str, scope: str) -> int:
    """Delete ``scope``'s entries from the semantic cache ``namespace``: every copy this process has
    open (one per embedder) and, with Redis, the shared entries even when this process never opened
    the cache (deleting needs no embedder; a fake one stands in)."""
    caches = semantic_caches(url, namespace)
    removed = sum(cache.delete_scope(scope) for cache in caches)
    if url and url != "memory" and not caches:
        from .retrieval import FakeEmbedder

        removed += open_semantic_cache(url, namespace=namespace, embedder=FakeEmbedder()).delete_scope(scope)  # type: ignore[arg-type]
    return removed


def session_store_for(url: str) -> SessionStore:
    db = database_for(url)
    with _lock:
        if url not in _session_stores:
            _session_stores[url] = SessionStore(db)
        return _session_stores[url]


def _close_async(saver: BaseCheckpointSaver) -> None:
    with contextlib.suppress(Exception):  # closing a saver whose connection is already gone
        _loop.run(aclose_saver(saver))


def forget(url: str) -> None:
    """Close and drop one checkpointer (sync and async), leaving the others open (a restart of one store)."""
    with _lock:
        saver = _checkpointers.pop(url, None)
        asaver = _async_checkpointers.pop(url, None)
    if saver is not None:
        close_saver(saver)
    if asaver is not None:
        _close_async(asaver)


def reset() -> None:
    """Forget (and close what can be closed); tests use it to simulate a fresh process."""
    with _lock:
        savers = list(_checkpointers.values())
        asavers = list(_async_checkpointers.values())
        stores = list(_stores.values())
        _checkpointers.clear()
        _async_checkpointers.clear()
        _stores.clear()
        _caches.clear()
        _semantic_caches.clear()
        _session_stores.clear()
    for saver in savers:
        close_saver(saver)
    for asaver in asavers:
        _close_async(asaver)
    for store in stores:
        close_store(store)
    close_databases()
