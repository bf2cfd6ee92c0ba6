"""``graphagents eval rag``: retrieval (BM25 / dense / hybrid side by side), answers (citation
correctness, grounding, "not found", refine loops) and the semantic cache (false hits on trap
pairs, hits on paraphrases), in one run.

Gold passages are ``relevant_passage_ids`` plus ``also_relevant_passage_ids`` (chunks of other
answers to the identical question text: they answer it too). Retrieval queries are what the agent
searches with on its first round (the question, its aspect words in English, the canonical drug and
condition names of its slots). Questions are asked in English (``question``) and Korean
(``question_ko``): ``n`` counts both.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from graphagents.errors import InputError
from graphagents.packagedata import package_path

__all__ = ["eval_command", "load_questions", "load_pairs", "retrieval_metrics", "run_eval"]

QUESTIONS = ("evaldata", "dev_questions.jsonl")  # MedQuAD (CC BY 4.0): see evaldata/README.md
TRAPS = ("evaldata", "dev_cache_traps.jsonl")
BUNDLED = Path(__file__).parent / "evaldata"
MODES = ("bm25", "dense", "hybrid")
K = 8


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    lang: str
    gold: frozenset[str]


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise InputError(f"not found: {path}")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError as exc:
                raise InputError(f"{path}:{n}: invalid JSON: {exc}") from None
    return out


def load_questions(path: Path, langs: Iterable[str] = ("en", "ko")) -> list[Question]:
    """Questions in the shared dev file's format (``id``, ``question``, ``question_ko``,
    ``relevant_passage_ids``, optional ``also_relevant_passage_ids``)."""
    out = []
    for n, row in enumerate(_read_jsonl(path), 1):
        if "question" not in row or "relevant_passage_ids" not in row:
            raise InputError(f"{path}:{n}: needs question and relevant_passage_ids (the shared dev file's format)")
        gold = frozenset([*row["relevant_passage_ids"], *(row.get("also_relevant_passage_ids") or [])])
        qid = str(row.get("id", n))
        for lang in langs:
            text = row.get("question" if lang == "en" else "question_ko")
            if text:
                out.append(Question(qid, str(text), lang, gold))
    return out


def load_pairs(path: Path) -> list[dict[str, Any]]:
    """Pairs ``{"pair_id", "kind", "a": {"question", "question_ko"?, "profile"}, "b": {...}}``."""
    pairs = _read_jsonl(path)
    for n, pair in enumerate(pairs, 1):
        if not isinstance(pair.get("a"), Mapping) or not isinstance(pair.get("b"), Mapping):
            raise InputError(f"{path}:{n}: a pair needs objects a and b (the shared cache_traps format)")
    return pairs


def is_paraphrase(pair: Mapping[str, Any]) -> bool:
    """A pair whose answers may be shared (``answers_must_differ: false`` or kind ``paraphrase``)."""
    return pair.get("kind") == "paraphrase" or pair.get("answers_must_differ") is False


# ----- retrieval -------------------------------------------------------------------------------------


def retrieval_metrics(ranked: Sequence[str], gold: frozenset[str], k: int = K) -> dict[str, float]:
    top = list(ranked[:k])
    hits = [doc in gold for doc in top]
    rr = next((1.0 / i for i, doc in enumerate(ranked, 1) if doc in gold), 0.0)
    dcg = sum(1.0 / math.log2(i + 1) for i, doc in enumerate(ranked[:10], 1) if doc in gold)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(gold), 10) + 1))
    return {f"recall@{k}": sum(hits) / len(gold) if gold else 0.0, f"precision@{k}": sum(hits) / k,
            "mrr": rr, "ndcg@10": dcg / ideal if ideal else 0.0}


def _mean(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    keys = list(rows[0]) if rows else [f"recall@{K}", f"precision@{K}", "mrr", "ndcg@10"]
    return {key: round(sum(r[key] for r in rows) / len(rows), 4) if rows else 0.0 for key in keys}


def evaluate_retrieval(questions: Sequence[Question], store: Any,
                       weights: tuple[float, float] = (1.0, 1.0)) -> dict[str, Any]:
    from .language import named_terms
    from .query import retrieval_query

    per_mode: dict[str, list[dict[str, float]]] = {m: [] for m in MODES}
    by_lang: dict[str, dict[str, list[dict[str, float]]]] = {}
    for q in questions:
        query = retrieval_query(q.text, {}, extra=named_terms(q.text))
        vector = store.embedder.embed_one(query)
        for mode in MODES:
            hits = store.search(query, k=10, mode=mode, vector=vector, weights=weights)
            metrics = retrieval_metrics([h.id for h in hits], q.gold)
            per_mode[mode].append(metrics)
            by_lang.setdefault(q.lang, {m: [] for m in MODES})[mode].append(metrics)
    return {"all": {m: _mean(rows) for m, rows in per_mode.items()},
            "by_language": {lang: {m: _mean(rows) for m, rows in modes.items()} for lang, modes in by_lang.items()}}


# ----- cache -----------------------------------------------------------------------------------------


def _profile(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """A trap side's ``profile`` (flat: ``age``, ``conditions``, ``pregnant`` ...) as the agent's profile."""
    from .slots import as_profile

    return as_profile(raw)


def evaluate_cache(traps: Sequence[Mapping[str, Any]], paraphrases: Sequence[Mapping[str, Any]],
                   embedder: Any, threshold: float = 0.85) -> dict[str, Any]:
    """Store side a's answer, look side b up as the same user: a hit on a trap pair is a false hit, a
    hit on a paraphrase pair is a true one. ``threshold_only`` counts what cosine alone would do."""
    from graphagents.cache import open_semantic_cache

    from .nodes import cache_key

    def trial(pair: Mapping[str, Any], field_name: str) -> dict[str, Any] | None:
        a, b = pair["a"], pair["b"]
        qa, qb = a.get(field_name), b.get(field_name)
        if not qa or not qb:
            return None
        cache = open_semantic_cache(None, namespace="eval", embedder=embedder, threshold=threshold)
        _, sig_a = cache_key(qa, _profile(a.get("profile")))
        slots_b, sig_b = cache_key(qb, _profile(b.get("profile")))
        cache.store(qa, {"answer": "a"}, scope="eval", signature=sig_a)
        hit = cache.lookup(qb, scope="eval", signature=sig_b)
        va, vb = embedder.embed_one(qa), embedder.embed_one(qb)
        cosine = float(va @ vb)
        return {"pair_id": pair.get("pair_id"), "kind": pair.get("kind"), "lang": "ko" if field_name != "question"
                else "en", "a": qa, "b": qb, "hit": hit is not None, "cosine": round(cosine, 4),
                "same_signature": sig_a == sig_b, "threshold_only_hit": cosine >= threshold}

    trap_rows = [r for p in traps for f in ("question", "question_ko") if (r := trial(p, f))]
    para_rows = [r for p in paraphrases for f in ("question", "question_ko") if (r := trial(p, f))]
    return {
        "trap_pairs": len(trap_rows), "trap_false_hits": sum(r["hit"] for r in trap_rows),
        "trap_false_hits_threshold_only": sum(r["threshold_only_hit"] for r in trap_rows),
        "paraphrase_pairs": len(para_rows), "paraphrase_hits": sum(r["hit"] for r in para_rows),
        "paraphrase_hits_threshold_only": sum(r["threshold_only_hit"] for r in para_rows),
        "threshold": threshold, "traps": trap_rows, "paraphrases": para_rows,
    }


# ----- answers ---------------------------------------------------------------------------------------


@dataclass
class AnswerResult:
    id: str
    question: str
    lang: str
    correct: bool
    status: str  # answered | not_found | error
    cited: list[str]
    gold: list[str]
    citation_precision: float | None
    grounding: float | None
    iterations: int
    stop: str
    intent: str | None
    seconds: float
    error: str = ""


@dataclass
class Report:
    llm: str
    n: int
    retrieval: dict[str, Any]
    cache: dict[str, Any]
    results: list[AnswerResult] = field(default_factory=list)
    seconds: float = 0.0

    def answers(self) -> dict[str, Any]:
        rs = self.results
        answered = [r for r in rs if r.status == "answered"]
        cites = [(c, r) for r in answered for c in r.cited]
        groundings = [r.grounding for r in answered if r.grounding is not None]
        stops = Counter(re.sub(r"[-+]?\d+(\.\d+)?", "N", r.stop) for r in rs)
        return {
            "questions": len(rs),
            "citation_correct": round(sum(c in r.gold for c, r in cites) / len(cites), 4) if cites else 0.0,
            "answered_with_a_gold_citation": round(sum(r.correct for r in rs) / len(rs), 4) if rs else 0.0,
            "grounding": round(sum(groundings) / len(groundings), 4) if groundings else 0.0,
            "not_found": round(sum(r.status == "not_found" for r in rs) / len(rs), 4) if rs else 0.0,
            "errors": sum(r.status == "error" for r in rs),
            "refine_iterations": round(sum(r.iterations for r in rs) / len(rs), 3) if rs else 0.0,
            "loop_stops": dict(stops.most_common()),
        }

    def to_json(self) -> dict[str, Any]:
        modes = self.retrieval.get("all", {})
        return {
            "n": self.n,
            "llm": self.llm,
            "retrieval": {m: modes.get(m, {}) for m in MODES},
            "retrieval_by_language": self.retrieval.get("by_language", {}),
            "fusion_weights": self.retrieval.get("weights"),
            "cache": {k: v for k, v in self.cache.items() if k not in ("traps", "paraphrases")},
            "answers": self.answers(),
            "seconds": round(self.seconds, 1),
            "results": [r.__dict__ for r in self.results],
            "cache_pairs": {"traps": self.cache.get("traps", []), "paraphrases": self.cache.get("paraphrases", [])},
        }

    def to_markdown(self) -> str:
        data = self.to_json()
        lines = [f"# rag eval ({self.llm})", "", f"{self.n} questions (English + Korean wording), "
                 f"{data['seconds']} s", "", "## Retrieval (top 8; nDCG@10)", "",
                 "| questions | mode | recall@8 | precision@8 | MRR | nDCG@10 |",
                 "| --- | --- | --- | --- | --- | --- |"]
        groups = {"all": self.retrieval.get("all", {}), **self.retrieval.get("by_language", {})}
        for group, modes in groups.items():
            for mode in MODES:
                m = modes.get(mode, {})
                lines.append(f"| {group} | {mode} | {m.get('recall@8', 0):.3f} | {m.get('precision@8', 0):.3f} | "
                             f"{m.get('mrr', 0):.3f} | {m.get('ndcg@10', 0):.3f} |")
        c = data["cache"]
        a = data["answers"]
        lines += ["", "## Cache", "",
                  f"- trap pairs: {c['trap_pairs']}, false hits: **{c['trap_false_hits']}** "
                  f"(cosine >= {c['threshold']} alone: {c['trap_false_hits_threshold_only']})",
                  f"- paraphrase pairs: {c['paraphrase_pairs']}, hits: **{c['paraphrase_hits']}** "
                  f"(cosine alone: {c['paraphrase_hits_threshold_only']})",
                  "", "## Answers", "",
                  f"- questions: {a['questions']}; citation correct: **{a['citation_correct']:.1%}**; answered with a "
                  f"gold citation: {a['answered_with_a_gold_citation']:.1%}",
                  f"- grounding: {a['grounding']:.3f}; not found: {a['not_found']:.1%}; errors: {a['errors']}",
                  f"- refine iterations per question: {a['refine_iterations']}; loop stops: {a['loop_stops']}"]
        wrong = [r for r in self.results if not r.correct][:60]
        if wrong:
            lines += ["", "## Not correct", "", "| question | lang | status | cited | stop |",
                      "| --- | --- | --- | --- | --- |"]
            lines += [f"| {r.question[:90]} | {r.lang} | {r.status} | {', '.join(r.cited)[:80]} | {r.stop[:60]} |"
                      for r in wrong]
        return "\n".join(lines) + "\n"


def _oracle(golds: Mapping[str, frozenset[str]]) -> Any:
    """A scripted model that answers from the gold passages shown in its evidence (and says "not
    found" when none is there): with it, every citation must be correct, or the pipeline loses the
    passages or their numbers somewhere."""
    import re

    from langchain_core.messages import BaseMessage

    from graphagents.testing import FunctionChatModel

    def reply(messages: list[BaseMessage]) -> str:
        prompt = "\n".join(str(m.content) for m in messages)
        if "메시지를 분류하세요" in prompt:
            return '{"intent": "moderate", "reason": "oracle"}'
        if "6개 슬롯으로 추출" in prompt:
            return "{}"
        if "심사위원" in prompt:
            return json.dumps({"grounding_score": 1.0, "completeness_score": 1.0, "accuracy_score": 1.0,
                               "overall_score": 1.0, "missing_info": [], "improvement_suggestions": [],
                               "safety_concerns": []})
        if "검색 질의를 다시" in prompt:
            return '{"query": "oracle"}'
        question = prompt.rsplit("[질문]", 1)[-1].strip()
        gold = golds.get(question, frozenset())
        evidence = prompt.split("[근거]", 1)[-1].split("[질문]", 1)[0]
        cited = []
        for match in re.finditer(r"^\[(\d+)\] [^\n]*\(([^()\n]+)\)$", evidence, re.MULTILINE):
            if match.group(2) in gold:
                cited.append(int(match.group(1)))
        if not cited:
            return "문서에서 찾지 못했습니다."
        return " ".join(f"The answer is in this passage [{n}]." for n in cited)

    return FunctionChatModel(function=reply)


def run_eval(questions: Sequence[Question], traps: Sequence[Mapping[str, Any]],
             paraphrases: Sequence[Mapping[str, Any]], *, llm: str = "offline", answers: bool = True,
             options: Mapping[str, Any] | None = None, on_result: Callable[[AnswerResult], None] | None = None,
             weights: tuple[float, float] | None = None) -> Report:
    from graphagents.runtime import Agent

    from .corpus import corpus_for
    from .graph import rag_context
    from .spec import SPEC

    started = time.perf_counter()
    model: Any = llm
    if llm == "oracle":
        model = _oracle({q.text: q.gold for q in questions})
    agent = Agent(SPEC, llm=model, checkpoint_url="memory", cache_enabled=False, **dict(options or {}))
    rctx = rag_context(agent.build_context)
    store = corpus_for(rctx.options.store_url, rctx.options.store_name, rctx.embedder, rctx.options.corpus).ensure()
    weights = weights or (1.0, float(rctx.options.agent_config.dense_weight))
    retrieval = evaluate_retrieval(questions, store, weights)
    retrieval["weights"] = list(weights)
    cache = evaluate_cache(traps, paraphrases, rctx.embedder, float(rctx.options.agent_config.cache_threshold))
    report = Report(str(llm), len(questions), retrieval, cache)
    if answers:
        for q in questions:
            t0 = time.perf_counter()
            try:
                reply = agent.session(None, user_id="eval").send(q.text)
                state = reply.state
                errors = [e.to_dict().get("message", "") for e in reply.events if e.type == "error"]
                cited = [str(a.to_dict()["source"]) for a in reply.artifacts if a.kind == "citation"]
                logs = state.get("refine_iteration_logs") or []
                grounding = logs[-1].get("grounding") if logs else None
                not_found = not cited
                status = "error" if errors else ("not_found" if not_found else "answered")
                result = AnswerResult(q.id, q.text, q.lang, bool(set(cited) & q.gold), status, cited, sorted(q.gold),
                                      round(sum(c in q.gold for c in cited) / len(cited), 4) if cited else None,
                                      grounding, max((entry["iteration"] for entry in logs), default=0),
                                      logs[-1]["reason"] if logs else "", state.get("intent"),
                                      round(time.perf_counter() - t0, 2), "; ".join(errors))
            except Exception as exc:  # noqa: BLE001 - one broken item is a reported failure, not the end
                result = AnswerResult(q.id, q.text, q.lang, False, "error", [], sorted(q.gold), None, None, 0, "",
                                      None, round(time.perf_counter() - t0, 2), f"{type(exc).__name__}: {exc}")
            report.results.append(result)
            if on_result:
                on_result(result)
    report.seconds = time.perf_counter() - started
    return report


def eval_command(
    questions: Annotated[Path | None, typer.Option(help="questions .jsonl (shared dev format)")] = None,
    traps: Annotated[Path | None, typer.Option(help="cache trap pairs .jsonl (shared cache_traps format)")] = None,
    paraphrases: Annotated[Path | None, typer.Option(help="paraphrase pairs .jsonl (same format)")] = None,
    llm: Annotated[str, typer.Option(help="offline, oracle or provider:model")] = "offline",
    lang: Annotated[str, typer.Option(help="en, ko or both")] = "both",
    limit: Annotated[int | None, typer.Option(help="only the first N questions (per language)")] = None,
    no_answers: Annotated[bool, typer.Option("--no-answers", help="retrieval and cache only")] = False,
    dense_weight: Annotated[float | None, typer.Option(
        help="RRF weight of the dense list (BM25's is 1); default: the agent's agent_config.dense_weight")] = None,
    report: Annotated[Path | None, typer.Option(help="directory for report.json and report.md")] = None,
) -> None:
    """Retrieval (BM25 / dense / hybrid), answers (citations, grounding, not found, refine) and the
    semantic cache (trap false hits, paraphrase hits) of the rag agent."""
    from rich.console import Console

    langs = ("en", "ko") if lang == "both" else (lang,)
    if any(x not in ("en", "ko") for x in langs):
        raise InputError("--lang must be en, ko or both")
    q_path = questions or package_path(__package__ or "graphagents.agents.rag", *QUESTIONS)
    t_path = traps or package_path(__package__ or "graphagents.agents.rag", *TRAPS)
    items = load_questions(q_path, langs)
    if limit is not None:
        kept_ids = list(dict.fromkeys(q.id for q in items))[:limit]
        items = [q for q in items if q.id in set(kept_ids)]
    if not items:
        raise InputError("no questions to evaluate")
    pairs = load_pairs(t_path) + (load_pairs(BUNDLED / "drug_traps.jsonl") if traps is None else [])
    trap_pairs = [p for p in pairs if not is_paraphrase(p)]  # a traps file may hold paraphrase pairs too
    para_pairs = [p for p in pairs if is_paraphrase(p)]
    if paraphrases is not None or not para_pairs:
        para_pairs += load_pairs(paraphrases or BUNDLED / "paraphrases.jsonl")
    console = Console(stderr=True)
    done: list[AnswerResult] = []

    def tick(r: AnswerResult) -> None:
        done.append(r)
        if len(done) % 10 == 0:
            console.print(f"{len(done)}/{len(items)} answered")

    result = run_eval(items, trap_pairs, para_pairs, llm=llm, answers=not no_answers, on_result=tick,
                      weights=None if dense_weight is None else (1.0, dense_weight))
    data = result.to_json()
    out = Console()
    for mode in MODES:
        m = data["retrieval"][mode]
        out.print(f"{mode:>6}: recall@8 {m['recall@8']:.3f}  precision@8 {m['precision@8']:.3f}  "
                  f"MRR {m['mrr']:.3f}  nDCG@10 {m['ndcg@10']:.3f}")
    c, a = data["cache"], data["answers"]
    out.print(f"cache: {c['trap_false_hits']}/{c['trap_pairs']} trap false hits "
              f"(cosine alone {c['trap_false_hits_threshold_only']}), {c['paraphrase_hits']}/{c['paraphrase_pairs']} "
              "paraphrase hits")
    if not no_answers:
        out.print(f"answers: citation correct {a['citation_correct']:.1%}, grounding {a['grounding']:.3f}, "
                  f"not found {a['not_found']:.1%}, refine iterations {a['refine_iterations']}, "
                  f"stops {a['loop_stops']}")
    if report is not None:
        report.mkdir(parents=True, exist_ok=True)
        (report / "report.json").write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
        (report / "report.md").write_text(result.to_markdown(), encoding="utf-8")
        out.print(f"wrote {report / 'report.json'} and {report / 'report.md'}")
