"""``graphagents keys create|list|revoke`` and ``graphagents data export|delete``: administer API
keys and a user's data on the configured stores (the same ones the server uses)."""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import InputError
from ..settings import get_settings
from .render import console, err_console

keys_app = typer.Typer(help="API keys: each bound to a user id, stored hashed.", no_args_is_help=True)
data_app = typer.Typer(help="A user's data: export it or erase it everywhere.", no_args_is_help=True)

UserArg = Annotated[str, typer.Option("--user", help="the user id")]
JsonOpt = Annotated[bool, typer.Option("--json", help="machine-readable output")]


def _keys() -> Any:
    from ..auth.keys import KeyStore
    from ..store import database_for

    return KeyStore(database_for(get_settings().resolved_database_url))


def _note(line: str) -> None:
    err_console.print(line, highlight=False, markup=False, soft_wrap=True)


def _when(ts: float | None) -> str:
    return "" if ts is None else dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


@keys_app.command("create")
def keys_create(
    user: UserArg,
    name: Annotated[str, typer.Option(help="a label to recognise the key by")] = "",
    expires_in: Annotated[str | None, typer.Option("--expires-in", help="lifetime, e.g. 90d, 12h (default: none)")]
    = None,
    as_json: JsonOpt = False,
) -> None:
    """Create a key for a user and print it: this is the only time the key is shown."""
    from ..auth.keys import parse_duration

    key, record = _keys().create(user, name=name, expires_in=None if expires_in is None else parse_duration(expires_in))
    if as_json:
        print(json.dumps({"key": key, "key_id": record.key_id, "user_id": record.user_id, "name": record.name,
                          "expires_at": record.expires_at}))
        return
    print(key)
    err_console.print(f"key {record.key_id} for user {record.user_id}"
                      + (f", expires {_when(record.expires_at)}" if record.expires_at else "")
                      + ": store it now, it is not shown again", highlight=False, markup=False, soft_wrap=True)


@keys_app.command("list")
def keys_list(
    user: Annotated[str | None, typer.Option("--user", help="only this user's keys")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List keys (ids, users, names, dates, status; never the secrets)."""
    records = _keys().list_keys(user)
    if as_json:
        print(json.dumps([{"key_id": r.key_id, "user_id": r.user_id, "name": r.name, "created_at": r.created_at,
                           "expires_at": r.expires_at, "revoked_at": r.revoked_at, "status": r.status()}
                          for r in records], ensure_ascii=False))
        return
    from rich.table import Table

    table = Table("key id", "user", "name", "created", "expires", "status")
    for r in records:
        table.add_row(r.key_id, r.user_id, r.name, _when(r.created_at), _when(r.expires_at), r.status())
    console.print(table)


@keys_app.command("revoke")
def keys_revoke(key_id: Annotated[str, typer.Argument(help="the key id shown by `keys list`")]) -> None:
    """Revoke a key: requests with it, and the page sign-ins made with it, stop working at once."""
    record = _keys().revoke(key_id)
    _note(f"key {record.key_id} of user {record.user_id} revoked")


def _agent_options(pairs: list[str] | None) -> dict[str, dict[str, Any]]:
    from .main import parse_pairs

    out: dict[str, dict[str, Any]] = {}
    for key, value in parse_pairs(pairs).items():
        agent, dot, opt = key.partition(".")
        if not dot:
            raise InputError(f"bad option {key!r}: write agent.key=value (as for `serve -o`)")
        out.setdefault(agent, {})[opt] = value
    return out


OptionOpt = Annotated[
    list[str] | None, typer.Option("--option", "-o", help="agent.key=value, as given to `serve` (repeatable)")
]


@data_app.command("export")
def data_export(
    user: UserArg,
    out: Annotated[Path | None, typer.Option("--out", help="write the JSON here (default: stdout)")] = None,
    option: OptionOpt = None,
) -> None:
    """Everything stored about a user, as one JSON document."""
    from ..userdata import export_user

    data = export_user(user, settings=get_settings(), agent_options=_agent_options(option))
    text = json.dumps(data, ensure_ascii=False, indent=2)
    if out is None:
        sys.stdout.write(text + "\n")
        return
    out.write_text(text + "\n", encoding="utf-8")
    err_console.print(f"{len(data['sessions'])} sessions of user {user} written to {out}", highlight=False,
                      markup=False, soft_wrap=True)


@data_app.command("delete")
def data_delete(
    user: UserArg,
    yes: Annotated[bool, typer.Option("--yes", help="do not ask for confirmation")] = False,
    keys: Annotated[bool, typer.Option("--keys", help="also delete the user's API keys and sign-ins")] = False,
    option: OptionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Erase a user's sessions, their threads, agents' records and memory, everywhere."""
    from ..userdata import delete_user, flush_sqlite_logs

    if not yes and not typer.confirm(f"Erase every session and record of user {user!r}? This cannot be undone"):
        raise typer.Exit(1)
    removed = delete_user(user, settings=get_settings(), agent_options=_agent_options(option))
    if keys:
        from ..auth.websessions import WebSessionStore

        store = _keys()
        removed["web_sign_ins"] = WebSessionStore(store.db).delete_user(user)
        removed["keys"] = store.delete_user(user)
        flush_sqlite_logs(get_settings())
    if as_json:
        print(json.dumps({"user_id": user, "deleted": removed}))
        return
    summary = ", ".join(f"{n} {kind}" for kind, n in removed.items())
    err_console.print(f"user {user}: deleted {summary}", highlight=False, markup=False, soft_wrap=True)
