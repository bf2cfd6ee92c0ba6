"""rag's evaluation: questions (retrieval by BM25 / dense / hybrid, and the cited answer), cache
pairs (false hits on traps, hits on paraphrases) and emergency messages (the notice), in one
dataset whose rows are told apart by their keys (docs/evaluation.md).

- A *question* (``question`` and ``relevant_passage_ids``; ``question_ko`` too in the dev file,
  which makes it two cases, ``<id>:en`` and ``<id>:ko``) is searched the way the agent searches on
  its first round (the question, its aspect words in English, the canonical drug and condition
  names) in each retrieval mode, then asked through a session (``setup`` messages first). Gold:
  ``relevant_passage_ids`` plus ``also_relevant_passage_ids``. ``right``: a gold passage is cited
  and at least half the citations are gold; ``partial``: a gold passage is cited among mostly
  others; ``declined``: nothing cited ("not found"); ``wrong``: only other passages cited.
  ``must_decline: true`` marks a question the documents do not answer (right only when declined).
- A *cache pair* (``a`` and ``b``, each a ``question`` / ``question_ko`` and a ``profile``): a's
  answer is stored, b looked up as the same user. A trap (``answers_must_differ``) that hits is
  ``wrong``, one that misses ``right``; a paraphrase that hits is ``right``, one that misses
  ``declined`` (the pipeline answers instead, no harm done).
- An *emergency message* (``text`` and ``emergency``: true or false) is sent in a session; the
  reply's state says whether the emergency notice was given. ``right`` when it was exactly when
  labelled an emergency.
"""

from __future__ import annotations

import math
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from graphagents.errors import InputError
from graphagents.evals import Case, CaseResult, EvalContext, Evaluation, Models, Output, Score, Source, read_jsonl
from graphagents.evals.evaluation import missing_dataset
from graphagents.evals.scoring import errors_of, mean, share

__all__ = ["EVALUATION", "load_cases", "retrieval_metrics", "score"]

BUNDLED = Path(__file__).parent / "evaldata"
"""rag's evaluation sets (the dev questions and cache traps come from MedQuAD, CC BY 4.0: see
evaldata/README.md)."""
MODES = ("bm25", "dense", "hybrid", "rerank")
K = 8


def _dev() -> list[Source]:
    from graphagents.packagedata import package_path

    files = [package_path(__package__ or "graphagents.agents.rag", "evaldata", name)
             for name in ("dev_questions.jsonl", "dev_cache_traps.jsonl", "drug_traps.jsonl", "paraphrases.jsonl")]
    emergencies = BUNDLED / "emergency_dev.jsonl"
    return [*files, *([emergencies] if emergencies.is_file() else [])]


def _heldout() -> list[Source]:
    files = [BUNDLED / "heldout_questions.jsonl", BUNDLED / "heldout_emergencies.jsonl"]
    present = [f for f in files if f.is_file()]
    if not present:
        raise missing_dataset("rag", "heldout", files[0])
    return list(present)


def _heldout_fresh() -> list[Source]:
    path = BUNDLED / "heldout_fresh.jsonl"
    if not path.is_file():
        raise missing_dataset("rag", "heldout_fresh", path)
    return [path]


DATASETS: dict[str, Callable[[], Sequence[Source]]] = {
    "dev": _dev, "heldout": _heldout, "heldout_fresh": _heldout_fresh}


class EvalOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    lang: Literal["en", "ko", "both"] = Field("both", description="questions in en, ko or both")
    no_answers: bool = Field(False, description="retrieval, cache and emergencies only (no answer runs)")
    dense_weight: float | None = Field(
        None, description="RRF weight of the dense list (BM25's is 1); default: the agent's agent_config.dense_weight")


# ----------------------------------------------------------------------------------------- loading


