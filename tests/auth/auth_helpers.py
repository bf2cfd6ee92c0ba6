"""Helpers shared by the access-control tests (a module of its own: ``conftest`` names are ambiguous)."""

from __future__ import annotations

import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path


@dataclass
class User:
    user_id: str
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


def reset_settings() -> None:
    from graphagents import _connections
    from graphagents.auth.settings import get_auth_settings
    from graphagents.settings import get_settings

    get_settings.cache_clear()
    get_auth_settings.cache_clear()
    _connections.reset()


def new_user(prefix: str) -> User:
    from graphagents.auth.keys import KeyStore
    from graphagents.settings import get_settings
    from graphagents.store import database_for

    user_id = f"{prefix}-{uuid.uuid4().hex[:8]}"
    key, _ = KeyStore(database_for(get_settings().resolved_database_url)).create(user_id, name="test")
    return User(user_id, key)


def file_bytes(folder: Path) -> bytes:
    """Every file's bytes, read by another process: opening and closing a SQLite file in this
    process would drop the locks its open connections hold on it (POSIX advisory locks are per
    process), which corrupts what they see."""
    files = sorted(str(f) for f in folder.glob("*") if f.is_file())
    return subprocess.run(["cat", *files], capture_output=True, check=True).stdout if files else b""
