"""``graphagents keys ...`` and ``serve``'s refusal to expose sessions without authentication."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from auth_helpers import file_bytes

from graphagents.auth.keys import KeyStore, parse_duration
from graphagents.cli.main import check_exposure
from graphagents.errors import InputError, UsageError
from graphagents.settings import get_settings
from graphagents.store import database_for


def run(data_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHAGENTS_")}
    return subprocess.run([sys.executable, "-m", "graphagents", *args], capture_output=True, text=True, timeout=120,
                          env={**clean, "GRAPHAGENTS_DATA_DIR": str(data_dir), **env})


def test_keys_create_list_revoke(data_dir: Path) -> None:
    made = run(data_dir, "keys", "create", "--user", "hana@example.com", "--name", "laptop", "--expires-in", "30d")
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert key.startswith("ga_") and "\n" not in key and "not shown again" in made.stderr
    store = KeyStore(database_for(get_settings().resolved_database_url))
    record = store.verify(key)
    assert record is not None and record.user_id == "hana@example.com" and record.name == "laptop"
    assert record.expires_at is not None and 29.9 * 86400 < record.expires_at - record.created_at < 30.1 * 86400
    # hashed at rest: the secret is nowhere in the database file
    secret = key.split("_", 2)[2]
    assert secret.encode() not in file_bytes(data_dir)
    listed = json.loads(run(data_dir, "keys", "list", "--json").stdout)
    assert [(k["key_id"], k["user_id"], k["status"]) for k in listed] == [(record.key_id, "hana@example.com", "active")]
    assert key not in json.dumps(listed)
    revoked = run(data_dir, "keys", "revoke", record.key_id)
    assert revoked.returncode == 0 and "revoked" in revoked.stderr
    assert store.verify(key) is None
    assert json.loads(run(data_dir, "keys", "list", "--json", "--user", "hana@example.com").stdout)[0]["status"] \
        == "revoked"


@pytest.mark.parametrize(("args", "words"), [
    (["keys", "revoke", "0123456789ab"], "no API key with id"),
    (["keys", "revoke", "not-an-id"], "bad key id"),
    (["keys", "create", "--user", "two words"], "bad user id"),
    (["keys", "create", "--user", "ok", "--expires-in", "soon"], "bad duration"),
])
def test_key_command_mistakes_are_one_line(data_dir: Path, args: list[str], words: str) -> None:
    res = run(data_dir, *args)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and words in res.stderr, res.stderr


def test_serve_on_a_public_address_without_auth_refuses_in_one_line(data_dir: Path) -> None:
    res = run(data_dir, "serve", "--host", "0.0.0.0", "--port", "9")
    assert res.returncode == 1 and res.stderr.count("\n") == 1, res.stderr
    assert "refusing to serve on 0.0.0.0 without authentication" in res.stderr and "--insecure" in res.stderr
    assert "graphagents on http" not in res.stderr


def test_exposure_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphagents.auth.settings import get_auth_settings

    for host in ("127.0.0.1", "127.0.1.1", "localhost", "::1"):
        check_exposure(host, insecure=False)
    for host in ("0.0.0.0", "::", "192.168.1.5"):
        with pytest.raises(UsageError, match="refusing"):
            check_exposure(host, insecure=False)
        check_exposure(host, insecure=True)
    monkeypatch.setenv("GRAPHAGENTS_AUTH", "on")
    get_auth_settings.cache_clear()
    try:
        check_exposure("0.0.0.0", insecure=False)
    finally:
        get_auth_settings.cache_clear()


def test_durations() -> None:
    assert [parse_duration(t) for t in ("90m", "12h", "30d", "2w", "45s")] == [5400, 43200, 2592000, 1209600, 45]
    for bad in ("", "0d", "3 months", "-1d", "1.5h"):
        with pytest.raises(InputError):
            parse_duration(bad)
