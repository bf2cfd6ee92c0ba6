"""The web page's sign-in: an API key exchanged for an http-only, same-site cookie.

The cookie holds a random token; the database keeps its SHA-256, the user and the key it came from,
so signing out, revoking the key or expiry ends it at once, in every server process. The page never
sees the token (http-only) and so cannot leak it to a script; what it sees is the CSRF token, an
HMAC of the cookie token, which the server recomputes instead of storing. A cross-site page can make
the browser send the cookie (not with SameSite=Strict, but belt and braces) yet cannot read the CSRF
token, so it cannot forge the ``X-CSRF-Token`` header that every state-changing request must carry.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from ..store import Database

__all__ = ["COOKIE", "CSRF_HEADER", "WebSession", "WebSessionStore", "csrf_token"]

COOKIE = "ga_session"
CSRF_HEADER = "x-csrf-token"


@dataclass(frozen=True)
class WebSession:
    user_id: str
    key_id: str
    expires_at: float


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


def csrf_token(cookie_token: str) -> str:
    """Derived from the (secret, http-only) cookie token: the server needs to store nothing."""
    return hmac.new(cookie_token.encode("ascii", "replace"), b"graphagents-csrf", hashlib.sha256).hexdigest()[:40]


def csrf_matches(cookie_token: str, header: str | None) -> bool:
    return header is not None and hmac.compare_digest(csrf_token(cookie_token), header)


class WebSessionStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS ga_web_sessions ("
            " token_hash TEXT PRIMARY KEY, user_id TEXT NOT NULL, key_id TEXT NOT NULL,"
            " created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL)"
        )

    def create(self, user_id: str, key_id: str, lifetime: float) -> str:
        """A new cookie token (returned once; only its hash is kept). Expired rows are swept here."""
        token = secrets.token_urlsafe(32)
        now = time.time()
        self.db.execute("DELETE FROM ga_web_sessions WHERE expires_at <= ?", (now,))
        self.db.execute(
            "INSERT INTO ga_web_sessions (token_hash, user_id, key_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            (_hash(token), user_id, key_id, now, now + lifetime),
        )
        return token

    def get(self, token: str) -> WebSession | None:
        """The live sign-in for a cookie token: not expired, and its API key still active."""
        if not token or len(token) > 100:
            return None
        now = time.time()
        rows = self.db.fetchall(
            "SELECT w.user_id, w.key_id, w.expires_at FROM ga_web_sessions w"
            " JOIN ga_api_keys k ON k.key_id = w.key_id AND k.user_id = w.user_id"
            " WHERE w.token_hash = ? AND w.expires_at > ? AND k.revoked_at IS NULL"
            " AND (k.expires_at IS NULL OR k.expires_at > ?)",
            (_hash(token), now, now),
        )
        if not rows:
            return None
        user_id, key_id, expires_at = rows[0]
        return WebSession(str(user_id), str(key_id), float(expires_at))

    def delete(self, token: str) -> None:
        self.db.execute("DELETE FROM ga_web_sessions WHERE token_hash = ?", (_hash(token),))

    def delete_user(self, user_id: str) -> int:
        count = len(self.db.fetchall("SELECT 1 FROM ga_web_sessions WHERE user_id = ?", (user_id,)))
        self.db.execute("DELETE FROM ga_web_sessions WHERE user_id = ?", (user_id,))
        return count
