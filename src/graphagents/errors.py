"""The exception tree of graphagents.

    GraphAgentsError                 base of everything we raise on purpose
    ├── UsageError                   the caller asked for something wrong: fix the call
    │   ├── ConfigError              a setting or option has a bad value
    │   ├── UnknownAgentError        no agent registered under that name
    │   ├── UnknownSessionError      no session with that id for that agent
    │   ├── SessionExistsError       a session with that id exists already (creating it again)
    │   ├── InputError               an empty, over-long or malformed message or file
    │   └── ModelSetupError          a chat model cannot be built
    │       ├── UnknownProviderError the "provider:" part is not one we know
    │       ├── MissingExtraError    the provider's optional dependency is not installed
    │       └── MissingKeyError      the provider's API key variable is not set
    └── RunError                     the run itself failed: retry or check a service
        ├── ServiceUnavailableError  a database, cache or server cannot be reached
        ├── BusyError                a session or the server is busy: retry after ``retry_after`` s
        ├── ModelOutputError         a model kept returning output we cannot use
        ├── ModelRequestsBlocked     a real model call while requests are disabled (tests)
        └── TurnDeadlineExceeded     the turn's time for model calls ran out (decision points fall back)

Every message is one line that says what to do; the CLI and the server print ``str(exc)``.
This module is public: ``from graphagents.errors import UnknownSessionError`` is supported, and every
class is also exported from ``graphagents``.
"""

from __future__ import annotations

__all__ = [
    "BusyError",
    "ConfigError",
    "GraphAgentsError",
    "InputError",
    "MissingExtraError",
    "MissingKeyError",
    "ModelOutputError",
    "ModelRequestsBlocked",
    "ModelSetupError",
    "RunError",
    "ServiceUnavailableError",
    "SessionExistsError",
    "TurnDeadlineExceeded",
    "UnknownAgentError",
    "UnknownProviderError",
    "UnknownSessionError",
    "UsageError",
    "redact_url",
]


class GraphAgentsError(Exception):
    """Base class: catch this to handle every error graphagents raises on purpose."""


class UsageError(GraphAgentsError):
    """The caller used graphagents wrongly; the message says how to fix the call."""


class ConfigError(UsageError):
    pass


class UnknownAgentError(UsageError):
    pass


class UnknownSessionError(UsageError):
    pass


class SessionExistsError(UsageError):
    pass


class InputError(UsageError):
    pass


class ModelSetupError(UsageError):
    pass


class UnknownProviderError(ModelSetupError):
    pass


class MissingExtraError(ModelSetupError):
    pass


class MissingKeyError(ModelSetupError):
    pass


class RunError(GraphAgentsError):
    """The run failed for a reason outside the caller's input."""


class ServiceUnavailableError(RunError):
    pass


class ModelOutputError(RunError):
    pass


class ModelRequestsBlocked(RunError):
    pass


class TurnDeadlineExceeded(RunError):
    """The turn's budget for model calls (``Settings.turn_deadline_seconds``) has passed: no new
    model call is made; decision points take their offline fallback."""


def redact_url(url: str) -> str:
    """The URL without its password (in the authority or a ``password=`` query parameter),
    so that it can be printed in an error line."""
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    pairs = parse_qsl(parts.query)
    if parts.password is None and not any(k.lower() == "password" for k, _ in pairs):
        return url
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(f":{parts.password}@", ":***@", 1)
    query = urlencode([(k, "***" if k.lower() == "password" else v) for k, v in pairs])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


class BusyError(RunError):
    """Too much at once. ``scope`` says what is busy: ``"session"`` (another turn of this session
    held it longer than the wait allows), ``"queue"`` (too many messages wait for this session) or
    ``"server"`` (the process runs as many turns as it admits); retry after ``retry_after`` seconds."""

    def __init__(self, message: str, *, scope: str = "session", retry_after: int = 1) -> None:
        super().__init__(message)
        self.scope = scope
        self.retry_after = max(1, int(retry_after))
