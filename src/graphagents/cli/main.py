"""Commands: agents, ask, chat, serve, doctor, demo, eval, plus each agent's own sub-commands."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import GraphAgentsError, InputError, UsageError
from ..registry import all_specs
from ..runtime import Agent, Session, load
from ..settings import get_settings
from .access import data_app, keys_app
from .doctor import run_doctor
from .ports import check_port_free
from .render import LiveRenderer, console, err_console

app = typer.Typer(
    name="graphagents",
    help="Five LangGraph agents on one core: chat with them, serve them, evaluate them.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
eval_app = typer.Typer(help="Evaluate an agent on its data set.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")
app.add_typer(keys_app, name="keys")
app.add_typer(data_app, name="data")

LlmOpt = Annotated[str | None, typer.Option("--llm", help='"offline" or "provider:model" (default: settings)')]
JsonOpt = Annotated[bool, typer.Option("--json", help="machine-readable output")]
OptionOpt = Annotated[
    list[str] | None, typer.Option("--option", "-o", help="agent option key=value (repeatable)")
]
DbOpt = Annotated[str | None, typer.Option("--db", help="database URL for agents that query one")]
ModelOpt = Annotated[
    list[str] | None,
    typer.Option("--model", "-m", help='named model role=spec, e.g. judge=openai:gpt-4o-mini (repeatable)'),
]
UserOpt = Annotated[str, typer.Option("--user", help="the user who owns the session")]
TableOpt = Annotated[
    list[str] | None, typer.Option("--table", help="table file or URL for agents that read tables (repeatable)")
]


def parse_pairs(pairs: list[str] | None) -> dict[str, Any]:
    """``key=value`` pairs; values that parse as JSON (numbers, true, {...}) are decoded."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError(f"bad option {pair!r}: write key=value")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def parse_models(pairs: list[str] | None) -> dict[str, str]:
    """``role=provider:model`` pairs (the value is taken as written, never JSON-decoded)."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        role, sep, spec = pair.partition("=")
        if not sep or not role or not spec:
            raise InputError(f"bad model {pair!r}: write role=provider:model, e.g. judge=openai:gpt-4o-mini")
        out[role] = spec
    return out


def _agent(name: str, llm: str | None, option: list[str] | None, db: str | None,
           model: list[str] | None = None, tables: list[str] | None = None) -> Agent:
    options = parse_pairs(option)
    if db is not None:
        options["db"] = db
    if tables:
        options["tables"] = list(tables)
    return load(name, llm, models=parse_models(model), **options)


@app.command("agents")
def agents_cmd(
    as_json: JsonOpt = False,
    names: Annotated[bool, typer.Option("--names", help="one name per line (for scripts)")] = False,
    evaluable: Annotated[bool, typer.Option("--evaluable", help="only agents with an evaluation")] = False,
) -> None:
    """List the registered agents."""
    specs = sorted(all_specs().values(), key=lambda s: s.name)
    if evaluable:
        specs = [s for s in specs if s.evaluation is not None]
    if names:
        for s in specs:
            print(s.name)
        return
    if as_json:
        print(json.dumps([{"name": s.name, "title": s.title, "description": s.description,
                           "options": s.options_help, "session_options": s.session_options_help} for s in specs],
                         ensure_ascii=False))
        return
    from rich.table import Table

    table = Table("name", "title", "description")
    for s in specs:
        table.add_row(s.name, s.title, s.description)
    console.print(table)


@app.command()
def ask(
    agent: Annotated[str, typer.Argument(help="agent name")],
    text: Annotated[str, typer.Argument(help="the message")],
    llm: LlmOpt = None,
    as_json: JsonOpt = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="also show decisions, reasoning and tool results")
    ] = False,
    option: OptionOpt = None,
    db: DbOpt = None,
    table: TableOpt = None,
    session: Annotated[str | None, typer.Option(help="session id to continue")] = None,
    model: ModelOpt = None,
    user: UserOpt = "anonymous",
) -> None:
    """One turn: print the answer (reply, SQL, table), or JSON with state, artifacts, usage and events."""
    ag = _agent(agent, llm, option, db, model, table)
    s = ag.session(session, user_id=user)
    if as_json:
        print(json.dumps({"session_id": s.id, **reply_json(s.send(text))}, ensure_ascii=False))
        return
    render = LiveRenderer(verbose=verbose)
    for event in s.stream(text):
        render(event)
    err_console.print(f"session {s.id} (continue with --session {s.id})", style="dim", highlight=False,
                      markup=False)


def reply_json(reply: Any) -> dict[str, Any]:
    """A turn as JSON, the reply under ``reply`` (the key ``chat --json`` uses too)."""
    data = reply.to_dict()
    return {"reply": data.pop("text"), **data}


def _turn_json(s: Session, text: str) -> dict[str, Any]:
    reply = s.send(text)
    errors = [e.to_dict()["message"] for e in reply.events if e.type == "error"]
    lifted = {k: reply.state.get(k) for k in s.agent.spec.chat_fields}
    data = reply.to_dict()
    return {"session_id": s.id, "user": text, "reply": reply.text, **lifted, "done": reply.done,
            "state": reply.state, "errors": errors, "questions": data["questions"], "artifacts": data["artifacts"],
            "usage": data["usage"]}


@app.command()
def chat(
    agent: Annotated[str, typer.Argument(help="agent name")],
    session: Annotated[str | None, typer.Option(help="session id to resume (created if new)")] = None,
    script: Annotated[Path | None, typer.Option(help="file with one user line per line (non-interactive)")] = None,
    llm: LlmOpt = None,
    as_json: JsonOpt = False,
    option: OptionOpt = None,
    db: DbOpt = None,
    table: TableOpt = None,
    session_option: Annotated[
        list[str] | None, typer.Option("--session-option", "-s", help="session option key=value")
    ] = None,
    model: ModelOpt = None,
    user: UserOpt = "anonymous",
) -> None:
    """Talk to an agent: interactively, or line by line from --script."""
    ag = _agent(agent, llm, option, db, model, table)
    s = ag.session(session, user_id=user, **parse_pairs(session_option))
    if script is not None:
        try:
            lines = [ln.strip() for ln in script.read_text(encoding="utf-8").splitlines()]
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or exc
            raise InputError(f"cannot read script {str(script)!r}: {reason}") from None
        for line in (ln for ln in lines if ln and not ln.startswith("#")):
            _chat_turn(s, line, as_json, echo=True)  # nobody typed it: show what was said
        return
    if not as_json:
        console.print(f"[dim]session {s.id} · Ctrl-D or /quit to leave[/dim]")
        for i, question in enumerate(s.questions):
            console.print(question.text, style="bold" if i == 0 else "dim", markup=False, highlight=False)
    typed = sys.stdin.isatty()  # a terminal shows what was typed; piped lines are echoed once, by us
    while True:
        try:
            line = input("> " if typed else "")
        except EOFError:
            break
        if line.strip() in {"/quit", "/exit"}:
            break
        if not line.strip():
            continue
        try:
            _chat_turn(s, line, as_json, echo=not typed)
        except InputError as exc:
            err_console.print(f"error: {exc}", soft_wrap=True, markup=False)


def _chat_turn(s: Session, line: str, as_json: bool, *, echo: bool) -> None:
    if as_json:
        print(json.dumps(_turn_json(s, line), ensure_ascii=False), flush=True)
        return
    if echo:
        console.print(f"> {line}", style="cyan", markup=False, highlight=False)
    render = LiveRenderer(verbose=False)
    for event in s.stream(line):
        render(event)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="bind address (default: settings)")] = None,
    port: Annotated[int | None, typer.Option(help="port (default: settings)")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="agent.key=value option for one agent")
    ] = None,
    llm: LlmOpt = None,
    model: ModelOpt = None,
    insecure: Annotated[
        bool, typer.Option("--insecure", help="serve without authentication on a non-loopback address")
    ] = False,
    workers: Annotated[
        int, typer.Option("--workers", min=1, max=64,
                          help="server processes on one port (share a Postgres checkpointer and Redis; see docs)")
    ] = 1,
) -> None:
    """Start the HTTP API and the web page."""
    import os

    import uvicorn

    from .._options import validate_options
    from ..llm import load_chat_model
    from ..registry import get_spec
    from ..server import create_app

    settings = get_settings()
    if llm is not None:
        load_chat_model(llm)  # fail now, with one line, rather than on the first request
        settings = settings.model_copy(update={"llm": llm})
    models = parse_models(model)
    for spec in models.values():
        load_chat_model(spec)
    if models:
        settings = settings.model_copy(update={"models": {**settings.models, **models}})
    agent_options: dict[str, dict[str, Any]] = {}
    for key, value in parse_pairs(option).items():
        agent_name, dot, opt = key.partition(".")
        if not dot:
            raise InputError(f"bad server option {key!r}: write agent.key=value")
        agent_options.setdefault(agent_name, {})[opt] = value
    for agent_name, opts in agent_options.items():
        validate_options(get_spec(agent_name).options_model, opts, agent=agent_name, session=False)
    h, p = host or settings.host, port or settings.port
    check_exposure(h, insecure)
    if insecure:  # the app trusts X-User-Id from other machines only when told so (its workers read this too)
        from ..auth.settings import get_auth_settings

        os.environ["GRAPHAGENTS_INSECURE"] = "true"
        get_auth_settings.cache_clear()
    check_port_free(h, p)
    if workers == 1:
        err_console.print(f"graphagents on http://{h}:{p}  (LLM: {settings.llm})")
        uvicorn.run(create_app(settings, agent_options, own_loop=True), host=h, port=p, log_level="warning")
        return
    from ..server.worker import CONFIG_VAR, serve_config

    update = {"llm": settings.llm, "models": settings.models}
    os.environ[CONFIG_VAR] = serve_config(update, agent_options)  # the spawned workers read it
    err_console.print(f"graphagents on http://{h}:{p}  ({workers} workers, LLM: {settings.llm}, "
                      f"checkpoints: {_describe_store(settings.resolved_checkpoint_url)})")
    # A worker busy loading the Korean analyser or building agents on a loaded machine answers the
    # supervisor's ping late; uvicorn's 5 s default restarted such workers in a loop.
    uvicorn.run("graphagents.server.worker:create_worker_app", factory=True, host=h, port=p, workers=workers,
                log_level="warning", timeout_worker_healthcheck=120)


def _describe_store(url: str) -> str:
    from ..errors import redact_url

    return redact_url(url) if "://" in url and not url.startswith("sqlite") else url


def check_exposure(host: str, insecure: bool) -> None:
    """Refuse to serve everyone's sessions to the network: auth off is for 127.0.0.1."""
    from ..auth.settings import get_auth_settings, is_loopback

    if not is_loopback(host) and not get_auth_settings().auth and not insecure:
        raise UsageError(f"refusing to serve on {host} without authentication: anyone who can reach it could read "
                         "every session; set GRAPHAGENTS_AUTH=on (keys: `graphagents keys create`) or pass --insecure")


