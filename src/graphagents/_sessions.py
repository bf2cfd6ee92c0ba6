"""Session records: which sessions exist, for which agent, owned by which user, with which options."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from .store import Database


@dataclass(frozen=True)
class SessionRecord:
    agent: str
    session_id: str
    options: dict[str, Any]
    created_at: float
    user_id: str = "anonymous"


class SessionStore:
    """Survives restarts. ``user_id`` was added after the first release: older tables get the
    column on open, their sessions belonging to "anonymous"."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS ga_sessions ("
            " agent TEXT NOT NULL, session_id TEXT NOT NULL, options TEXT NOT NULL,"
            " created_at DOUBLE PRECISION NOT NULL, user_id TEXT NOT NULL DEFAULT 'anonymous',"
            " PRIMARY KEY (agent, session_id))"
        )
        try:
            self.db.fetchall("SELECT user_id FROM ga_sessions WHERE 1 = 0")
        except Exception:
            self.db.execute("ALTER TABLE ga_sessions ADD COLUMN user_id TEXT NOT NULL DEFAULT 'anonymous'")

    def create(self, agent: str, session_id: str, options: dict[str, Any], user_id: str) -> SessionRecord:
        record = SessionRecord(agent, session_id, dict(options), time.time(), user_id)
        self.db.execute(
            "INSERT INTO ga_sessions (agent, session_id, options, created_at, user_id) VALUES (?, ?, ?, ?, ?)",
            (agent, session_id, json.dumps(options, ensure_ascii=False), record.created_at, user_id),
        )
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
        self.db.execute("DELETE FROM ga_sessions WHERE agent = ? AND session_id = ?", (agent, session_id))

    async def aexists_on(self, conn: Any, agent: str, session_id: str) -> bool:
        """Whether the session exists, read on ``conn``: an async (psycopg) connection to this
        store's PostgreSQL database that the caller holds (the turn's, see ``Session._arun``)."""
        cur = await conn.execute("SELECT 1 FROM ga_sessions WHERE agent = %s AND session_id = %s", (agent, session_id))
        return await cur.fetchone() is not None

    def get(self, agent: str, session_id: str) -> SessionRecord | None:
        rows = self.db.fetchall(
            "SELECT options, created_at, user_id FROM ga_sessions WHERE agent = ? AND session_id = ?",
            (agent, session_id),
        )
        if not rows:
            return None
        options, created_at, user_id = rows[0]
        return SessionRecord(agent, session_id, json.loads(options), float(created_at), str(user_id))
