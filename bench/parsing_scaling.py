"""Scaling of the model-output parsers on adversarial input: before (quadratic) vs now (linear).

Issue 8, defect 5: ``extract_json('{' * 8000)`` took 1.4 s and grew 4x per doubling, the XML
partial-parse regex took 9 s on 30 KB of unclosed tags, and the streaming XML extractor re-scanned
its whole buffer per chunk (1 MB in 16-character chunks: 133 s). The pre-fix implementations are
kept below, verbatim in what matters, as the baseline measured in the same process; each line
prints the time of both and how much each grows when the input doubles (2x = linear, 4x =
quadratic). Model output is also capped at ``MAX_OUTPUT_CHARS`` now; the sizes here go past it
on purpose, to show the parsers themselves are linear.

    .venv/bin/python bench/parsing_scaling.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphagents.llm import MAX_OUTPUT_CHARS, StreamingXmlSectionsExtractor, extract_json
from graphagents.llm.xml_protocol import XmlProtocolError, partial_parse

sys.path.insert(0, str(Path(__file__).parent))
from bench_util import table  # noqa: E402

# ------------------------------------------------------------------ baselines (the pre-fix code)


def baseline_extract_json(text: str) -> Any:
    candidates = [text.strip(), *(m.strip() for m in re.findall(r"```(?:json)?\s*(.*?)```", text, re.S))]
    pairs = sorted(((text.find(o), o, c) for o, c in (("{", "}"), ("[", "]"))), key=lambda p: p[0])
    for start, opener, closer in pairs:
        while start != -1:
            end = _baseline_balanced_end(text, start, opener, closer)
            if end != -1:
                candidates.append(text[start : end + 1])
                break
            start = text.find(opener, start + 1)
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (json.JSONDecodeError, ValueError):
            continue
    raise ValueError("no JSON value found in the answer")


def _baseline_balanced_end(text: str, start: int, opener: str, closer: str) -> int:
    depth, in_str, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return i
    return -1


_B_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.S)


def _baseline_section(text: str, tag: str) -> str | None:
    m = re.search(rf"<{tag}(?:\s[^>]*)?>(.*?)(?:</{tag}>|$)", text, re.S)
    return _B_CDATA.sub(lambda m: m.group(1), m.group(1)).strip() if m else None


def baseline_partial_parse(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {t: _baseline_section(text, t) or "" for t in ("reasoning", "observation", "user_facing")}
    call_m = re.search(r"<tool_call(?P<attrs>[^>]*)>(?P<body>.*?)(?:</tool_call>|$)", text, re.S)
    if call_m:
        body = call_m.group("body")
        params_body = _baseline_section(body, "parameters") or ""
        out["params"] = {pm.group(1): pm.group(2) for pm in re.finditer(r"<([A-Za-z_][\w-]*)>(.*?)</\1>",
                                                                         params_body, re.S)}
    return out


class BaselineExtractor:
    def __init__(self, sections: tuple[str, ...] = ("reasoning", "user_facing")) -> None:
        self.sections, self.buffer, self.emitted = sections, "", dict.fromkeys(sections, 0)

    def feed(self, chunk: str) -> None:
        self.buffer += chunk
        for tag in self.sections:
            start = self.buffer.find(f"<{tag}>")
            if start == -1:
                continue
            start += len(tag) + 2
            end = self.buffer.find(f"</{tag}>", start)
            if end == -1:
                tail = self.buffer.rfind("<", start)
                end = tail if tail != -1 and f"</{tag}>".startswith(self.buffer[tail:]) else len(self.buffer)
            self.emitted[tag] = end - start


# ------------------------------------------------------------------ inputs and runs


def json_input(n: int) -> str:
    return "{" * n


def xml_input(n: int) -> str:
    return "<tool_call><name>x</name><parameters>" + "<p>" * (n // 3)


def stream_input(n: int) -> str:
    return "<response><reasoning>" + "생각 <b> & a < b " * (n // 16) + "</reasoning></response>"


def run_json(fn: Callable[[str], Any], text: str) -> None:
    with contextlib.suppress(ValueError):  # every input here is unusable: the time to say so counts
        fn(text)


def run_xml(fn: Callable[[str], Any], text: str) -> None:
    with contextlib.suppress(XmlProtocolError):
        fn(text)


def run_stream(make: Callable[[], Any], text: str) -> None:
    ex = make()
    for i in range(0, len(text), 16):
        ex.feed(text[i : i + 16])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs (a few seconds)")
    args = parser.parse_args()
    k = 2 if args.quick else 1
    print(f"model output cap: MAX_OUTPUT_CHARS = {MAX_OUTPUT_CHARS:,} characters")
    table("extract_json('{' * n)", [2000 // k, 4000 // k, 8000 // k], [2000 // k * 2**i for i in range(7)],
          lambda n: run_json(baseline_extract_json, json_input(n)), lambda n: run_json(extract_json, json_input(n)))
    table("partial XML parse of unclosed <p> tags", [4000 // k, 8000 // k, 16000 // k],
          [4000 // k * 2**i for i in range(7)],
          lambda n: run_xml(baseline_partial_parse, xml_input(n)), lambda n: run_xml(partial_parse, xml_input(n)))
    table("streaming extractor, 16-character chunks", [32_000 // k, 64_000 // k, 128_000 // k],
          [32_000 // k * 2**i for i in range(6)],
          lambda n: run_stream(BaselineExtractor, stream_input(n)),
          lambda n: run_stream(lambda: StreamingXmlSectionsExtractor(throttle_s=0.0), stream_input(n)))


if __name__ == "__main__":
    main()