@app.command()
def doctor() -> None:
    """Print the resolved settings and check every configured service."""
    if run_doctor():
        raise typer.Exit(1)


@app.command()
def demo(llm: LlmOpt = None) -> None:
    """Run every registered agent's samples and print a short table."""
    from rich.table import Table

    table = Table("agent", "sample", "turns", "last reply", "events", "seconds")
    failures = 0
    for spec in sorted(all_specs().values(), key=lambda s: s.name):
        ag = load(spec.name, llm)
        for sample in spec.samples:
            start = time.perf_counter()
            s = ag.session()
            replies = [s.send(turn) for turn in sample]
            seconds = time.perf_counter() - start
            errors = sum(1 for r in replies for e in r.events if e.type == "error")
            failures += errors
            last = replies[-1].text.replace("\n", " ")
            table.add_row(spec.name, sample[0][:40], str(len(sample)), last[:70] + ("…" if len(last) > 70 else ""),
                          f"{sum(len(r.events) for r in replies)}" + (f" ({errors} errors)" if errors else ""),
                          f"{seconds:.2f}")
    console.print(table)
    if failures:
        raise typer.Exit(1)


def _mount_agent_commands() -> None:
    from ..evals.cli import broken_eval_command, compare_command, eval_command

    mounted = {c.name for c in eval_app.registered_commands}
    if "compare" not in mounted:
        eval_app.command("compare")(compare_command)
    for spec in all_specs().values():
        if spec.cli is not None:
            app.add_typer(spec.cli(), name=spec.name, help=f"{spec.title}: agent-specific commands")
        if spec.evaluation is not None and spec.name not in mounted and spec.name != "compare":
            try:
                command = eval_command(spec.evaluation())
            except Exception as exc:  # one broken plugin's evaluation must not take down the CLI
                command = broken_eval_command(spec.name, f"{type(exc).__name__}: {exc}")
            eval_app.command(spec.name)(command)


def main() -> None:
    try:
        _mount_agent_commands()
        code = app(standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except GraphAgentsError as exc:
        err_console.print(f"error: {exc}", highlight=False, markup=False, soft_wrap=True)
        sys.exit(2 if isinstance(exc, InputError) else 1)
    except KeyboardInterrupt:
        sys.exit(130)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(1)
    except Exception as exc:
        import click
        from pydantic import ValidationError

        if isinstance(exc, click.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        if isinstance(exc, ValidationError) and exc.title == "Settings":
            first = exc.errors()[0]
            name = "GRAPHAGENTS_" + ".".join(str(p) for p in first["loc"]).upper()
            err_console.print(f"error: setting {name}: {first['msg']}", highlight=False, markup=False, soft_wrap=True)
            sys.exit(2)
        err_console.print(f"error: {type(exc).__name__}: {exc}", highlight=False, markup=False, soft_wrap=True)
        sys.exit(1)
