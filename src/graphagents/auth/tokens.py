"""Bearer JWTs from an identity provider, verified with PyJWT (the ``jwt`` extra).

Three ways to get the verification key, from the settings: a shared secret (HS256 family), a JWKS
URL (the provider's public keys, fetched and cached by ``PyJWKClient``), or only an issuer, whose
JWKS URL is read once from ``<issuer>/.well-known/openid-configuration``. ``exp`` is required, ``iss``
and ``aud`` are checked when configured, and the user id comes from the configured claim.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from typing import Any

from ..errors import ConfigError, MissingExtraError
from .settings import AuthSettings

__all__ = ["JwtVerifier", "TokenRejected"]


class TokenRejected(Exception):
    """A token that does not authenticate anyone; the message is one line, safe to send back."""


def _pyjwt() -> Any:
    try:
        import jwt
    except ImportError as exc:
        raise MissingExtraError("bearer JWTs need PyJWT: pip install 'graphagents[jwt]'") from exc
    return jwt


class JwtVerifier:
    def __init__(self, settings: AuthSettings) -> None:
        self.jwt = _pyjwt()
        self.settings = settings
        if settings.jwt_secret:
            self.algorithms = settings.jwt_algorithms or ["HS256"]
        else:
            self.algorithms = settings.jwt_algorithms or ["RS256", "ES256"]
        if settings.jwt_secret and any(not a.startswith("HS") for a in self.algorithms):
            raise ConfigError("GRAPHAGENTS_JWT_SECRET verifies HS256/HS384/HS512 tokens only")
        if not settings.jwt_secret and any(a.startswith("HS") or a == "none" for a in self.algorithms):
            raise ConfigError("HS* algorithms need GRAPHAGENTS_JWT_SECRET; with JWKS use RS256, ES256 ...")
        self._jwks: Any = None
        self._lock = threading.Lock()

    def _jwks_client(self) -> Any:
        with self._lock:
            if self._jwks is None:
                url = self.settings.jwt_jwks_url or self._discover()
                self._jwks = self.jwt.PyJWKClient(url, cache_keys=True, lifespan=600, timeout=5)
            return self._jwks

    def _discover(self) -> str:
        issuer = (self.settings.jwt_issuer or "").rstrip("/")
        url = f"{issuer}/.well-known/openid-configuration"
        try:
            with urllib.request.urlopen(url, timeout=5) as res:  # noqa: S310 - the configured issuer
                jwks_uri = json.loads(res.read())["jwks_uri"]
        except Exception as exc:
            raise TokenRejected(f"cannot read the issuer's configuration at {url}: {type(exc).__name__}") from None
        if not isinstance(jwks_uri, str):
            raise TokenRejected(f"the issuer's configuration at {url} has no jwks_uri")
        return jwks_uri

    @property
    def needs_network(self) -> bool:
        """True when verifying may fetch keys (run it off the event loop)."""
        return not self.settings.jwt_secret

    def user_id(self, token: str) -> str:
        """The user id in a valid token; TokenRejected with a one-line reason otherwise."""
        jwt, s = self.jwt, self.settings
        try:
            header = jwt.get_unverified_header(token)
            if header.get("alg") not in self.algorithms:
                raise TokenRejected(f"invalid token: algorithm {str(header.get('alg'))[:10]!r} is not accepted")
            key = s.jwt_secret if s.jwt_secret else self._jwks_client().get_signing_key_from_jwt(token).key
            claims = jwt.decode(
                token, key, algorithms=self.algorithms, audience=s.jwt_audience, issuer=s.jwt_issuer,
                leeway=s.jwt_leeway, options={"require": ["exp", s.jwt_user_claim],
                                              "verify_aud": s.jwt_audience is not None},
            )
        except TokenRejected:
            raise
        except jwt.ExpiredSignatureError:
            raise TokenRejected("invalid token: expired") from None
        except jwt.InvalidSignatureError:
            raise TokenRejected("invalid token: signature does not verify") from None
        except jwt.PyJWKClientError as exc:
            raise TokenRejected(f"invalid token: no matching signing key ({_first_line(exc)})") from None
        except jwt.InvalidTokenError as exc:
            raise TokenRejected(f"invalid token: {_first_line(exc)}") from None
        user = claims.get(s.jwt_user_claim)
        if not isinstance(user, str | int) or isinstance(user, bool):
            raise TokenRejected(f"invalid token: claim {s.jwt_user_claim!r} is not a user id")
        return str(user)


def _first_line(exc: BaseException) -> str:
    text = (str(exc).strip() or type(exc).__name__).splitlines()[0]
    return text[:200]
