"""Validating agent and session options against the spec's pydantic models, with one-line errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from .errors import ConfigError, InputError


def validate_options(
    model: type[BaseModel] | None, values: Mapping[str, Any], *, agent: str, session: bool
) -> tuple[dict[str, Any], BaseModel | None]:
    """``(every option with its default, the model instance)``; ConfigError (agent options) or
    InputError (session options: they come with a request) naming the option and the fix."""
    error = InputError if session else ConfigError
    if model is None:
        if values:
            what = "sessions take no option" if session else "has no option"
            raise error(f"agent {agent!r} {what} {sorted(values)[0]!r}; options: none")
        return {}, None
    try:
        parsed = model.model_validate(dict(values))
    except ValidationError as exc:
        raise error(_one_line(exc, model, agent=agent, session=session)) from None
    return parsed.model_dump(), parsed


def _one_line(exc: ValidationError, model: type[BaseModel], *, agent: str, session: bool) -> str:
    first = exc.errors()[0]
    loc = str(first["loc"][0]) if first.get("loc") else ""
    kind = "session option" if session else "option"
    if first.get("type") == "extra_forbidden":
        allowed = ", ".join(sorted(model.model_fields)) or "none"
        what = "sessions take no option" if session else "has no option"
        return f"agent {agent!r} {what} {loc!r}; options: {allowed}"
    msg = " ".join(str(first.get("msg", "invalid value")).split())
    if not loc:  # a check across several options (a model validator)
        return f"agent {agent!r} {kind}s: {msg}"
    return f"agent {agent!r} {kind} {loc!r}: {msg}"


def describe(model: type[BaseModel] | None) -> dict[str, str]:
    """``{option: description}`` for help texts."""
    if model is None:
        return {}
    return {name: f.description or "" for name, f in model.model_fields.items()}


def json_schema(model: type[BaseModel] | None) -> dict[str, Any]:
    """The model's JSON schema (what the web page builds its options form from); an empty object
    schema that admits nothing when the agent takes no options."""
    if model is None:
        return {"type": "object", "properties": {}, "additionalProperties": False}
    return model.model_json_schema()