def load_cases(source: Source) -> list[Case]:
    """Questions, cache pairs and emergency messages of one JSON-lines file, by their keys."""
    name = source.name
    stem = name.rsplit(".", 1)[0]
    cases: list[Case] = []
    for n, row in enumerate(read_jsonl(source), 1):
        where = f"{name} line {n}"
        rid = str(row.get("id") or row.get("pair_id") or f"{stem}:{n}")
        if isinstance(row.get("a"), Mapping) and isinstance(row.get("b"), Mapping):
            cases.extend(_pair_cases(rid, row))
        elif "text" in row and isinstance(row.get("emergency"), bool):
            cases.append(Case(rid, str(row["text"]), bool(row["emergency"]),
                              {"kind": "emergency", "lang": row.get("lang", ""), "class": row.get("kind") or "none",
                               "category": row.get("category", "")}))
        elif "question" in row and "relevant_passage_ids" in row:
            cases.extend(_question_cases(rid, row))
        else:
            raise InputError(f"{where}: a row needs question + relevant_passage_ids (a question), a + b (a cache "
                             "pair) or text + emergency (an emergency message); see docs/evaluation.md")
    return cases


def _question_cases(rid: str, row: Mapping[str, Any]) -> list[Case]:
    gold = sorted({*row["relevant_passage_ids"], *(row.get("also_relevant_passage_ids") or [])})
    label = {k: v for k, v in row.items() if k not in ("id", "question", "question_ko")}
    meta: dict[str, Any] = {"kind": "question", "label": label, "setup": list(row.get("setup") or [])}
    if row.get("must_decline") is True:
        meta["answerable"] = False
    texts = {"en": row["question"], "ko": row.get("question_ko")} if "question_ko" in row else \
        {str(row.get("lang") or _lang(str(row["question"]))): row["question"]}
    return [Case(f"{rid}:{lang}" if "question_ko" in row else rid, str(text), gold, {**meta, "lang": lang})
            for lang, text in texts.items() if text]


def _pair_cases(rid: str, pair: Mapping[str, Any]) -> list[Case]:
    paraphrase = pair.get("kind") == "paraphrase" or pair.get("answers_must_differ") is False
    out = []
    for lang, key in (("en", "question"), ("ko", "question_ko")):
        a, b = pair["a"].get(key), pair["b"].get(key)
        if a and b:
            out.append(Case(f"{rid}:{lang}", {"a": a, "b": b, "profile_a": pair["a"].get("profile") or {},
                                               "profile_b": pair["b"].get("profile") or {}},
                            "hit" if paraphrase else "miss",
                            {"kind": "cache", "lang": lang, "pair": "paraphrase" if paraphrase else "trap",
                             "pair_kind": pair.get("kind", ""), "question": f"{a} / {b}"}))
    return out


def _lang(text: str) -> str:
    return "ko" if any("가" <= ch <= "힣" for ch in text) else "en"


def _select(cases: Sequence[Case], options: EvalOptions) -> list[Case]:
    return [c for c in cases if c.kind == "emergency" or options.lang in ("both", c.metadata.get("lang"))]


# ----------------------------------------------------------------------------------------- running


def retrieval_metrics(ranked: Sequence[str], gold: frozenset[str] | set[str], k: int = K) -> dict[str, float]:
    top = list(ranked[:k])
    hits = [doc in gold for doc in top]
    rr = next((1.0 / i for i, doc in enumerate(ranked, 1) if doc in gold), 0.0)
    dcg = sum(1.0 / math.log2(i + 1) for i, doc in enumerate(ranked[:10], 1) if doc in gold)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(gold), 10) + 1))
    return {f"recall@{k}": sum(hits) / len(gold) if gold else 0.0, f"precision@{k}": sum(hits) / k,
            "mrr": rr, "ndcg@10": dcg / ideal if ideal else 0.0}


