"""The local model's speed on this machine: prompt and generation tokens/s, raw llama.cpp vs our LangChain path.

llama-cpp-python ships no ``llama-bench``, so the baseline is llama.cpp itself, measured in the
same process on the same loaded model: ``Llama.create_completion`` (what ``Llama.__call__`` runs)
on the same prompt tokens, timed by llama.cpp's own counters (``llama_perf_context``: prompt-eval
and eval milliseconds and token counts) and by the wall clock. Then the same request through
``LocalChatModel.invoke`` (chat template, tokenizing, LangChain callbacks, usage): the ratio says
what our path costs on top of llama.cpp. Each run starts from an empty KV cache; a last run sends
the same system prompt with another question, to show llama.cpp's prefix reuse; the last runs
decode under a JSON-schema grammar (what every JSON decision point does), to show its cost per token.

    .venv/bin/python bench/local_llm.py [--gen 48] [--repeat 2] [--threads 0] [--model PATH]

Without the ``local`` extra it says so and exits 0 (``make bench`` runs every script). Report the
machine's load with the figures: ``uptime`` is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

SYSTEM = (
    "당신은 쇼핑몰 데이터베이스의 SQL 도우미입니다. 테이블: customers(id, name, region, joined_at), "
    "orders(id, customer_id, ordered_at, status, amount), order_items(order_id, product_id, qty, price), "
    "products(id, name, category, price). 상태 값은 'paid', 'shipped', 'cancelled', 'refunded' 입니다. "
    "You answer with one PostgreSQL SELECT statement and nothing else. Use explicit JOINs, qualify every "
    "column with its table, and never modify data. " * 3
)
QUESTIONS = ("지역별 매출 상위 5개 지역을 보여줘", "How many orders were cancelled in 2024?")


def _load() -> tuple[Any, Any]:
    from graphagents.llm.local import LocalChatModel, runtime_available
    from graphagents.llm.local_files import ensure_bundled_model

    if not runtime_available():
        raise SystemExit("skipped: llama-cpp-python is not installed (pip install -e '.[local]')")
    return LocalChatModel, ensure_bundled_model


def _perf(llama: Any) -> tuple[float, int, float, int]:
    import llama_cpp

    data = llama_cpp.llama_perf_context(llama.ctx)
    return data.t_p_eval_ms, data.n_p_eval, data.t_eval_ms, data.n_eval


def _delta(before: tuple[float, int, float, int], after: tuple[float, int, float, int]) -> dict[str, float]:
    return {"pp_ms": after[0] - before[0], "pp_n": after[1] - before[1],
            "tg_ms": after[2] - before[2], "tg_n": after[3] - before[3]}


def raw_run(llama: Any, tokens: list[int], gen: int) -> dict[str, float]:
    llama.reset()  # empty KV cache: the whole prompt is evaluated
    before, t0 = _perf(llama), time.perf_counter()
    out = llama.create_completion(prompt=tokens, max_tokens=gen, temperature=0.0, repeat_penalty=1.0, seed=0)
    wall = time.perf_counter() - t0
    return {**_delta(before, _perf(llama)), "wall": wall, "out": out["usage"]["completion_tokens"]}


GRAMMAR_SCHEMA = {"type": "object", "properties": {
    "sql": {"type": "string"}, "tables": {"type": "array", "items": {"type": "string"}},
    "confidence": {"type": "number"}}, "required": ["sql", "tables", "confidence"]}


def chain_run(model: Any, llama: Any, question: str, gen: int, *, reset: bool = True,
              schema: dict[str, Any] | None = None) -> dict[str, float]:
    from langchain_core.messages import HumanMessage, SystemMessage

    if reset:
        llama.reset()
    runnable = model.bind_json_schema(schema) if schema is not None else model
    before, t0 = _perf(llama), time.perf_counter()
    reply = runnable.invoke([SystemMessage(SYSTEM), HumanMessage(question)], max_tokens=gen)
    wall = time.perf_counter() - t0
    usage = reply.usage_metadata or {}
    return {**_delta(before, _perf(llama)), "wall": wall, "out": usage.get("output_tokens", 0),
            "prompt": usage.get("input_tokens", 0)}


def rate(n: float, ms: float) -> float:
    return n / (ms / 1000) if ms > 0 else 0.0


def uptime() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gen", type=int, default=48, help="tokens to generate per run")
    parser.add_argument("--repeat", type=int, default=2, help="runs per path (median reported)")
    parser.add_argument("--threads", type=int, default=0, help="llama.cpp threads (0 = one per core)")
    parser.add_argument("--model", default="", help="a GGUF file (default: the bundled model)")
    args = parser.parse_args()
    try:
        model_cls, ensure = _load()
        path = Path(args.model) if args.model else ensure(Path(os.environ.get("GRAPHAGENTS_DATA_DIR", ".graphagents")))
    except SystemExit as stop:
        print(stop)
        return
    except Exception as exc:  # parts missing, file refused: one line, not a failed `make bench`
        print(f"skipped: {exc}")
        return
    print(f"load average before: {uptime()}  cores: {os.cpu_count()}  model: {path.name}")
    model = model_cls(model_path=str(path), threads=args.threads, max_tokens=args.gen)
    t0 = time.perf_counter()
    rt = model.runtime()
    print(f"model load: {time.perf_counter() - t0:.2f} s (memory-mapped), threads={rt.llama.n_threads}")
    chat = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTIONS[0]}]
    formatted = rt.formatter(messages=chat)
    tokens = rt.llama.tokenize(formatted.prompt.encode(), add_bos=not formatted.added_special, special=True)
    print(f"prompt: {len(tokens)} tokens, generate up to {args.gen}")

    warm = raw_run(rt.llama, tokens, 4)  # first touch of the mapped weights: paid once, measured by neither
    print(f"warm-up (weights paged in): {warm['wall']:.2f} s")
    raw: list[dict[str, float]] = []
    ours: list[dict[str, float]] = []
    for _ in range(args.repeat):  # interleaved: a change in the machine's load hits both paths alike
        raw.append(raw_run(rt.llama, tokens, args.gen))
        ours.append(chain_run(model, rt.llama, QUESTIONS[0], args.gen))
    prefix = chain_run(model, rt.llama, QUESTIONS[1], args.gen, reset=False)
    constrained = [chain_run(model, rt.llama, QUESTIONS[0], args.gen, schema=GRAMMAR_SCHEMA)
                   for _ in range(args.repeat)]

    def med(runs: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in runs)

    print(f"{'path':<34}{'prompt tok/s':>13}{'gen tok/s':>11}{'wall s':>9}{'out tok':>9}")
    for name, runs in (("llama.cpp create_completion (raw)", raw), ("LocalChatModel.invoke (LangChain)", ours),
                       ("  same, JSON-schema grammar", constrained)):
        pp = statistics.median(rate(r["pp_n"], r["pp_ms"]) for r in runs)
        tg = statistics.median(rate(r["tg_n"], r["tg_ms"]) for r in runs)
        print(f"{name:<34}{pp:>13.1f}{tg:>11.2f}{med(runs, 'wall'):>9.2f}{med(runs, 'out'):>9.0f}")
    same = all(r["out"] == raw[0]["out"] for r in raw + ours)
    print(f"ratio LangChain/raw wall time: {med(ours, 'wall') / med(raw, 'wall'):.3f} "
          f"(same output length on every run: {same}); usage counted {ours[0]['prompt']} prompt tokens "
          f"vs {len(tokens)} sent")
    print(f"prefix reuse: a second question after the same system prompt evaluated {prefix['pp_n']:.0f} prompt "
          f"tokens of {prefix['prompt']} ({prefix['wall']:.2f} s wall vs {med(ours, 'wall'):.2f} s from empty)")
    print(f"load average after: {uptime()}")


if __name__ == "__main__":
    sys.exit(main())
