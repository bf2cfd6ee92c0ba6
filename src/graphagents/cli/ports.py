"""``serve``'s check that its address is free, before anything else is printed or started."""

from __future__ import annotations

import errno
import socket

from ..errors import UsageError


def check_port_free(host: str, port: int) -> None:
    """Raise a one-line :class:`UsageError` when ``host:port`` cannot be bound (in use, or not allowed).

    Binds a throw-away socket the way uvicorn will (``SO_REUSEADDR``, so a port in TIME_WAIT counts
    as free) and closes it at once. Without this check uvicorn prints the "graphagents on http://..."
    banner and a multi-line log before failing."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UsageError(f"cannot serve on {host!r}: {exc.strerror or exc}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise UsageError(f"port {port} on {host} is already in use (another server?): stop it, "
                                 f"or pass --port with a free port") from None
            if exc.errno == errno.EACCES:
                raise UsageError(f"not allowed to listen on port {port}: use a port above 1023") from None
            raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


__all__ = ["check_port_free"]
