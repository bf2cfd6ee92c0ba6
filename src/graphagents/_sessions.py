"""Session records: which sessions exist, for which agent, owned by which user, with which options."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

from cachetools import TTLCache

from .store import Database, Migration, migrate

RECENT_SECONDS = 60.0
"""How long a record read or created here answers :meth:`SessionStore.recent` without a query."""


@dataclass(frozen=True)
class SessionRecord:
    agent: str
    session_id: str
    options: dict[str, Any]
    created_at: float
    user_id: str = "anonymous"


def _add_user_id(db: Database) -> None:
    """Step 2: sessions belong to a user (older rows to "anonymous"); a table made by an unversioned
    release after the column came already has it."""
    try:
        db.fetchall("SELECT user_id FROM ga_sessions WHERE 1 = 0")
    except Exception:
        db.execute("ALTER TABLE ga_sessions ADD COLUMN user_id TEXT NOT NULL DEFAULT 'anonymous'")


_MIGRATIONS: list[Migration] = [
    # 1: the first release's table (adopted where it exists)
    ["CREATE TABLE IF NOT EXISTS ga_sessions ("
     " agent TEXT NOT NULL, session_id TEXT NOT NULL, options TEXT NOT NULL,"
     " created_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (agent, session_id))"],
    _add_user_id,
]


class SessionStore:
    """Survives restarts. ``user_id`` was added after the first release: older tables get the
    column on open, their sessions belonging to "anonymous"."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._recent: TTLCache[tuple[str, str], SessionRecord] = TTLCache(maxsize=20_000, ttl=RECENT_SECONDS)
        self._recent_guard = threading.Lock()
        migrate(self.db, "sessions", _MIGRATIONS)

    def create(self, agent: str, session_id: str, options: dict[str, Any], user_id: str) -> SessionRecord:
        record = SessionRecord(agent, session_id, dict(options), time.time(), user_id)
        self.db.execute(
            "INSERT INTO ga_sessions (agent, session_id, options, created_at, user_id) VALUES (?, ?, ?, ?, ?)",
            (agent, session_id, json.dumps(options, ensure_ascii=False), record.created_at, user_id),
        )
        self._remember(agent, session_id, record)
        return record

    def for_user(self, user_id: str) -> list[SessionRecord]:
        """Every session of one user, oldest first (all agents)."""
        rows = self.db.fetchall(
            "SELECT agent, session_id, options, created_at FROM ga_sessions WHERE user_id = ?"
            " ORDER BY created_at, agent, session_id",
            (user_id,),
        )
        return [SessionRecord(str(a), str(s), json.loads(o), float(c), user_id) for a, s, o, c in rows]

    def delete(self, agent: str, session_id: str) -> None:
        self._remember(agent, session_id, None)
        self.db.execute("DELETE FROM ga_sessions WHERE agent = ? AND session_id = ?", (agent, session_id))

    def recent(self, agent: str, session_id: str) -> SessionRecord | None:
        """The record as this process read or created it within ``RECENT_SECONDS``, without a query,
        or None. A hint for the message path only: another process may have deleted the session
        (or created it again) since, so a turn checks the record against the database once it
        holds the session's lock (``Session._check_record``)."""
        with self._recent_guard:
            return self._recent.get((agent, session_id))

    def _remember(self, agent: str, session_id: str, record: SessionRecord | None) -> None:
        with self._recent_guard:
            if record is None:
                self._recent.pop((agent, session_id), None)
            else:
                self._recent[(agent, session_id)] = record

    async def aget_on(self, conn: Any, agent: str, session_id: str) -> SessionRecord | None:
        """``get`` read on ``conn``: an async (psycopg) connection to this store's PostgreSQL
        database that the caller holds (the turn's, see ``Session._arun``)."""
        cur = await conn.execute("SELECT options, created_at, user_id FROM ga_sessions WHERE agent = %s"
                                 " AND session_id = %s", (agent, session_id))
        return self._record(agent, session_id, await cur.fetchone())

    def get(self, agent: str, session_id: str) -> SessionRecord | None:
        rows = self.db.fetchall(
            "SELECT options, created_at, user_id FROM ga_sessions WHERE agent = ? AND session_id = ?",
            (agent, session_id),
        )
        return self._record(agent, session_id, rows[0] if rows else None)

    def _record(self, agent: str, session_id: str, row: Any) -> SessionRecord | None:
        record = None
        if row is not None:
            options, created_at, user_id = row
            record = SessionRecord(agent, session_id, json.loads(options), float(created_at), str(user_id))
        self._remember(agent, session_id, record)
        return record
