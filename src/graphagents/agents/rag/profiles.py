"""The per-user profile store (the note's ``ProfileStore``) on the LangGraph ``BaseStore``.

One item per user, in the user's own namespace (``("users", <user>, "rag", "profile")``, key
``"profile"``): the merged 6-slot profile and when it changed. Because it lives under the user's
namespace, the core exports and erases it with the rest of the user's data, with no hook; one user
never reads another's; the user can see and clear theirs (CLI, HTTP).

Profiles used to be rows of a table of their own (``ga_rag_profiles`` in the application
database). The first ProfileStore a process opens over a database that still has that table moves
its rows into the store (a profile already in the store wins) and drops the table, so existing
profiles stay readable and nothing is left behind for an erasure to miss.
"""

from __future__ import annotations

import json
import threading
import time
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphagents.userdata import user_namespace

if TYPE_CHECKING:
    from langgraph.store.base import BaseStore

    from graphagents.store import Database

__all__ = ["EMPTY_PROFILE", "ProfileRecord", "ProfileStore", "empty_profile", "migrate_legacy_profiles",
           "profile_store_for"]

AGENT = "rag"
LABEL = "profile"
KEY = "profile"
LEGACY_TABLE = "ga_rag_profiles"

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


def profile_namespace(user_id: str) -> tuple[str, ...]:
    """Where a user's profile lives: what ``BuildContext.user_namespace(user_id, "profile")`` gives rag."""
    return user_namespace(user_id, AGENT, LABEL)


class ProfileStore:
    def __init__(self, store: BaseStore) -> None:
        self.store = store

    def get(self, user_id: str) -> ProfileRecord:
        item = self.store.get(profile_namespace(user_id), KEY)
        if item is None:
            return ProfileRecord(user_id, empty_profile(), None)
        value = item.value if isinstance(item.value, dict) else {}
        profile = value.get("profile")
        updated = value.get("updated_at")
        return ProfileRecord(user_id, normalised(profile if isinstance(profile, dict) else {}),
                             float(updated) if isinstance(updated, int | float) else item.updated_at.timestamp())

    def put(self, user_id: str, profile: dict[str, Any], *, updated_at: float | None = None) -> ProfileRecord:
        now = time.time() if updated_at is None else updated_at
        clean = normalised(profile)
        self.store.put(profile_namespace(user_id), KEY, {"profile": clean, "updated_at": now}, index=False)
        return ProfileRecord(user_id, clean, now)

    def delete(self, user_id: str) -> int:
        existed = self.store.get(profile_namespace(user_id), KEY) is not None
        self.store.delete(profile_namespace(user_id), KEY)
        return int(existed)

    def describe(self) -> str:
        return "ProfileStore(BaseStore: users/<user>/rag/profile)"


def _legacy_exists(db: Database) -> bool:
    if db.dialect == "postgres":
        rows = db.fetchall("SELECT to_regclass(CAST(? AS text)) IS NOT NULL", (LEGACY_TABLE,))
    else:
        rows = db.fetchall("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", (LEGACY_TABLE,))
    return bool(rows and rows[0][0])


def migrate_legacy_profiles(db: Database, profiles: ProfileStore) -> int:
    """Move the rows of the old ``ga_rag_profiles`` table into the store and drop the table; returns
    how many profiles moved (0 when there is no such table). A profile the store has already is kept."""
    if not _legacy_exists(db):
        return 0
    moved = 0
    for user_id, blob, updated_at in db.fetchall(f"SELECT user_id, profile, updated_at FROM {LEGACY_TABLE}"):
        try:
            profile = json.loads(blob)
        except (TypeError, ValueError):
            profile = {}
        if profiles.get(str(user_id)).updated_at is None:
            profiles.put(str(user_id), profile if isinstance(profile, dict) else {}, updated_at=float(updated_at))
            moved += 1
    db.execute(f"DROP TABLE IF EXISTS {LEGACY_TABLE}")
    return moved


_lock = threading.Lock()
_migrated: weakref.WeakSet[Any] = weakref.WeakSet()


def profile_store_for(store: BaseStore, legacy: Database | None = None) -> ProfileStore:
    """The profiles in ``store``; the old table of ``legacy`` (the application database) is moved
    into it the first time this process opens that database."""
    profiles = ProfileStore(store)
    if legacy is not None:
        with _lock:
            if legacy not in _migrated:
                migrate_legacy_profiles(legacy, profiles)
                _migrated.add(legacy)
    return profiles
