"""What may be written to logs: no message text, profile values or credentials unless asked for.

Log lines travel to places with weaker protection than the databases (files, log shippers, support
tickets), so the default is to log *that* something happened, never *what* the user said. Wrap any
user-provided value in :func:`loggable` before it reaches a logger::

    log.info("session %s: %s at %s", session_id, loggable(text), stage)

prints ``<redacted: 12 chars>`` unless ``GRAPHAGENTS_LOG_CONTENT=true`` turns content logging on
(for debugging on a developer's machine). Ids (session, user, application) are not content.
"""

from __future__ import annotations

from typing import Any

__all__ = ["log_content_enabled", "loggable", "set_log_content"]

_override: bool | None = None


def set_log_content(enabled: bool | None) -> None:
    """Force content logging on or off in this process (None: back to the setting)."""
    global _override
    _override = enabled


def log_content_enabled() -> bool:
    if _override is not None:
        return _override
    from .auth.settings import get_auth_settings

    return get_auth_settings().log_content


class _Redacted:
    """Formats lazily: the decision is taken when the record is written, and costs nothing otherwise."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def _text(self, show: Any) -> str:
        if log_content_enabled():
            return str(show(self.value))
        if isinstance(self.value, str):
            return f"<redacted: {len(self.value)} chars>"
        if isinstance(self.value, list | dict | tuple):
            return f"<redacted: {len(self.value)} items>"
        return "<redacted>"

    def __str__(self) -> str:
        return self._text(str)

    def __repr__(self) -> str:
        return self._text(repr)


def loggable(value: Any) -> Any:
    """``value`` as it should appear in a log line: itself when content logging is on, else its size."""
    return _Redacted(value)
