"""Access-control settings, read from ``GRAPHAGENTS_*`` environment variables (and ``.env``).

Kept apart from :class:`graphagents.settings.Settings` so that the runtime's settings do not grow a
security section; both read the same environment.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

__all__ = ["AuthSettings", "get_auth_settings", "is_loopback"]

def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach: 127.0.0.0/8, ::1 (also IPv4-mapped, and in
    brackets) and the name ``localhost``. Parsed as an address, never matched as text:
    ``127.attacker.example`` is a host name anyone may own, not a loopback address."""
    text = host.strip()
    if text.lower() == "localhost":
        return True
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def _csv(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class AuthSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GRAPHAGENTS_", env_file=".env", extra="ignore")

    auth: bool = Field(
        False, description="authenticate every API request (API keys, bearer JWTs, the page's cookie); "
        "off is allowed only while the server listens on 127.0.0.1"
    )
    insecure: bool = Field(
        False, description="with auth off, take X-User-Id from requests of any address (what `serve --insecure` "
        "sets); off, a request from another machine is refused (403) while auth is off"
    )
    jwt_secret: str | None = Field(None, description="shared secret for HS256/384/512 bearer JWTs")
    jwt_jwks_url: str | None = Field(None, description="JWKS URL of the identity provider (RS256, ES256 ...)")
    jwt_issuer: str | None = Field(
        None, description="required `iss`; without a JWKS URL or secret, keys are discovered from "
        "<issuer>/.well-known/openid-configuration"
    )
    jwt_audience: str | None = Field(None, description="required `aud`, when set")
    jwt_user_claim: str = Field("sub", description="the claim that holds the user id")
    jwt_algorithms: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="accepted algorithms, comma separated "
        "(default: HS256 with a secret, RS256 and ES256 with JWKS)"
    )
    jwt_leeway: float = Field(30, ge=0, le=600, description="seconds of clock skew tolerated on exp/nbf/iat")
    cookie_hours: float = Field(12, gt=0, le=24 * 30, description="lifetime of the web page's sign-in cookie")
    cookie_secure: bool | None = Field(
        None, description="mark the sign-in cookie Secure (default: when the request came over https)"
    )
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="origins allowed to call the API from a browser, comma separated "
        "(default: none; the page itself is same-origin)"
    )
    rate_requests_per_minute: int | None = Field(
        None, ge=0, description="API requests per user per minute (default: 300 with auth on, "
        "unlimited with auth off; 0 = unlimited)"
    )
    rate_tokens_per_minute: int = Field(0, ge=0, description="model tokens per user per minute (0 = unlimited)")
    rate_limit_url: str | None = Field(
        None, description="where limits are counted: unset = Redis if CACHE_URL is Redis, else in-process; "
        "memory:// or redis://..."
    )
    log_content: bool = Field(
        False, description="log message text, profile values and state (debugging only: off in production)"
    )

    _split = field_validator("jwt_algorithms", "cors_origins", mode="before")(_csv)

    @property
    def jwt_enabled(self) -> bool:
        return bool(self.jwt_secret or self.jwt_jwks_url or self.jwt_issuer)

    @property
    def requests_per_minute(self) -> int:
        if self.rate_requests_per_minute is not None:
            return self.rate_requests_per_minute
        return 300 if self.auth else 0


@lru_cache(maxsize=1)
def get_auth_settings() -> AuthSettings:
    return AuthSettings()