@contextmanager
def _start(ctx: EvalContext) -> Iterator[Any]:
    from graphagents.runtime import Agent

    from .corpus import corpus_for
    from .graph import rag_context
    from .spec import SPEC

    agent = Agent(SPEC, **ctx.agent_kwargs(checkpoint_url="memory", cache_enabled=False))
    rctx = rag_context(agent.build_context)
    config = rctx.options.agent_config
    weight = ctx.option("dense_weight")
    weights = (1.0, float(config.dense_weight if weight is None else weight))
    answers = not ctx.option("no_answers")
    stores: list[Any] = []
    lock = threading.Lock()

    def store() -> Any:
        with lock:
            if not stores:
                stores.append(corpus_for(rctx.options.store_url, rctx.options.store_name, rctx.embedder,
                                         rctx.options.corpus).ensure())
            return stores[0]

    def profiles() -> Any:
        from .profiles import profile_store_for

        return profile_store_for(rctx.services.store, rctx.services.database)

    def question(case: Case) -> Output:
        from .language import named_terms
        from .query import retrieval_query
        from .rerank import search as rerank_search

        gold = set(case.expected)
        query = retrieval_query(str(case.input), {}, extra=named_terms(str(case.input)))
        vector = store().embedder.embed_one(query)
        named = named_terms(str(case.input))
        ranked = {mode: [h.id for h in rerank_search(store(), str(case.input), query, k=10, mode=mode, vector=vector,
                                                     weights=weights, named=named)]
                  for mode in MODES}
        # a question the documents do not answer has no gold passage: it counts for answers, not retrieval
        data: dict[str, Any] = {"retrieval": {m: retrieval_metrics(ids, gold) for m, ids in ranked.items()}
                                if gold else {}, "answered": answers}
        if not answers:
            return Output(ranked["rerank"][:K], data)
        # each question is its own user: a profile built by one case's setup (warfarin, pregnancy) must
        # not answer the next case's question, nor one of the next run
        user = f"eval-{uuid.uuid4().hex}"
        session = agent.session(None, user_id=user)
        try:
            usage = [session.send(str(m)).usage for m in case.metadata.get("setup") or []]
            reply = session.send(str(case.input))
        finally:
            profiles().delete(user)
        state = reply.state
        cited = [str(a.to_dict()["source"]) for a in reply.artifacts if a.kind == "citation"]
        logs = state.get("refine_iteration_logs") or []
        data.update(cited=cited, reply=reply.text, grounding=logs[-1].get("grounding") if logs else None,
                    iterations=max((int(e["iteration"]) for e in logs), default=0),
                    emergency=bool(state.get("emergency")))
        return Output(reply.text, data, {"cited": cited, "stop": logs[-1]["reason"] if logs else "",
                                         "intent": state.get("intent")},
                      (*usage, reply.usage), errors_of(reply.events))

    def cache_pair(case: Case) -> Output:
        from graphagents.cache import open_semantic_cache

        from .nodes import cache_key
        from .slots import as_profile

        pair = case.input
        cache = open_semantic_cache(None, namespace="eval", embedder=rctx.embedder,
                                    threshold=float(config.cache_threshold))
        _, sig_a = cache_key(pair["a"], as_profile(pair["profile_a"]))
        _, sig_b = cache_key(pair["b"], as_profile(pair["profile_b"]))
        cache.store(pair["a"], {"answer": "a"}, scope="eval", signature=sig_a)
        hit = cache.lookup(pair["b"], scope="eval", signature=sig_b) is not None
        cosine = float(rctx.embedder.embed_one(pair["a"]) @ rctx.embedder.embed_one(pair["b"]))
        return Output("hit" if hit else "miss", {"hit": hit, "cosine": round(cosine, 4),
                                                 "threshold_hit": cosine >= float(config.cache_threshold)},
                      {"same_signature": sig_a == sig_b, "cosine": round(cosine, 4)})

    def emergency(case: Case) -> Output:
        user = f"eval-{uuid.uuid4().hex}"
        try:
            reply = agent.session(None, user_id=user).send(str(case.input))
        finally:
            profiles().delete(user)
        flagged = bool(reply.state.get("emergency"))
        return Output(reply.text, {"flagged": flagged, "reply": reply.text}, {"notice": flagged},
                      (reply.usage,), errors_of(reply.events))

    runners = {"question": question, "cache": cache_pair, "emergency": emergency}
    yield lambda case: runners[case.kind](case)


