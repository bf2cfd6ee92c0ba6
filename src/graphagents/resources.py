"""Process-wide connections shared by every agent: one checkpointer, one app database per URL."""

from __future__ import annotations

import threading

from langgraph.checkpoint.base import BaseCheckpointSaver

from .checkpoint import open_checkpointer
from .store import Database, SessionStore, open_database

_lock = threading.Lock()
_checkpointers: dict[str, BaseCheckpointSaver] = {}
_databases: dict[str, Database] = {}
_session_stores: dict[str, SessionStore] = {}


def checkpointer_for(url: str) -> BaseCheckpointSaver:
    with _lock:
        if url not in _checkpointers:
            _checkpointers[url] = open_checkpointer(url)
        return _checkpointers[url]


def database_for(url: str) -> Database:
    with _lock:
        if url not in _databases:
            _databases[url] = open_database(url)
        return _databases[url]


def session_store_for(url: str) -> SessionStore:
    db = database_for(url)
    with _lock:
        if url not in _session_stores:
            _session_stores[url] = SessionStore(db)
        return _session_stores[url]


def _close_saver(saver: BaseCheckpointSaver) -> None:
    conn = getattr(saver, "conn", None)
    close = getattr(conn, "close", None)
    if callable(close):
        close()


def forget(url: str) -> None:
    """Close and drop one checkpointer, leaving the others open (a restart of one store)."""
    with _lock:
        saver = _checkpointers.pop(url, None)
    if saver is not None:
        _close_saver(saver)


def reset() -> None:
    """Forget (and close what can be closed); tests use it to simulate a fresh process."""
    with _lock:
        for saver in _checkpointers.values():
            _close_saver(saver)
        for db in _databases.values():
            db.close()
        _checkpointers.clear()
        _databases.clear()
        _session_stores.clear()
