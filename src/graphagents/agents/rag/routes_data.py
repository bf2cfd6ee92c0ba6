"""What the CLI and the HTTP routes show and clear: one user's profile (and cached answers).

Both go through a :class:`~graphagents.userdata.UserScope` of the rag agent, the same services the
graph gets from its ``BuildContext``: the profile is in the user's store namespace, the cached
answers in the agent's semantic cache under the user's scope."""

from __future__ import annotations

from typing import Any

from graphagents.settings import Settings, get_settings
from graphagents.userdata import UserScope

__all__ = ["clear_profile", "profile_payload"]


def _scope(user_id: str, settings: Settings | None) -> UserScope:
    from graphagents.runtime import check_user_id

    check_user_id(user_id)
    return UserScope(user_id, settings or get_settings(), "rag")


def profile_payload(user_id: str, settings: Settings | None = None) -> dict[str, Any]:
    """``{"user_id", "profile" (6 slots), "summary", "updated_at"}`` (ISO time or None)."""
    import datetime as dt

    from . import language
    from .profiles import profile_store_for

    scope = _scope(user_id, settings)
    record = profile_store_for(scope.store, scope.database).get(user_id)
    updated = (dt.datetime.fromtimestamp(record.updated_at, dt.UTC).isoformat(timespec="seconds")
               if record.updated_at is not None else None)
    return {"user_id": user_id, "profile": record.profile, "summary": language.profile_summary(record.profile),
            "updated_at": updated}


def clear_profile(user_id: str, settings: Settings | None = None) -> int:
    """Delete the profile and the user's cached answers; returns how many things went."""
    from .nodes import CACHE_LABEL
    from .profiles import profile_store_for

    scope = _scope(user_id, settings)
    removed = profile_store_for(scope.store, scope.database).delete(user_id)
    return removed + scope.erase_semantic_cache(CACHE_LABEL)
