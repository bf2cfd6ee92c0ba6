"""API keys: random secrets bound to a user id, stored as SHA-256 hashes in the application database.

A key reads ``ga_<key id>_<secret>``. The key id (12 hex digits) is public: it names the key in
``keys list`` and ``keys revoke`` and finds its row; the secret (32 random bytes, URL-safe base64) is
shown once, at creation, and only its SHA-256 is stored. A slow password hash (bcrypt, argon2) buys
nothing here: it protects low-entropy human passwords against guessing, while a 256-bit random
secret cannot be guessed from its hash, and a fast hash keeps every request's check cheap.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass

from ..errors import InputError
from ..runtime import check_user_id
from ..store import Database

__all__ = ["ApiKey", "KeyStore", "parse_duration"]

PREFIX = "ga_"
_KEY = re.compile(r"ga_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")
_KEY_ID = re.compile(r"[0-9a-f]{12}")
_DURATION = re.compile(r"(\d+)\s*([smhdw])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


@dataclass(frozen=True)
class ApiKey:
    """A key's record: never the secret."""

    key_id: str
    user_id: str
    name: str
    created_at: float
    expires_at: float | None = None
    revoked_at: float | None = None

    def status(self, now: float | None = None) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= (now or time.time()):
            return "expired"
        return "active"


def parse_duration(text: str) -> float:
    """``"30d"``, ``"12h"``, ``"90m"``, ``"2w"`` -> seconds."""
    match = _DURATION.fullmatch(text.strip().lower())
    if not match or int(match.group(1)) == 0:
        raise InputError(f"bad duration {text!r}: write a number and a unit, e.g. 30d, 12h, 90m, 2w")
    return int(match.group(1)) * _UNITS[match.group(2)]


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


class KeyStore:
    """Create, list, revoke and check API keys in ``ga_api_keys``."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS ga_api_keys ("
            " key_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, secret_hash TEXT NOT NULL,"
            " created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION, revoked_at DOUBLE PRECISION)"
        )

    def create(self, user_id: str, *, name: str = "", expires_in: float | None = None) -> tuple[str, ApiKey]:
        """A new key for ``user_id``: returns the key (shown once) and its record."""
        check_user_id(user_id)
        if len(name) > 200 or any(not ch.isprintable() for ch in name):
            raise InputError("a key name is at most 200 printable characters")
        key_id, secret = secrets.token_hex(6), secrets.token_urlsafe(32)
        now = time.time()
        record = ApiKey(key_id, user_id, name, now, None if expires_in is None else now + expires_in)
        self.db.execute(
            "INSERT INTO ga_api_keys (key_id, user_id, name, secret_hash, created_at, expires_at, revoked_at)"
            " VALUES (?, ?, ?, ?, ?, ?, NULL)",
            (key_id, user_id, name, _hash(secret), record.created_at, record.expires_at),
        )
        return f"{PREFIX}{key_id}_{secret}", record

    def list_keys(self, user_id: str | None = None) -> list[ApiKey]:
        where, params = ("WHERE user_id = ?", (user_id,)) if user_id is not None else ("", ())
        return [record for record, _ in self._select(where + " ORDER BY created_at, key_id", params)]

    def get(self, key_id: str) -> ApiKey | None:
        rows = self._select("WHERE key_id = ?", (key_id,))
        return rows[0][0] if rows else None

    def _select(self, tail: str, params: tuple[str, ...]) -> list[tuple[ApiKey, str]]:
        rows = self.db.fetchall(
            "SELECT key_id, user_id, name, created_at, expires_at, revoked_at, secret_hash FROM ga_api_keys " + tail,
            params,
        )
        return [(ApiKey(str(k), str(u), str(n), float(c), _opt(e), _opt(r)), str(h)) for k, u, n, c, e, r, h in rows]

    def revoke(self, key_id: str) -> ApiKey:
        """Revoke a key by id (a whole ``ga_...`` key is accepted too); it stops working at once."""
        match = _KEY.fullmatch(key_id)
        key_id = match.group(1) if match else key_id
        if not _KEY_ID.fullmatch(key_id):
            raise InputError("bad key id: the 12 hex digits after 'ga_' (see `graphagents keys list`)")
        record = self.get(key_id)
        if record is None:
            raise InputError(f"no API key with id {key_id}")
        if record.revoked_at is None:
            self.db.execute("UPDATE ga_api_keys SET revoked_at = ? WHERE key_id = ?", (time.time(), key_id))
            record = self.get(key_id) or record
        return record

    def delete_user(self, user_id: str) -> int:
        """Remove every key of ``user_id`` (an administrator's full erasure)."""
        count = len(self.list_keys(user_id))
        self.db.execute("DELETE FROM ga_api_keys WHERE user_id = ?", (user_id,))
        return count

    def verify(self, key: str) -> ApiKey | None:
        """The active key record for ``key``, or None (malformed, unknown, wrong secret, revoked, expired)."""
        match = _KEY.fullmatch(key)
        if match is None:
            return None
        key_id, secret = match.groups()
        rows = self._select("WHERE key_id = ?", (key_id,))
        if not rows or not hmac.compare_digest(rows[0][1], _hash(secret)):
            return None
        record = rows[0][0]
        return record if record.status() == "active" else None


def looks_like_key(token: str) -> bool:
    return token.startswith(PREFIX)


def _opt(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]
