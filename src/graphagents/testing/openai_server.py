"""A scripted OpenAI-compatible HTTP server, for tests of the real-model path under faults.

The real ``langchain-openai`` client talks to it over real HTTP (``openai-compatible:<url>#<model>``),
so timeouts, retries, ``Retry-After``, streaming and usage are the client's own behaviour, not a
fake's. Each request to ``/v1/chat/completions`` takes the next :class:`Reply` of the script (or asks
a function of the request body for one) and answers it, or injects its fault:

- ``stall``: sleep ``delay`` seconds before answering (a hung provider);
- ``drop``: start the response, then close the connection mid-body;
- ``status``: an HTTP error (429 with ``Retry-After``, 500 ...) with an OpenAI error body;
- ``garbage``: a 200 whose body is not JSON at all.

Ordinary text (trailing-comma JSON, an empty answer, prose) is just a reply's ``text``; a reply with
``tool_calls`` answers with an assistant tool call. ``n`` > 1 requests get that many choices (the
reply's ``choices`` texts, else ``text`` repeated). Usage is reported on every non-streamed answer,
and on a streamed one when the request asks for it (``stream_options.include_usage``), as OpenAI does.

    with OpenAIServer(["hello", Reply(status=500), Reply(text="{}")]) as server:
        model = load_chat_model(server.model_spec)
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["OpenAIServer", "Reply"]


@dataclass
class Reply:
    text: str = ""
    tool_calls: list[dict[str, Any]] | None = None
    """``[{"name": "lookup", "arguments": {...}}]``: the answer is an assistant tool call."""
    choices: Sequence[str] | None = None
    """Texts of the ``n`` choices (a request with ``n`` > 1); ``text`` repeated when unset."""
    fault: str | None = None
    """``stall``, ``drop`` or ``garbage`` (``status`` alone makes an HTTP error)."""
    delay: float = 0.0
    """Seconds to wait before answering (``stall`` uses it; any reply may)."""
    status: int = 200
    retry_after: float | None = None
    """Seconds in the ``Retry-After`` header of an error reply."""
    chunk_chars: int = 4
    """Characters per streamed delta."""
    chunk_delay: float = 0.0
    """Seconds between streamed deltas (a slow provider, to watch an answer arrive)."""


Script = Sequence["Reply | str"] | Callable[[dict[str, Any]], "Reply | str"]


def _tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


@dataclass
class _Log:
    requests: list[dict[str, Any]] = field(default_factory=list)
    answered: list[Reply] = field(default_factory=list)


class OpenAIServer:
    """``/v1/chat/completions`` on 127.0.0.1 (a free port), in a thread; a context manager.

    ``requests`` holds every request body received (retries included), in order."""

    def __init__(self, script: Script, *, model: str = "scripted") -> None:
        self._script = script
        self._position = 0
        self._lock = threading.Lock()
        self._log = _Log()
        self.model = model
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # -- lifecycle ---------------------------------------------------------------------------------

    def __enter__(self) -> OpenAIServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        import uvicorn

        config = uvicorn.Config(self._app, host="127.0.0.1", port=0, log_level="critical", lifespan="off",
                                loop="asyncio", http="h11", interface="asgi3", timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="openai-scripted-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the scripted OpenAI server did not start")
            time.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            self._server.force_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def model_spec(self) -> str:
        """The ``GRAPHAGENTS_LLM`` value that points the factory's openai-compatible client here."""
        return f"openai-compatible:{self.url}#{self.model}"

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._log.requests)

    @property
    def remaining(self) -> int:
        """Scripted replies not yet used (a list script)."""
        if callable(self._script):
            return 0
        with self._lock:
            return len(self._script) - self._position

    # -- the script --------------------------------------------------------------------------------

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self._log.requests.append(body)
            if callable(self._script):
                got: Reply | str = self._script(body)
            elif self._position < len(self._script):
                got = self._script[self._position]
                self._position += 1
            else:
                got = Reply(status=500, text="the script is exhausted")
            reply = Reply(text=got) if isinstance(got, str) else got
            self._log.answered.append(reply)
            return reply

    # -- ASGI --------------------------------------------------------------------------------------

    async def _app(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope["type"] != "http":
            return
        raw = b""
        while True:
            message = await receive()
            raw += message.get("body", b"")
            if not message.get("more_body"):
                break
        if scope["path"].rstrip("/") != "/v1/chat/completions":
            await _send(send, 404, {"error": {"message": "not found", "type": "invalid_request_error"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            await _send(send, 400, {"error": {"message": "bad json", "type": "invalid_request_error"}})
            return
        reply = self._next(body)
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.status != 200:
            headers = [] if reply.retry_after is None else [(b"retry-after", str(reply.retry_after).encode())]
            error = {"error": {"message": reply.text or f"scripted error {reply.status}", "type": "server_error",
                               "code": None}}
            await _send(send, reply.status, error, headers)
            return
        if reply.fault == "garbage":
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": b"<html>bad gateway</html>"})
            return
        if reply.fault == "drop":
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", b"4096")]})
            await send({"type": "http.response.body", "body": b'{"id": "chatcmpl-', "more_body": True})
            raise ConnectionAbortedError("scripted drop")  # uvicorn closes the connection mid-body
        prompt_tokens = sum(_tokens(str(m.get("content") or "")) for m in body.get("messages", []))
        n = int(body.get("n") or 1)
        texts = list(reply.choices) if reply.choices else [reply.text] * n
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            await self._stream(send, reply, texts, prompt_tokens, include_usage)
        else:
            await _send(send, 200, self._completion(reply, texts, prompt_tokens))

    def _completion(self, reply: Reply, texts: list[str], prompt_tokens: int) -> dict[str, Any]:
        choices = []
        for i, text in enumerate(texts):
            message: dict[str, Any] = {"role": "assistant", "content": text}
            finish = "stop"
            if reply.tool_calls:
                message["tool_calls"] = _tool_calls(reply.tool_calls)
                message["content"] = text or None
                finish = "tool_calls"
            choices.append({"index": i, "message": message, "finish_reason": finish, "logprobs": None})
        completion_tokens = sum(_tokens(t) for t in texts) + (8 if reply.tool_calls else 0)
        return {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion", "created": int(time.time()),
                "model": self.model, "choices": choices,
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens}}

    async def _stream(self, send: Callable[..., Any], reply: Reply, texts: list[str], prompt_tokens: int,
                      include_usage: bool) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]})
        cid = f"chatcmpl-{uuid.uuid4().hex[:12]}"

        async def chunk(choices: list[dict[str, Any]], usage: dict[str, Any] | None = None) -> None:
            data: dict[str, Any] = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
                                    "model": self.model, "choices": choices}
            if usage is not None:
                data["usage"] = usage
            await send({"type": "http.response.body", "body": f"data: {json.dumps(data)}\n\n".encode(),
                        "more_body": True})

        for i, text in enumerate(texts):
            await chunk([{"index": i, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
            step = max(1, reply.chunk_chars)
            for start in range(0, len(text), step):
                await chunk([{"index": i, "delta": {"content": text[start:start + step]}, "finish_reason": None}])
                if reply.chunk_delay:
                    await asyncio.sleep(reply.chunk_delay)
            if reply.tool_calls:
                calls = _tool_calls(reply.tool_calls)
                for k, call in enumerate(calls):
                    await chunk([{"index": i, "delta": {"tool_calls": [{"index": k, **call}]}, "finish_reason": None}])
            await chunk([{"index": i, "delta": {}, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}])
        if include_usage:
            completion_tokens = sum(_tokens(t) for t in texts)
            await chunk([], {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                             "total_tokens": prompt_tokens + completion_tokens})
        await send({"type": "http.response.body", "body": b"data: [DONE]\n\n", "more_body": False})


def _tool_calls(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"id": f"call_{i}_{uuid.uuid4().hex[:6]}", "type": "function",
             "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}), ensure_ascii=False)}}
            for i, c in enumerate(calls)]


async def _send(send: Callable[..., Any], status: int, payload: dict[str, Any],
                headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps(payload, ensure_ascii=False).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})
