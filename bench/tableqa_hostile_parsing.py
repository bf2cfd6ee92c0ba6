"""tableqa's planner and coder parsers on hostile whitespace: before (quadratic) vs now (linear + cap).

Issue 26, item 1: ``parse_action`` ran ``^\\s*\\**\\s*action...`` over the whole planner reply
(4,000 spaces: 2.4 s, 16,000: 34.9 s, holding the GIL), and the coder's fence pattern went
quadratic on an unclosed fence over blank lines. The pre-fix parsers are kept below verbatim as the
baseline, measured in the same process; each line prints both times, how each grows when the input
doubles (2x = linear, 4x = quadratic) and the speed-up. A reply over ``MAX_PLANNER_CHARS`` is now
refused before parsing; the sizes of the "now" column go up to 1 MB to show that refusal costs
nothing, and the baseline stops where it would take minutes.

    .venv/bin/python bench/tableqa_hostile_parsing.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from collections.abc import Callable
from pathlib import Path

from graphagents.agents.tableqa.actions import MAX_PLANNER_CHARS, ActionParseError, parse_action
from graphagents.agents.tableqa.coder import extract_code

sys.path.insert(0, str(Path(__file__).parent))
from bench_util import table  # noqa: E402

# ------------------------------------------------------------------ baselines (the pre-fix code)
_B_ACTION = re.compile(r"^\s*\**\s*action\s*\d*\s*\**\s*:\s*\**\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_B_THOUGHT = re.compile(r"^\s*\**\s*thought\s*\d*\s*\**\s*:\s*\**\s*(.*)$", re.IGNORECASE | re.MULTILINE)
_B_CALL = re.compile(r"^\s*`?\s*(\w+)\s*\[(.*)\]\s*`?\s*\.?\s*$", re.DOTALL)
_B_FENCE = re.compile(r"```(?:python|py)?\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)


def baseline_parse_action(text: str) -> tuple[str, str] | None:
    thoughts = _B_THOUGHT.findall(text)
    _ = thoughts[-1].strip() if thoughts else ""
    candidates = [m.group(1) for m in _B_ACTION.finditer(text)]
    if not candidates:
        candidates = [line for line in text.splitlines() if _B_CALL.match(line)]
    for raw in reversed(candidates):
        match = _B_CALL.match(raw.strip())
        if match:
            return match.group(1), match.group(2)
    return None


def baseline_extract_code(text: str) -> str:
    blocks = _B_FENCE.findall(text or "")
    if blocks:
        return str(blocks[-1]).strip()
    return text.strip()


# ------------------------------------------------------------------ inputs and runs
def spaces(n: int) -> str:
    return " " * n + "x\nAction: Finish[1]"


def tab_lines(n: int) -> str:
    return ("\t" * 5000 + "\n") * max(1, n // 5001) + "Action: Finish[1]"


def open_fence(n: int) -> str:
    return "```python" + "\n" * n + "new_table = df"


def run_parse(fn: Callable[[str], object], text: str) -> None:
    with contextlib.suppress(ActionParseError):  # over the cap: refused, and the time to say so counts
        fn(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller baseline inputs (a few seconds)")
    args = parser.parse_args()
    k = 2 if args.quick else 1
    now_sizes = [1000 * 2**i for i in range(11)]  # to 1 MB
    print(f"planner/coder reply cap: MAX_PLANNER_CHARS = {MAX_PLANNER_CHARS:,} characters")
    table("parse_action(' ' * n + 'x\\nAction: Finish[1]')", [1000 // k, 2000 // k, 4000 // k], now_sizes,
          lambda n: run_parse(baseline_parse_action, spaces(n)), lambda n: run_parse(parse_action, spaces(n)),
          digits=5)
    table("parse_action(('\\t' * 5000 + '\\n') * k + 'Action: Finish[1]')", [10_002 // k, 20_004 // k], now_sizes,
          lambda n: run_parse(baseline_parse_action, tab_lines(n)), lambda n: run_parse(parse_action, tab_lines(n)),
          digits=5)
    table("extract_code('```python' + '\\n' * n + code)", [2000 // k, 4000 // k, 8000 // k], now_sizes,
          lambda n: baseline_extract_code(open_fence(n)), lambda n: extract_code(open_fence(n)) and None, digits=5)


if __name__ == "__main__":
    main()