# ----------------------------------------------------------------------------------------- scoring


def score(case: Case, output: Output) -> Score:
    if case.kind == "cache":
        hit, trap = bool(output.data.get("hit")), case.expected == "miss"
        metrics = {"hit": hit, "threshold_hit": bool(output.data.get("threshold_hit"))}
        if trap:
            return Score("wrong" if hit else "right", metrics, "false hit on a trap pair" if hit else "trap missed")
        return Score("right" if hit else "declined", metrics, "paraphrase hit" if hit else "paraphrase missed")
    if case.kind == "emergency":
        flagged, due = bool(output.data.get("flagged")), bool(case.expected)
        note = {(True, True): "notice given", (False, False): "no notice, none due",
                (False, True): "emergency missed", (True, False): "false alarm"}[(flagged, due)]
        return Score("right" if flagged == due else "wrong", {"flagged": flagged, "due": due}, note)
    return _score_question(case, output)


def _score_question(case: Case, output: Output) -> Score:
    gold = set(case.expected)
    metrics: dict[str, Any] = {f"{m}.{k}": round(v, 4) for m, values in (output.data.get("retrieval") or {}).items()
                               for k, v in values.items()}
    if not output.data.get("answered"):  # retrieval only: the agent's own mode is judged
        recall = float(metrics.get(f"rerank.recall@{K}", 0.0))
        note = f"retrieval only: rerank recall@{K} {recall:.2f}"
        if recall == 1.0:
            return Score("right", metrics, note)
        return Score("partial" if recall > 0 else "wrong", metrics, note)
    cited = list(output.data.get("cited") or [])
    good = sum(c in gold for c in cited)
    reply = str(output.data.get("reply") or "")
    repeated = repeated_lines(reply)
    label = case.metadata.get("label") or {}
    missing = [w for w in label.get("reply_must_include") or [] if w.lower() not in reply.lower()]
    metrics.update(cited=len(cited), cited_gold=good,
                   citation_precision=round(good / len(cited), 4) if cited else None,
                   repeated_lines=len(repeated), missing_required=missing)
    # must_decline (answerable: false) is the harness's rule (score_case): declined -> right, else wrong
    if not cited:
        return Score("declined", metrics, "not found: nothing cited")
    if not good:
        return Score("wrong", metrics, "only passages that are not gold cited")
    if missing:  # the warning the question's situation needs (the profile's drug, pregnancy) is absent
        return Score("wrong", metrics, f"reply lacks {', '.join(map(repr, missing))}")
    if repeated:
        return Score("partial", metrics, f"the reply repeats itself: {repeated[0][:60]!r}")
    if good * 2 >= len(cited):
        return Score("right", metrics, f"{good} of {len(cited)} citations gold")
    return Score("partial", metrics, f"only {good} of {len(cited)} citations gold")


def repeated_lines(reply: str) -> list[str]:
    """Lines of ``reply`` (quotes without their [n] marks) that occur more than once."""
    import re

    seen: set[str] = set()
    out: list[str] = []
    for line in reply.splitlines():
        key = re.sub(r"\s*\[\d+\]\s*$", "", line.strip(" -*")).strip().lower()
        if len(key) < 20:
            continue
        if key in seen and key not in out:
            out.append(key)
        seen.add(key)
    return out


