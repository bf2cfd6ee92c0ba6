"""What the CLI and the HTTP routes show and clear: one user's profile (and cached answers)."""

from __future__ import annotations

from typing import Any

from graphagents.settings import Settings, get_settings

__all__ = ["clear_profile", "profile_payload"]


def profile_payload(user_id: str, settings: Settings | None = None) -> dict[str, Any]:
    """``{"user_id", "profile" (6 slots), "summary", "updated_at"}`` (ISO time or None)."""
    import datetime as dt

    from graphagents.runtime import check_user_id
    from graphagents.store import database_for

    from . import language
    from .profiles import profile_store_for

    check_user_id(user_id)
    settings = settings or get_settings()
    record = profile_store_for(database_for(settings.resolved_database_url)).get(user_id)
    updated = (dt.datetime.fromtimestamp(record.updated_at, dt.UTC).isoformat(timespec="seconds")
               if record.updated_at is not None else None)
    return {"user_id": user_id, "profile": record.profile, "summary": language.profile_summary(record.profile),
            "updated_at": updated}


def clear_profile(user_id: str, settings: Settings | None = None) -> int:
    """Delete the profile and the user's cached answers; returns how many things went."""
    from graphagents.runtime import check_user_id
    from graphagents.userdata import UserScope

    from .spec import _delete

    check_user_id(user_id)
    return _delete(UserScope(user_id, settings or get_settings(), "rag"))
