"""The real-model path under faults, with the real ``langchain-openai`` client against the scripted
OpenAI-compatible server (``graphagents.testing.openai_server``), in one process:

* stall     -- a provider that sleeps ``--stall`` s on a JSON decision: time until the decision point
               has its fallback, against a clean answer (before issue 24 the client had no timeout:
               the call waited the whole stall)
* sampling  -- ``--samples`` planner answers: requests and prompt tokens sent with ``n`` (one request)
               against N identical requests (the old way, the baseline)
* usage     -- a streamed answer: the tokens the turn's usage counts with ``stream_options.include_usage``
               against the client without it (the old openai-compatible default)

    .venv/bin/python bench/model_faults.py [--stall 20] [--timeout 1] [--retries 1] [--samples 5]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from langchain_core.messages import HumanMessage

from graphagents.llm import ask_json, load_chat_model, override_allow_model_requests
from graphagents.llm.answer import sample_texts
from graphagents.settings import Settings
from graphagents.testing.openai_server import OpenAIServer, Reply
from graphagents.usage import UsageRecorder

PROMPT = "Decide the next step and answer with JSON: " + "context " * 300


def stall(args: argparse.Namespace) -> None:
    settings = Settings(llm_timeout_seconds=args.timeout, llm_max_retries=args.retries)
    with OpenAIServer(lambda body: '{"action": "continue"}') as clean:
        model = load_chat_model(clean.model_spec, settings=settings)
        started = time.perf_counter()
        ask_json(model, PROMPT, dict, None)
        clean_s = time.perf_counter() - started
    with OpenAIServer(lambda body: Reply(fault="stall", delay=args.stall, text="{}")) as slow:
        model = load_chat_model(slow.model_spec, settings=settings)
        started = time.perf_counter()
        got = ask_json(model, PROMPT, dict, "fallback")
        fallback_s = time.perf_counter() - started
        attempts = len(slow.requests)
    print(f"stall: clean answer {clean_s * 1000:.0f} ms; stalled provider ({args.stall:.0f} s) -> {got!r} after "
          f"{fallback_s:.2f} s ({attempts} attempts, timeout {args.timeout} s, {args.retries} retries); "
          f"before: {args.stall:.0f} s or more. ratio fallback/stall = {fallback_s / args.stall:.3f}")


def sampling(args: argparse.Namespace) -> None:
    def script(body: dict[str, Any]) -> Reply:
        return Reply(choices=["Thought: x\nAction: Finish[1]"] * int(body.get("n") or 1))

    messages = [HumanMessage(PROMPT)]
    with OpenAIServer(script) as server:
        model = load_chat_model(server.model_spec, settings=Settings())
        old = UsageRecorder()
        for _ in range(args.samples):  # the old way: N identical requests
            model.invoke(messages, config={"callbacks": [old]})
        baseline = len(server.requests)
        new = UsageRecorder()
        texts = sample_texts(model, messages, args.samples, config={"callbacks": [new]})
        with_n = len(server.requests) - baseline
    print(f"sampling {args.samples}: {len(texts)} answers from {with_n} request(s), {new.input_tokens} prompt "
          f"tokens; baseline {baseline} requests, {old.input_tokens} prompt tokens. ratio requests = "
          f"{with_n / baseline:.2f}, prompt tokens = {new.input_tokens / max(1, old.input_tokens):.2f}")


def usage(args: argparse.Namespace) -> None:
    text = "a streamed answer " * 50
    with OpenAIServer(lambda body: Reply(text=text, chunk_chars=16)) as server:
        counted = {}
        for label, options in (("without include_usage", {"stream_usage": False}), ("with include_usage", {})):
            model = load_chat_model(server.model_spec, settings=Settings(), **options)
            recorder = UsageRecorder()
            for _ in model.stream("hello " * 200, config={"callbacks": [recorder]}):
                pass
            counted[label] = recorder.input_tokens + recorder.output_tokens
    sent = counted["with include_usage"]
    print(f"usage of a streamed call: counted {counted['without include_usage']} tokens without include_usage "
          f"(the old client), {sent} with it; ratio = {counted['without include_usage'] / max(1, sent):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--stall", type=float, default=20.0)
    parser.add_argument("--timeout", type=float, default=1.0)
    parser.add_argument("--retries", type=int, default=1)
    parser.add_argument("--samples", type=int, default=5)
    args = parser.parse_args()
    with override_allow_model_requests(True):
        stall(args)
        sampling(args)
        usage(args)


if __name__ == "__main__":
    main()