def summarize(results: Sequence[CaseResult]) -> dict[str, Any]:
    questions = [r for r in results if r.case.kind == "question"]
    pairs = [r for r in results if r.case.kind == "cache"]
    alarms = [r for r in results if r.case.kind == "emergency"]
    out: dict[str, Any] = {"retrieval": _retrieval(questions)}
    langs = sorted({str(r.case.metadata.get("lang")) for r in questions})
    if len(langs) > 1:
        out["retrieval_by_language"] = {lang: _retrieval([r for r in questions if r.case.metadata.get("lang") == lang])
                                        for lang in langs}
    answered = [r for r in questions if r.output.data.get("answered")]
    if answered:
        cites = sum(int(r.score.metrics.get("cited") or 0) for r in answered)
        gold = sum(int(r.score.metrics.get("cited_gold") or 0) for r in answered)
        out["answers"] = {
            "questions": len(answered), "citation_correct": round(gold / cites, 4) if cites else None,
            "answered_with_a_gold_citation": share([bool(r.score.metrics.get("cited_gold")) for r in answered]),
            "not_found": share([not r.score.metrics.get("cited") for r in answered]),
            "grounding": mean([r.output.data.get("grounding") for r in answered]),
            "refine_iterations": mean([r.output.data.get("iterations") for r in answered]),
            "errors": sum(bool(r.output.error) for r in answered)}
    traps = [r for r in pairs if r.case.expected == "miss"]
    paraphrases = [r for r in pairs if r.case.expected == "hit"]
    out["cache"] = {"trap_pairs": len(traps), "trap_false_hits": sum(bool(r.output.data.get("hit")) for r in traps),
                    "trap_false_hits_threshold_only": sum(bool(r.output.data.get("threshold_hit")) for r in traps),
                    "paraphrase_pairs": len(paraphrases),
                    "paraphrase_hits": sum(bool(r.output.data.get("hit")) for r in paraphrases)}
    flagged = [r for r in alarms if r.output.data.get("flagged")]
    due = [r for r in alarms if r.case.expected]
    out["emergency"] = {"messages": len(alarms), "due": len(due),
                        "precision": round(sum(bool(r.case.expected) for r in flagged) / len(flagged), 4)
                        if flagged else None,
                        "recall": round(sum(bool(r.output.data.get("flagged")) for r in due) / len(due), 4)
                        if due else None,
                        "missed": sum(not r.output.data.get("flagged") for r in due),
                        "false_alarms": sum(not r.case.expected for r in flagged)}
    return out


def _retrieval(rows: Sequence[CaseResult]) -> dict[str, dict[str, float | None]]:
    keys = (f"recall@{K}", f"precision@{K}", "mrr", "ndcg@10")

    return {m: {k: mean([r.score.metrics.get(f"{m}.{k}") for r in rows]) for k in keys} for m in MODES}


def _oracle(cases: Sequence[Case], ctx: EvalContext) -> Models:
    """A scripted model that answers from the gold passages shown in its evidence (and says "not
    found" when none is there): with it, every citation must be correct, or the pipeline loses the
    passages or their numbers somewhere."""
    return Models(oracle_model({str(c.input): frozenset(c.expected) for c in cases if c.kind == "question"}))


def oracle_model(golds: Mapping[str, frozenset[str]]) -> Any:
    """The oracle over ``golds`` (question text -> the passage ids it may cite)."""
    import json
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
        cited = [int(m.group(1)) for m in re.finditer(r"^\[(\d+)\] [^\n]*\(([^()\n]+)\)$", evidence, re.MULTILINE)
                 if m.group(2) in gold]
        if not cited:
            return "문서에서 찾지 못했습니다."
        return " ".join(f"The answer is in this passage [{n}]." for n in cited)

    return FunctionChatModel(function=reply)


EVALUATION = Evaluation(
    agent="rag",
    load=load_cases,
    start=_start,
    scorer=score,
    summarize=summarize,
    datasets=DATASETS,
    headline=(f"retrieval.rerank.recall@{K}", "retrieval.rerank.mrr", f"retrieval.hybrid.recall@{K}",
              "retrieval.hybrid.mrr", f"retrieval.bm25.recall@{K}", f"retrieval.dense.recall@{K}",
              "answers.citation_correct", "cache.trap_false_hits", "emergency.precision", "emergency.recall"),
    groups=("kind", "lang"),
    oracle=_oracle,
    options_model=EvalOptions,
    select=_select,
    description="Retrieval (BM25 / dense / hybrid), cited answers, cache traps and paraphrases, and emergency "
                "notices of the rag agent.",
)
