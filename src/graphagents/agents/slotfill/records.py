"""The application record written when a customer confirms the summary.

Writing is an upsert keyed by the session id, so a re-run of the finishing node (LangGraph
re-executes a node after a crash or a resume) leaves exactly one record.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

from ...privacy import loggable
from ...store import Database, Migration, migrate
from .logs import log


def application_id(session_id: str) -> str:
    return "SF-" + hashlib.sha1(session_id.encode()).hexdigest()[:10].upper()


def _migrations(table: str) -> list[Migration]:
    return [
        # 1: one record per session
        [f"CREATE TABLE IF NOT EXISTS {table} ("
         " session_id TEXT PRIMARY KEY, application_id TEXT NOT NULL, scenario TEXT NOT NULL,"
         " slots TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL)"],
    ]


def ensure_table(db: Database, table: str) -> None:
    """Bring the record table (its name comes from the scenario) to its current version."""
    migrate(db, f"slotfill.records.{table}", _migrations(table))


def save_application(db: Database, table: str, session_id: str, scenario: str, slots: dict[str, Any]) -> str:
    ensure_table(db, table)
    app_id = application_id(session_id)
    db.execute(
        f"INSERT INTO {table} (session_id, application_id, scenario, slots, created_at) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (session_id) DO UPDATE SET application_id = excluded.application_id,"
        " scenario = excluded.scenario, slots = excluded.slots",
        (session_id, app_id, scenario, json.dumps(slots, ensure_ascii=False, sort_keys=True), time.time()),
    )
    log.info("application %s saved for session %s: %s", app_id, session_id,
             loggable(json.dumps(slots, ensure_ascii=False, sort_keys=True)))
    return app_id


def load_application(db: Database, table: str, session_id: str) -> dict[str, Any] | None:
    ensure_table(db, table)
    rows = db.fetchall(f"SELECT application_id, scenario, slots FROM {table} WHERE session_id = ?", (session_id,))
    if not rows:
        return None
    app_id, scenario, slots = rows[0]
    return {"application_id": app_id, "scenario": scenario, "slots": json.loads(slots)}


def _in(ids: list[str]) -> str:
    return ", ".join("?" * len(ids))


def export_applications(db: Database, table: str, session_ids: list[str]) -> list[dict[str, Any]]:
    """The application records of these sessions (a user's data export)."""
    if not session_ids:
        return []
    ensure_table(db, table)
    rows = db.fetchall(
        f"SELECT session_id, application_id, scenario, slots, created_at FROM {table}"
        f" WHERE session_id IN ({_in(session_ids)}) ORDER BY created_at", session_ids,
    )
    return [{"session_id": s, "application_id": a, "scenario": sc, "slots": json.loads(sl), "created_at": c}
            for s, a, sc, sl, c in rows]


def delete_applications(db: Database, table: str, session_ids: list[str]) -> int:
    """Erase the application records of these sessions; returns how many there were."""
    found = export_applications(db, table, session_ids)
    if found:
        db.execute(f"DELETE FROM {table} WHERE session_id IN ({_in(session_ids)})", session_ids)
    return len(found)
