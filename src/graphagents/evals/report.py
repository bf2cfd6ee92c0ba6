"""One report shape for every agent: ``report.json`` and ``report.md`` in a directory.

``report.json`` holds ``agent``, ``dataset``, ``llm``, ``n``, the four status counts (``right``,
``partial``, ``declined``, ``wrong``) and their ``rates``, the agent's ``metrics`` (the figures
its issue names, ``headline`` listing the main ones), ``groups`` (statuses per metadata value),
``usage`` (model calls, tokens, seconds) and ``results``: one object per case with ``id``,
``question``, ``status``, ``answer``, ``expected``, ``metrics``, ``seconds``, ``error``.
``report.md`` is the same for people. Figures are never blended into one number.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..usage import UsageSummary
from .cases import STATUSES
from .scoring import CaseResult

__all__ = ["Report", "flat_metrics"]

SHOWN_PER_STATUS = 100
"""Cases listed per status in report.md (report.json has them all)."""


@dataclass
class Report:
    agent: str
    dataset: str
    llm: str
    results: list[CaseResult]
    metrics: Mapping[str, Any] = field(default_factory=dict)
    headline: Sequence[str] = ()
    groups: Sequence[str] = ()
    sources: Sequence[str] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def n(self) -> int:
        return len(self.results)

    def counts(self, results: Sequence[CaseResult] | None = None) -> dict[str, int]:
        chosen = self.results if results is None else results
        return {s: sum(r.status == s for r in chosen) for s in STATUSES}

    def rates(self) -> dict[str, float]:
        return {s: round(c / self.n, 4) if self.n else 0.0 for s, c in self.counts().items()}

    def group_counts(self) -> dict[str, dict[str, dict[str, int]]]:
        out: dict[str, dict[str, dict[str, int]]] = {}
        for key in self.groups:
            values: dict[str, list[CaseResult]] = {}
            for r in self.results:
                if key in r.case.metadata:
                    values.setdefault(str(r.case.metadata[key]), []).append(r)
            if values:
                out[key] = {v: {"n": len(rs), **self.counts(rs)} for v, rs in sorted(values.items())}
        return out

    def usage(self) -> dict[str, Any]:
        summary = UsageSummary().extend(u for r in self.results for u in r.output.usage)
        data = summary.to_dict()
        return {"calls": data["model_calls"], "input_tokens": data["input_tokens"],
                "output_tokens": data["output_tokens"], "tokens": data["input_tokens"] + data["output_tokens"],
                "turns": data["turns"], "seconds": round(self.seconds, 2),
                "case_seconds_mean": round(sum(r.seconds for r in self.results) / self.n, 3) if self.n else 0.0,
                "latency_ms_p50": data["latency_ms_p50"], "steps_per_turn": data["steps_per_turn"]}

    def result_json(self, r: CaseResult) -> dict[str, Any]:
        kept = {k: r.case.metadata[k] for k in ("kind", *self.groups) if k in r.case.metadata}
        return {"id": r.case.id, "question": r.case.question, "status": r.status, "answer": r.output.answer,
                "expected": r.case.expected, "metrics": dict(r.score.metrics), "seconds": round(r.seconds, 3),
                "error": r.output.error, "note": r.score.note, "details": dict(r.output.details),
                "metadata": kept}

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "dataset": self.dataset, "sources": list(self.sources), "llm": self.llm,
                "options": dict(self.options), "n": self.n, **self.counts(), "rates": self.rates(),
                "headline": list(self.headline), "metrics": dict(self.metrics), "groups": self.group_counts(),
                "usage": self.usage(), "results": [self.result_json(r) for r in self.results]}

    def to_markdown(self) -> str:
        counts, rates = self.counts(), self.rates()
        lines = [f"# {self.agent} evaluation: {self.dataset} ({self.llm})", "",
                 f"{self.n} cases from {', '.join(f'`{_here(s)}`' for s in self.sources) or 'the given cases'}.", "",
                 "| status | cases | share |", "| --- | --- | --- |"]
        lines += [f"| {s} | {counts[s]} | {rates[s]:.1%} |" for s in STATUSES]
        flat = flat_metrics(self.metrics)
        if flat:
            order = [k for k in self.headline if k in flat] + [k for k in flat if k not in self.headline]
            lines += ["", "## Figures", "", "| metric | value |", "| --- | --- |"]
            lines += [f"| {'**' + k + '**' if k in self.headline else k} | {_shown(flat[k])} |" for k in order]
        for key, values in self.group_counts().items():
            lines += ["", f"## By {key}", "", f"| {key} | n | right | partial | declined | wrong |",
                      "| --- | --- | --- | --- | --- | --- |"]
            lines += [f"| {_cell(v)} | {c['n']} | {c['right']} | {c['partial']} | {c['declined']} | {c['wrong']} |"
                      for v, c in values.items()]
        u = self.usage()
        lines += ["", f"Usage: {u['calls']} model calls, {u['input_tokens']} + {u['output_tokens']} tokens, "
                      f"{u['turns']} turns, {u['seconds']} s in all ({u['case_seconds_mean']} s per case)."]
        for status in ("wrong", "partial", "declined"):
            chosen = [r for r in self.results if r.status == status]
            if not chosen:
                continue
            lines += ["", f"## {status.capitalize()} ({len(chosen)})", "",
                      "| id | question | answer | expected | why |", "| --- | --- | --- | --- | --- |"]
            lines += [f"| {_cell(r.case.id)} | {_cell(r.case.question)} | {_cell(r.output.answer)} | "
                      f"{_cell(r.case.expected)} | {_cell(r.output.error or r.score.note)} |"
                      for r in chosen[:SHOWN_PER_STATUS]]
            if len(chosen) > SHOWN_PER_STATUS:
                lines.append(f"\n(and {len(chosen) - SHOWN_PER_STATUS} more in report.json)")
        return "\n".join(lines) + "\n"

    def write(self, directory: str | Path) -> tuple[Path, Path]:
        """Write ``report.json`` and ``report.md`` into ``directory`` (created if needed)."""
        target = Path(directory)
        try:
            target.mkdir(parents=True, exist_ok=True)
            json_path, md_path = target / "report.json", target / "report.md"
            json_path.write_text(json.dumps(self.to_json(), ensure_ascii=False, indent=2, default=str) + "\n",
                                 encoding="utf-8")
            md_path.write_text(self.to_markdown(), encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write the report to {str(target)!r}: {exc}") from None
        return json_path, md_path


def flat_metrics(metrics: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Metrics with nested objects flattened to ``a.b`` keys (lists stay values)."""
    out: dict[str, Any] = {}
    for key, value in metrics.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flat_metrics(value, name + "."))
        else:
            out[name] = value
    return out


def _here(source: str) -> str:
    """A source path relative to the working directory when it is under it."""
    try:
        return str(Path(source).resolve().relative_to(Path.cwd()))
    except (ValueError, OSError):
        return source


def _shown(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return _cell(json.dumps(value, ensure_ascii=False, default=str))
    return _cell(value)


def _cell(value: Any, width: int = 160) -> str:
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(value.split()).replace("|", "/")
    return text if len(text) <= width else text[: width - 1] + "…"
