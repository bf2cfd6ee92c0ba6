"""What authentication costs per API request, against the same app with auth off, in one process.

Each mode sends the same requests (``GET /api/auth/me``: the middleware, the identity, the
per-user request count, a tiny route) through the ASGI app in process, so the figures are the
server's own work, not the network's:

* off      -- auth off, ``X-User-Id`` header (the baseline)
* api_key  -- ``Authorization: Bearer ga_...``: a primary-key lookup in the app database
* cookie   -- the page's sign-in: one lookup joining the sign-in and its key
* jwt      -- an HS256 bearer JWT verified by PyJWT (no database)

    .venv/bin/python bench/auth_overhead.py [--requests 2000] [--database postgresql://...]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time

import httpx


def reset() -> None:
    from graphagents import _connections
    from graphagents.auth.settings import get_auth_settings
    from graphagents.settings import get_settings

    get_settings.cache_clear()
    get_auth_settings.cache_clear()
    _connections.reset()


async def run_mode(mode: str, n: int) -> list[float]:
    import jwt

    from graphagents.auth.keys import KeyStore
    from graphagents.server import create_app
    from graphagents.settings import get_settings
    from graphagents.store import database_for

    os.environ["GRAPHAGENTS_AUTH"] = "false" if mode == "off" else "true"
    os.environ["GRAPHAGENTS_RATE_REQUESTS_PER_MINUTE"] = "0"  # measure authentication, not refusals
    os.environ["GRAPHAGENTS_JWT_SECRET"] = "bench-secret-bench-secret-bench-secret!!"
    reset()
    settings = get_settings()
    key, _ = KeyStore(database_for(settings.resolved_database_url)).create("bench-user")
    app = create_app(settings)
    headers: dict[str, str] = {}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        if mode == "off":
            headers = {"X-User-Id": "bench-user"}
        elif mode == "api_key":
            headers = {"Authorization": f"Bearer {key}"}
        elif mode == "jwt":
            token = jwt.encode({"sub": "bench-user", "exp": int(time.time()) + 3600},
                               os.environ["GRAPHAGENTS_JWT_SECRET"], algorithm="HS256")
            headers = {"Authorization": f"Bearer {token}"}
        elif mode == "cookie":
            assert (await client.post("/api/auth/login", json={"api_key": key})).status_code == 200
        for _ in range(50):  # warm-up
            assert (await client.get("/api/auth/me", headers=headers)).status_code == 200
        times = []
        for _ in range(n):
            start = time.perf_counter()
            res = await client.get("/api/auth/me", headers=headers)
            times.append(time.perf_counter() - start)
            assert res.status_code == 200
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--database", help="application database URL (default: SQLite in a temporary folder)")
    args = parser.parse_args()
    os.environ["GRAPHAGENTS_DATA_DIR"] = tempfile.mkdtemp(prefix="ga-bench-auth-")
    if args.database:
        os.environ["GRAPHAGENTS_DATABASE_URL"] = args.database
    results = {mode: asyncio.run(run_mode(mode, args.requests)) for mode in ("off", "api_key", "cookie", "jwt")}
    base = statistics.median(results["off"])
    print(f"{args.requests} requests per mode, GET /api/auth/me through the ASGI app, "
          f"database: {'SQLite' if not args.database else 'given URL'}")
    print(f"{'mode':<8} {'p50 ms':>8} {'p95 ms':>8} {'req/s':>8} {'p50 vs off':>11}")
    for mode, times in results.items():
        p50 = statistics.median(times)
        p95 = statistics.quantiles(times, n=20)[18]
        print(f"{mode:<8} {p50 * 1000:8.3f} {p95 * 1000:8.3f} {len(times) / sum(times):8.0f} {p50 / base:10.2f}x")


if __name__ == "__main__":
    main()
