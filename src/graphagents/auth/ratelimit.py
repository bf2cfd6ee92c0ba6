"""Per-user limits: API requests and model tokens per minute, with the seconds to wait when over.

Counting is done by the ``limits`` library (sliding-window counters): in process by default, in
Redis when ``GRAPHAGENTS_RATE_LIMIT_URL`` (or a Redis ``CACHE_URL``) says so, so that every server
process shares one count per user. Tokens are known only after a turn: a turn is refused while the
user's token window is spent, and each finished turn adds what it used (``Usage`` of its final
event).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from limits.storage import storage_from_string

from ..errors import ConfigError, redact_url

__all__ = ["Limited", "UserLimiter", "limiter_url"]


@dataclass(frozen=True)
class Limited:
    """Refused: what was exhausted and how long to wait."""

    what: str
    retry_after: int

    @property
    def message(self) -> str:
        return f"rate limit: too many {self.what} per minute for this user; retry in {self.retry_after} s"


def limiter_url(explicit: str | None, cache_url: str | None) -> str:
    if explicit:
        return explicit
    if cache_url and cache_url.startswith(("redis://", "rediss://")):
        return cache_url
    return "memory://"


class UserLimiter:
    """``requests`` / ``tokens`` per user per minute; 0 disables a limit."""

    def __init__(self, url: str, *, requests: int, tokens: int, prefix: str = "graphagents:limits") -> None:
        self.url = url
        if url.startswith(("redis://", "rediss://")):
            options: dict[str, str] = {"implementation": "redispy", "key_prefix": prefix}
        elif url.startswith("memory://"):
            options = {}
        else:
            raise ConfigError(f"unsupported GRAPHAGENTS_RATE_LIMIT_URL {redact_url(url)!r}: use memory:// or redis://")
        try:
            self.storage = storage_from_string(f"async+{url}", **options)
        except Exception as exc:
            raise ConfigError(f"cannot use {redact_url(url)} for rate limits: {exc}") from None
        self.strategy = SlidingWindowCounterRateLimiter(self.storage)
        self.requests: RateLimitItem | None = RateLimitItemPerMinute(requests) if requests else None
        self.tokens: RateLimitItem | None = RateLimitItemPerMinute(tokens) if tokens else None

    @property
    def enabled(self) -> bool:
        return self.requests is not None or self.tokens is not None

    async def _retry_after(self, item: RateLimitItem, *ids: str) -> int:
        stats = await self.strategy.get_window_stats(item, *ids)
        return max(1, math.ceil(stats.reset_time - time.time()))

    async def hit_request(self, user_id: str) -> Limited | None:
        """Count one request; Limited when the user is over the request limit."""
        if self.requests is None:
            return None
        if await self.strategy.hit(self.requests, "req", user_id):
            return None
        return Limited("requests", await self._retry_after(self.requests, "req", user_id))

    async def check_tokens(self, user_id: str) -> Limited | None:
        """Limited when the user's token window is spent (call before starting a turn)."""
        if self.tokens is None or await self.strategy.test(self.tokens, "tok", user_id):
            return None
        return Limited("model tokens", await self._retry_after(self.tokens, "tok", user_id))

    async def add_tokens(self, user_id: str, count: int) -> None:
        """Add a finished turn's tokens (capped at what is left: the window is then spent)."""
        if self.tokens is None or count <= 0:
            return
        stats = await self.strategy.get_window_stats(self.tokens, "tok", user_id)
        if stats.remaining > 0:
            await self.strategy.hit(self.tokens, "tok", user_id, cost=min(count, stats.remaining))
