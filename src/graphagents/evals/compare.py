"""``graphagents eval compare A B``: before and after, from two reports.

For each status count and each numeric figure of the two reports: A's value, B's value and the
difference; then the cases (matched by id) whose status changed, and the cases only one report
has. Reports of different agents are refused; different datasets are compared with a warning
(the case-by-case part is then mostly "only in A / only in B").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from .cases import STATUSES
from .report import flat_metrics

__all__ = ["Change", "Comparison", "Row", "compare_reports", "load_report"]


def load_report(path: str | Path) -> dict[str, Any]:
    """A report.json, given as the file or the directory holding it."""
    target = Path(path)
    if target.is_dir():
        target = target / "report.json"
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"no report at {str(path)!r}: give a report directory or its report.json") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read the report {str(target)!r}: {exc}") from None
    if not isinstance(data, dict) or "results" not in data or "agent" not in data:
        raise InputError(f"{str(target)!r} is not an evaluation report (no agent or results)")
    return data


@dataclass(frozen=True)
class Row:
    """One figure before (``a``) and after (``b``); ``delta`` when both are numbers."""

    name: str
    a: Any
    b: Any
    headline: bool = False

    @property
    def delta(self) -> float | None:
        if _number(self.a) and _number(self.b):
            return round(float(self.b) - float(self.a), 6)
        return None


@dataclass(frozen=True)
class Change:
    id: str
    question: str
    a: str
    b: str


@dataclass(frozen=True)
class Comparison:
    agent: str
    a_name: str
    b_name: str
    rows: list[Row]
    changed: list[Change]
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "a": self.a_name, "b": self.b_name, "warnings": self.warnings,
                "figures": [{"name": r.name, "a": r.a, "b": r.b, "delta": r.delta, "headline": r.headline}
                            for r in self.rows],
                "changed": [c.__dict__ for c in self.changed], "only_a": self.only_a, "only_b": self.only_b}

    def to_markdown(self) -> str:
        lines = [f"# {self.agent}: {self.a_name} → {self.b_name}", ""]
        lines += [f"> {w}" for w in self.warnings]
        lines += ["| figure | A | B | Δ |", "| --- | --- | --- | --- |"]
        lines += [f"| {'**' + r.name + '**' if r.headline else r.name} | {_shown(r.a)} | {_shown(r.b)} | "
                  f"{_delta(r.delta)} |" for r in self.rows]
        lines += ["", f"## Cases whose status changed ({len(self.changed)})", ""]
        lines += [f"- `{c.id}` {c.a} → {c.b}: {c.question[:120]}" for c in self.changed] or ["none"]
        if self.only_a or self.only_b:
            lines += ["", f"Only in A: {len(self.only_a)} cases; only in B: {len(self.only_b)} cases."]
        return "\n".join(lines) + "\n"


def compare_reports(a: Mapping[str, Any], b: Mapping[str, Any], a_name: str = "A", b_name: str = "B") -> Comparison:
    if a.get("agent") != b.get("agent"):
        raise InputError(f"the reports are of different agents ({a.get('agent')!r} and {b.get('agent')!r})")
    warnings = []
    for key in ("dataset", "llm"):
        if a.get(key) != b.get(key):
            warnings.append(f"{key} differs: {a.get(key)!r} in A, {b.get(key)!r} in B")
    headline = list(dict.fromkeys([*(a.get("headline") or []), *(b.get("headline") or [])]))
    rows = [Row("n", a.get("n"), b.get("n"))]
    rows += [Row(s, a.get(s, 0), b.get(s, 0), headline=True) for s in STATUSES]
    rows += [Row(f"{s} rate", (a.get("rates") or {}).get(s), (b.get("rates") or {}).get(s)) for s in STATUSES]
    fa, fb = flat_metrics(a.get("metrics") or {}), flat_metrics(b.get("metrics") or {})
    names = [n for n in headline if n in fa or n in fb]
    names += [n for n in dict.fromkeys([*fa, *fb]) if n not in names]
    for name in names:
        va, vb = fa.get(name), fb.get(name)
        if (va is None or _scalar(va)) and (vb is None or _scalar(vb)):
            rows.append(Row(name, va, vb, headline=name in headline))
    for key in ("calls", "tokens", "seconds"):
        rows.append(Row(f"usage.{key}", (a.get("usage") or {}).get(key), (b.get("usage") or {}).get(key)))
    by_a = {str(r.get("id")): r for r in a.get("results") or []}
    by_b = {str(r.get("id")): r for r in b.get("results") or []}
    changed = [Change(i, str(by_b[i].get("question", "")), str(by_a[i].get("status")), str(by_b[i].get("status")))
               for i in by_a if i in by_b and by_a[i].get("status") != by_b[i].get("status")]
    return Comparison(str(a.get("agent")), a_name, b_name, rows, changed,
                      [i for i in by_a if i not in by_b], [i for i in by_b if i not in by_a], warnings)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _scalar(value: Any) -> bool:
    return isinstance(value, int | float | str | bool)


def _shown(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _delta(value: float | None) -> str:
    if value is None:
        return ""
    if value == 0:
        return "0"
    return f"{value:+.4g}"
