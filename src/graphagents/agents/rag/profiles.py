"""The per-user profile store (the note's ``ProfileStore``) in the application database.

One row per user in ``ga_rag_profiles`` (SQLite by default, PostgreSQL when the application
database is): the merged 6-slot profile as JSON and when it changed. Profiles are keyed by user id
only, so one user never reads another's; the user can see and clear theirs (CLI, HTTP), and the
user-data export/delete of the core includes them (``AgentSpec.user_data``).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

from graphagents.store import Database

__all__ = ["EMPTY_PROFILE", "ProfileRecord", "ProfileStore", "empty_profile", "profile_store_for"]

SLOTS = ("demographics", "conditions", "symptoms", "medications", "vitals", "labs")
EMPTY_PROFILE: dict[str, Any] = {"demographics": {}, "conditions": [], "symptoms": [], "medications": [],
                                 "vitals": {}, "labs": {}}


def empty_profile() -> dict[str, Any]:
    return json.loads(json.dumps(EMPTY_PROFILE))


def normalised(profile: dict[str, Any] | None) -> dict[str, Any]:
    """The 6 slots, each present with its type (a stored profile may predate a slot)."""
    out = empty_profile()
    for slot in SLOTS:
        value = (profile or {}).get(slot)
        if isinstance(value, type(out[slot])):
            out[slot] = value
    for slot in ("conditions", "symptoms"):  # names; an older or hand-edited row may hold {"name": ...}
        names = [item.get("name") if isinstance(item, dict) else item for item in out[slot]]
        out[slot] = [n for n in names if isinstance(n, str) and n]
    out["medications"] = [m for m in out["medications"] if isinstance(m, dict) and m.get("name")]
    return out


@dataclass(frozen=True)
class ProfileRecord:
    user_id: str
    profile: dict[str, Any]
    updated_at: float | None


class ProfileStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS ga_rag_profiles (user_id TEXT PRIMARY KEY, profile TEXT NOT NULL, "
            "updated_at DOUBLE PRECISION NOT NULL)")

    def get(self, user_id: str) -> ProfileRecord:
        rows = self.db.fetchall("SELECT profile, updated_at FROM ga_rag_profiles WHERE user_id = ?", (user_id,))
        if not rows:
            return ProfileRecord(user_id, empty_profile(), None)
        try:
            profile = json.loads(rows[0][0])
        except (TypeError, ValueError):
            profile = {}
        return ProfileRecord(user_id, normalised(profile), float(rows[0][1]))

    def put(self, user_id: str, profile: dict[str, Any]) -> ProfileRecord:
        now = time.time()
        blob = json.dumps(normalised(profile), ensure_ascii=False, sort_keys=True)
        self.db.execute(
            "INSERT INTO ga_rag_profiles (user_id, profile, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET profile = excluded.profile, updated_at = excluded.updated_at",
            (user_id, blob, now))
        return ProfileRecord(user_id, normalised(profile), now)

    def delete(self, user_id: str) -> int:
        existed = bool(self.db.fetchall("SELECT 1 FROM ga_rag_profiles WHERE user_id = ?", (user_id,)))
        self.db.execute("DELETE FROM ga_rag_profiles WHERE user_id = ?", (user_id,))
        return int(existed)

    def describe(self) -> str:
        return f"ProfileStore({self.db.dialect}: ga_rag_profiles)"


_lock = threading.Lock()
_stores: dict[int, ProfileStore] = {}


def profile_store_for(db: Database) -> ProfileStore:
    """One ProfileStore per database handle (the table is created once)."""
    with _lock:
        store = _stores.get(id(db))
        if store is None or store.db is not db:
            store = _stores[id(db)] = ProfileStore(db)
        return store
