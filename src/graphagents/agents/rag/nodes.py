"""The rag graph's nodes: check_similarity, classify_intent, extract_slots, store_memory,
assemble_context, retrieve, generate_answer, refine, store_response (the design note's flow).

Every node returns an update; none mutates the state it is given. Every model call goes through
the core's structured output (``ask_json``: validation, one repair, then the offline result), so a
model that answers garbage never ends a conversation.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.errors import GraphBubbleUp
from langgraph.types import Overwrite

from graphagents.cache import SemanticCache, slot_signature
from graphagents.errors import ModelRequestsBlocked
from graphagents.events import DecisionEvent, emit
from graphagents.llm import ask_json
from graphagents.llm.answer import stream_answer
from graphagents.llm.degrade import report_degraded
from graphagents.settings import Settings

from . import language, profile_notes
from .compose import NOT_FOUND_EN, NOT_FOUND_KO, SentenceIndex, compose, safety_note
from .corpus import Corpus, corpus_for
from .emergency import EMERGENCY_TOPICS
from .intent import DYNAMIC_K, IntentDecision, classify_offline
from .judge import JudgeFeedback, RewrittenQuery, offline_feedback, offline_rewrite
from .options import RagOptions, effective_settings
from .profiles import ProfileStore, normalised, profile_store_for
from .prompts import PROMPTS, data, neutralise
from .query import is_korean, profile_relevant, profile_terms, retrieval_query
from .rerank import search as rerank_search
from .state import PER_TURN_RESET
from .tokens import TokenCounter, TokenPlan

if TYPE_CHECKING:
    from graphagents.registry import BuildContext

log = logging.getLogger("graphagents.agents.rag")

__all__ = ["CACHE_LABEL", "CACHE_NAMESPACE", "Nodes", "RagContext", "cache_key"]

CACHE_LABEL = "answers"
CACHE_NAMESPACE = "rag:answers"
"""``BuildContext.semantic_cache(CACHE_LABEL)`` of the rag agent: the cache's name in Redis."""
HISTORY_TURNS = 6
MIN_GAIN = 0.05
PUBLIC_TEXT = 400


@dataclass
class RagContext:
    """What the nodes share: options, settings, the embedder, models per role, and the services
    (corpus, profile store, semantic cache) opened on first use."""

    options: RagOptions
    settings: Settings
    embedder: Any
    services: BuildContext  # the runtime's: the BaseStore (profiles), the semantic cache, the app database
    models: Mapping[str, Any] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _corpus: Corpus | None = field(default=None, repr=False)

    def model(self, role: str) -> Any:
        return self.models.get(role)

    @property
    def corpus(self) -> Corpus:
        with self._lock:
            if self._corpus is None:
                self._corpus = corpus_for(self.options.store_url, self.options.store_name, self.embedder,
                                          self.options.corpus)
            return self._corpus

    @property
    def profiles(self) -> ProfileStore:
        return profile_store_for(self.services.store, self.services.database)

    @property
    def cache(self) -> SemanticCache:
        return self.services.semantic_cache(CACHE_LABEL)


def cache_key(text: str, stored_profile: Mapping[str, Any]) -> tuple[dict[str, str], str]:
    """The slots a cached answer to ``text`` depends on, and their signature: the question's own
    (drugs, doses and other numbers with units, age group, conditions) read against the profile as it
    will be after this message, plus a digest of that profile (an answer written for one profile is
    never served for another)."""
    profile = language.merge_profile(dict(stored_profile), language.extract_slots(text))
    slots = {**language.question_signature(text, profile), "profile": _digest(normalised(profile))}
    return slots, slot_signature(slots)


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _slots_dict(update: Any) -> dict[str, Any]:
    out = {slot: getattr(update, slot) for slot in language.SLOTS}
    out["removals"] = [list(r) for r in getattr(update, "removals", [])]
    return out


def _public_doc(doc: Mapping[str, Any]) -> dict[str, Any]:
    text = str(doc.get("text", ""))
    return {"id": doc.get("id"), "title": doc.get("title", ""),
            "text": text if len(text) <= PUBLIC_TEXT else text[: PUBLIC_TEXT - 1].rstrip() + "…",
            "score": doc.get("score"), "bm25_rank": doc.get("bm25_rank"), "dense_rank": doc.get("dense_rank"),
            "iteration": doc.get("iteration", 0)}


class Nodes:
    def __init__(self, rctx: RagContext) -> None:
        self.r = rctx
        self.counter = TokenCounter(rctx.model("answer"))

    # ----- helpers -----------------------------------------------------------------------------------

    def _turn_settings(self, state: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any], str]:
        flags = state.get("feature_flags")
        config = state.get("agent_config")
        mode = state.get("mode")
        if flags and config and mode:
            return dict(flags), dict(config), str(mode)
        return effective_settings(self.r.options, state.get("session_options") or {})

    def _vector(self, text: str) -> np.ndarray:
        return np.asarray(self.r.embedder.embed_one(text), np.float32)

    def _stored_profile(self, user_id: str) -> dict[str, Any]:
        return self.r.profiles.get(user_id).profile

    # ----- check_similarity -------------------------------------------------------------------------

    def check_similarity(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """Emergency first (whatever else happens), then the semantic cache: a hit needs the same user
        (scope), the same slot signature (drugs, doses, numbers, age group, conditions, the profile the
        answer was written for) AND cosine >= cache_threshold."""
        text = str(state.get("user_text", ""))
        flags, config, mode = self._turn_settings(state)
        # A new question: the last turn's per-question fields go (the profile and history stay). Here,
        # not in the caller's input, so that every caller gets it (LangGraph's own server included).
        update: dict[str, Any] = {**PER_TURN_RESET, "feature_flags": flags, "agent_config": config, "mode": mode}
        emergency = language.detect_emergency(text)
        update["emergency"] = {"kind": emergency.kind, "notice": emergency.notice} if emergency else None
        if emergency:
            emit(DecisionEvent("emergency", emergency.kind, "urgent symptoms: the emergency notice comes first"))
        if mode == "llm" or not self.r.options.cache_enabled:
            return update
        user_id = str(state.get("user_id") or "anonymous")
        slots, signature = cache_key(text, self._stored_profile(user_id))
        vector = self._vector(text)
        update.update({"cache_signature": signature, "cache_slots": slots, "query_vector": vector.tolist()})
        hit = self.r.cache.lookup(text, scope=user_id, signature=signature, vector=vector,
                                  threshold=float(config["cache_threshold"]))
        if hit is None:
            return update
        value = hit.value if isinstance(hit.value, Mapping) else {}
        emit(DecisionEvent("cache", "hit", f"similar question already answered (cosine {hit.similarity:.3f}, "
                           "same user, same slots)", {"cached_question": hit.text}))
        docs = [dict(d) for d in value.get("docs", [])]
        return {**update, "cache_hit": True, "cached_response": str(value.get("answer", "")),
                "cache_similarity_score": hit.similarity, "skip_pipeline": True,
                "answer": str(value.get("answer", "")), "citations": list(value.get("citations", [])),
                "retrieved_docs": Overwrite(docs), "not_found": bool(value.get("not_found", False)),
                "query_complexity": value.get("intent"), "dynamic_k": value.get("dynamic_k")}

    # ----- classify_intent --------------------------------------------------------------------------

    def classify_intent(self, state: Mapping[str, Any]) -> dict[str, Any]:
        text = str(state.get("user_text", ""))
        flags, agent_config, _ = self._turn_settings(state)
        decision = classify_offline(text)
        model = self.r.model("intent")
        if model is not None:
            decision = ask_json(model, PROMPTS.render("intent.txt", question=text), IntentDecision, decision,
                                step="intent")
        k = DYNAMIC_K[decision.intent]
        if decision.intent != "greeting" and not flags["active_retrieval_enabled"]:
            k = int(agent_config["retrieval_k"])
        return {"query_complexity": decision.intent, "intent_reason": decision.reason, "dynamic_k": k,
                "needs_retrieval": k > 0}

    # ----- extract_slots ----------------------------------------------------------------------------

    def extract_slots(self, state: Mapping[str, Any]) -> dict[str, Any]:
        text = str(state.get("user_text", ""))
        update = language.extract_slots(text)
        model = self.r.model("slots")
        if model is not None:
            update = _model_slots(model, text, update)
        return {"slot_out": _slots_dict(update)}

    # ----- store_memory -----------------------------------------------------------------------------

    def store_memory(self, state: Mapping[str, Any]) -> dict[str, Any]:
        user_id = str(state.get("user_id") or "anonymous")
        store = self.r.profiles
        before = store.get(user_id).profile
        slot_out = state.get("slot_out") or {}
        update = language.SlotUpdate(**{k: slot_out.get(k) or type(getattr(language.SlotUpdate(), k))()
                                        for k in language.SLOTS},
                                     removals=[(str(r[0]), str(r[1])) for r in slot_out.get("removals", [])])
        after = normalised(language.merge_profile(before, update))
        if after != before:
            store.put(user_id, after)
            emit(DecisionEvent("profile", "updated", "new health information merged into the profile",
                               {"slots": [s for s in language.SLOTS if after[s] != before[s]]}))
        text = str(state.get("user_text", ""))
        korean = is_korean(text)
        notes = profile_notes.changes(before, after, korean)
        unread = profile_notes.unreadable_drugs(text)
        if unread:
            names = ", ".join(unread)
            notes.append(f"'{names}'은(는) 약 이름으로 알아보지 못해 프로필에 넣지 않았어요. 성분명이나 제품명을 "
                         "다시 알려 주세요." if korean else
                         f"I could not read {names!r} as a medicine name, so it is not in your profile; tell me "
                         "its generic or brand name.")
        return {"profile": after, "profile_summary": language.profile_summary(after),
                "profile_store": store.describe(), "profile_changes": notes}

    # ----- assemble_context -------------------------------------------------------------------------

    def assemble_context(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """The note's token plan, filled by priority: system, query, profile, history, evidence (cut by
        whole passages; evidence may use what profile and history leave)."""
        text = str(state.get("user_text", ""))
        _, config, _ = self._turn_settings(state)
        plan = TokenPlan(int(config["context_window"]), self.counter)
        system = plan.fit_text("system", PROMPTS.render("system.txt"))
        question = plan.fit_text("query", text)
        profile = data(plan.fit_text("profile", str(state.get("profile_summary") or "(없음)")), "profile")
        turns = [t for t in str(state.get("conversation_history") or "").split("\n\n") if t.strip()]
        kept_turns = plan.fit_items("history", turns, newest_last=True)
        history = data("\n\n".join(turns[i] for i in kept_turns) or "(없음)", "history")
        evidence_docs = self._evidence(state)
        extra = plan.spare("profile", "history")
        flags = state.get("feature_flags") or {}
        blocks = [self._evidence_block(n + 1, d, text if flags.get("context_compression_enabled") else None)
                  for n, d in enumerate(evidence_docs)]
        kept = plan.fit_items("evidence", blocks, extra=extra)
        evidence = "\n\n".join(_renumber(blocks[i], j + 1) for j, i in enumerate(kept)) or "(검색된 문서 없음)"
        plan.used["generation"] = 0
        user_prompt = PROMPTS.render("answer.txt", profile=profile, history=history, evidence=evidence,
                                     question=neutralise(question))
        update: dict[str, Any] = {
            "system_prompt": system, "user_prompt": user_prompt, "context_prompt": f"{system}\n\n{user_prompt}",
            "token_plan": {**plan.to_dict(), "evidence_passages": [evidence_docs[i]["id"] for i in kept],
                           "evidence_dropped": len(evidence_docs) - len(kept)},
            "evidence_ids": [evidence_docs[i]["id"] for i in kept],
        }
        if not state.get("query_for_retrieval"):
            profile_value = state.get("profile") or {}
            query = retrieval_query(text, profile_value, extra=language.named_terms(text))
            update["query_for_retrieval"] = query
            update["query_rewrite_history"] = [query]
        return update

    def _evidence(self, state: Mapping[str, Any]) -> list[dict[str, Any]]:
        """This turn's passages, each once (by content hash), the first retrieval's first."""
        seen: set[str] = set()
        out: list[dict[str, Any]] = []
        for doc in sorted(state.get("retrieved_docs") or [], key=lambda d: (d.get("iteration", 0), d.get("rank", 0))):
            key = str(doc.get("hash") or doc.get("id"))
            if key not in seen:
                seen.add(key)
                out.append(doc)
        return out

    def _evidence_block(self, n: int, doc: Mapping[str, Any], compress_for: str | None) -> str:
        body = str(doc.get("text", ""))
        if compress_for:
            body = self._compress(compress_for, body)
        title = neutralise(" ".join(str(doc.get("title") or "").split()))
        return f"[{n}] {title} ({doc.get('id')})\n{data(body, 'passage')}"

    def _compress(self, question: str, body: str, keep: int = 3) -> str:
        index = SentenceIndex.build([{"text": body}], self.r.embedder)
        if len(index.items) <= keep:
            return body
        sims = index.similarities(self._vector(question))
        best = sorted(np.argsort(-sims)[:keep].tolist())
        return " ".join(index.items[i].text for i in best)

    # ----- retrieve ---------------------------------------------------------------------------------

    def retrieve(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """Hybrid BM25 + dense with RRF (k = 60) over the corpus, its top 20 reranked by topic and
        aspect (``rerank.py``, the default ``retrieval_mode``); passages deduplicated by content hash
        across this turn's iterations (their hashes kept per iteration)."""
        iteration = int(state.get("iteration_count") or 0)
        _, config, _ = self._turn_settings(state)
        k = int(state.get("dynamic_k") or config["retrieval_k"])
        query = str(state.get("query_for_retrieval") or state.get("user_text", ""))
        store = self.r.corpus.ensure()
        vector = None
        if iteration == 0 and query == state.get("user_text") and state.get("query_vector"):
            vector = np.asarray(state["query_vector"], np.float32)
        text = str(state.get("user_text", ""))
        hits = rerank_search(store, text, query, k=k, mode=config["retrieval_mode"], vector=vector,
                             weights=(1.0, float(config["dense_weight"])), named=language.named_terms(text))
        history = [list(h) for h in state.get("retrieved_docs_history") or []]
        seen = {h for hashes in history for h in hashes}
        docs = []
        hashes = []
        for rank, hit in enumerate(hits, start=1):
            digest = hashlib.sha256(hit.text.encode("utf-8")).hexdigest()[:16]
            hashes.append(digest)
            if digest in seen:
                continue
            seen.add(digest)
            meta = hit.metadata or {}
            doc_meta = meta.get("doc") if isinstance(meta.get("doc"), Mapping) else {}
            heading = meta.get("source_question") or meta.get("section") or ""
            docs.append({"id": hit.id, "title": str(meta.get("title") or ""), "heading": str(heading), "text": hit.text,
                         "score": hit.score, "bm25_rank": hit.bm25_rank, "dense_rank": hit.dense_rank,
                         "iteration": iteration, "rank": rank, "hash": digest,
                         "url": doc_meta.get("url") if isinstance(doc_meta, Mapping) else None})
        update: dict[str, Any] = {"retrieved_docs": docs, "retrieved_docs_history": [*history, hashes],
                                  "retrieved_iteration": iteration}
        if iteration > 0 and not docs:
            reason = "the new retrieval brought only passages already seen"
            update.update(self._log_decision(state, "stop", reason, query=query))
            update["needs_retrieval"] = False
            update["refine_stop_reason"] = reason
        return update

    # ----- generate_answer --------------------------------------------------------------------------

    def generate_answer(self, state: Mapping[str, Any]) -> dict[str, Any]:
        text = str(state.get("user_text", ""))
        korean = is_korean(text)
        _, agent_config, mode = self._turn_settings(state)
        model = self.r.model("answer")
        if mode == "llm":
            return self._baseline(state, model, korean)
        if state.get("query_complexity") == "greeting":
            summary = str(state.get("profile_summary") or "")
            if korean:
                answer = ("안녕하세요! 건강이나 약에 대해 궁금한 점을 물어보세요. "
                          "의료 문서에서 근거를 찾아 출처와 함께 답해 드립니다.")
                if summary:
                    answer += f"\n(기억하고 있는 정보: {summary})"
            else:
                answer = ("Hello! Ask me about a health condition or a medicine; I answer from medical documents "
                          "and cite them.")
            return {"answer": answer, "citations": [], "not_found": False}
        docs = [d for d in self._evidence(state) if d["id"] in set(state.get("evidence_ids") or [])]
        vector = self._vector(text)
        index = SentenceIndex.build(docs, self.r.embedder)
        gloss = str((state.get("query_rewrite_history") or [""])[0])
        gloss_vector = self._vector(gloss) if gloss and gloss != text and is_korean(text) else None
        emergency = state.get("emergency") if isinstance(state.get("emergency"), Mapping) else None
        required = EMERGENCY_TOPICS.get(str(emergency.get("kind")), ()) if emergency else None
        offline = compose(text, docs, index, vector, intent=str(state.get("query_complexity") or "moderate"),
                          extra_terms=_relevant_terms(state), gloss_vector=gloss_vector, required=required,
                          entity_docs=self._entity_docs)
        citations = [{**self._cite(docs[c["doc_index"]]), "ref": c["ref"]} for c in offline.citations]
        result = {"answer": offline.answer, "citations": citations, "not_found": offline.not_found}
        if emergency:  # after the notice: only what the documents say about the symptom, or nothing
            if offline.not_found or not citations:
                line = ("위 응급 안내를 먼저 따르세요. 이 상황에 맞는 문서 내용은 인용하지 않았습니다." if korean else
                        "Please follow the emergency advice above first; no document text is quoted for this.")
                return {"answer": line, "citations": [], "not_found": False}
            return result
        if model is not None and docs:
            result = self._model_answer(state, model, docs) or result
        return result

    def _entity_docs(self, names: Sequence[str]) -> list[dict[str, Any]]:
        """Passages that name ``names`` (BM25 on the names alone): what a "not found" reply says the
        documents do cover."""
        hits = self.r.corpus.ensure().search(" ".join(names), k=8, mode="bm25")
        out = []
        for hit in hits:
            meta = hit.metadata or {}
            out.append({"id": hit.id, "title": str(meta.get("title") or ""), "text": hit.text,
                        "heading": str(meta.get("source_question") or meta.get("section") or "")})
        return out

    def _cite(self, doc: Mapping[str, Any]) -> dict[str, Any]:
        return {"id": doc["id"], "title": doc.get("title", ""), "url": doc.get("url"),
                "text": _public_doc(doc)["text"]}

    def _model_answer(self, state: Mapping[str, Any], model: Any,
                      docs: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
        import re

        _, agent_config, _ = self._turn_settings(state)
        model = configured(model, agent_config)
        korean = is_korean(str(state.get("user_text", "")))
        try:  # streamed: the page and the CLI show the answer as it comes
            answer = stream_answer(model, [SystemMessage(str(state.get("system_prompt", ""))),
                                           HumanMessage(str(state.get("user_prompt", "")))], korean=korean,
                                   limit=self.r.settings.max_model_output_chars).text
        except (ModelRequestsBlocked, GraphBubbleUp):
            raise
        except Exception as exc:  # a provider failure keeps the offline answer
            report_degraded("answer", exc)
            return None
        if not answer:  # empty, or only a tool call: the offline answer, said so
            report_degraded("answer", reason="empty")
            return None
        used = sorted({int(n) for n in re.findall(r"\[(\d+)\]", answer) if 1 <= int(n) <= len(docs)})
        answer = re.sub(r"\[(\d+)\]", lambda m: m.group(0) if 1 <= int(m.group(1)) <= len(docs) else "", answer)
        not_found = not used and (NOT_FOUND_KO[:10] in answer or "could not find" in answer.lower()
                                  or "찾지 못했" in answer)
        citations = [{**self._cite(docs[n - 1]), "ref": n} for n in used]
        return {"answer": answer, "citations": citations, "not_found": not_found}

    def _baseline(self, state: Mapping[str, Any], model: Any, korean: bool) -> dict[str, Any]:
        """The note's ``llm`` mode: the model alone (no retrieval, no cache, no profile)."""
        if model is None:
            answer = ("llm 모드(기준선)는 언어 모델이 필요합니다: --llm provider:model 로 모델을 지정하거나 "
                      "ai_agent 모드를 쓰세요." if korean else
                      "The llm (baseline) mode needs a language model: pass --llm provider:model, or use the "
                      "ai_agent mode.")
            return {"answer": answer, "citations": [], "not_found": True}
        prompt = PROMPTS.render("baseline.txt", history=str(state.get("conversation_history") or "(없음)"),
                                question=str(state.get("user_text", "")))
        try:  # streamed, capped and cleaned like the pipeline's answer
            answer = stream_answer(model, [HumanMessage(prompt)], korean=korean,
                                   limit=self.r.settings.max_model_output_chars).text
        except (ModelRequestsBlocked, GraphBubbleUp):
            raise
        except Exception as exc:  # the baseline has no offline answer: it says so
            report_degraded("baseline", exc)
            answer = ""
        if not answer:
            answer = "모델이 답하지 못했습니다." if korean else "The model gave no answer."
        return {"answer": answer, "citations": [], "not_found": False}

    # ----- refine -----------------------------------------------------------------------------------

    def refine(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """Judge the answer; retrieve again (with a rewritten query) when overall < quality_threshold,
        at most max_refine_iterations times; stop early when the score stops improving."""
        flags, _, _ = self._turn_settings(state)
        iteration = int(state.get("iteration_count") or 0)
        text = str(state.get("user_text", ""))
        query = str(state.get("query_for_retrieval") or text)
        if not flags["quality_check_enabled"]:
            return {**self._log_decision(state, "accept", "quality check disabled", query=query),
                    "needs_retrieval": False}
        feedback = self._judge(state, flags)
        overall = float(feedback["overall_score"])
        scores = [*(state.get("quality_score_history") or []), overall]
        best = dict(state.get("best_answer") or {})
        current = {"answer": state.get("answer", ""), "citations": state.get("citations", []),
                   "not_found": state.get("not_found", False), "score": overall, "iteration": iteration}
        if not best or overall > float(best.get("score", -1)):
            best = current
        update: dict[str, Any] = {"quality_score": overall, "quality_feedback": feedback,
                                  "quality_score_history": scores, "best_answer": best}
        concerns = [str(c) for c in feedback.get("safety_concerns") or [] if str(c).strip()]
        if concerns:  # said to the user with the answer, whatever the scores (store_response adds it)
            update["safety_concerns"] = list(dict.fromkeys([*(state.get("safety_concerns") or []), *concerns]))[:5]
            emit(DecisionEvent("safety", "warn", "the judge raised safety concerns; the answer carries a warning",
                               {"concerns": update["safety_concerns"]}))
        threshold = float(flags["quality_threshold"])
        if overall >= threshold:
            decision, reason = "accept", f"overall {overall:.2f} >= threshold {threshold:.2f}"
        elif not flags["self_refine_enabled"]:
            decision, reason = "stop", "self-refine disabled"
        elif iteration >= int(flags["max_refine_iterations"]):
            decision, reason = "stop", f"reached max_refine_iterations ({flags['max_refine_iterations']})"
        elif len(scores) >= 2 and scores[-1] - scores[-2] < MIN_GAIN:
            decision, reason = "stop", f"score stopped improving (gain {scores[-1] - scores[-2]:+.2f} < {MIN_GAIN})"
        else:
            decision, reason = "retrieve_again", f"overall {overall:.2f} < threshold {threshold:.2f}"
        if decision == "retrieve_again":
            missing = [str(m) for m in feedback.get("missing_info") or []]
            new_query = self._rewrite(state, flags, text, query, missing)
            k = int(state.get("dynamic_k") or 0)
            deeper = next((v for v in sorted(DYNAMIC_K.values()) if v > k), None)
            if new_query.strip().lower() == query.strip().lower() and deeper is None:
                decision, reason = "stop", "nothing to add to the query and k is at its largest"
            else:
                if new_query.strip().lower() == query.strip().lower():
                    reason += f"; nothing to add to the query, so deeper: k {k} -> {deeper}"
                    update["dynamic_k"] = deeper
                update.update(self._log_decision(state, decision, reason, query=new_query, feedback=feedback))
                return {**update, "needs_retrieval": True, "iteration_count": iteration + 1,
                        "query_for_retrieval": new_query,
                        "query_rewrite_history": [*(state.get("query_rewrite_history") or []), new_query]}
        update.update(self._log_decision(state, decision, reason, query=query, feedback=feedback))
        update.update({"needs_retrieval": False, "refine_stop_reason": "" if decision == "accept" else reason})
        if best and best.get("iteration") != iteration:  # an earlier round scored better: keep its answer
            update.update({"answer": best["answer"], "citations": best["citations"], "not_found": best["not_found"]})
        return update

    def _judge(self, state: Mapping[str, Any], flags: Mapping[str, Any]) -> dict[str, Any]:
        """The model judge's verdict when one is configured (its overall score recomputed from its
        parts), else, or when its verdict is unusable, the offline judge's. The offline judge embeds
        every sentence of the answer, so it runs only when its verdict is used (issue 26, item 7)."""
        text = str(state.get("user_text", ""))
        answer = str(state.get("answer", ""))
        docs = [d for d in self._evidence(state) if d["id"] in set(state.get("evidence_ids") or [])]
        model = self.r.model("judge")
        fallback_note = ""
        if model is not None and flags["llm_based_quality_check"]:
            evidence = "\n\n".join(
                f"[{n}] {neutralise(str(d.get('title', '')))}\n{data(str(d.get('text', '')), 'passage')}"
                for n, d in enumerate(docs, 1))
            prompt = PROMPTS.render("judge.txt", question=neutralise(text),
                                    profile=data(str(state.get("profile_summary") or "(없음)"), "profile"),
                                    evidence=evidence or "(없음)", answer=data(answer, "answer"))
            judged = ask_json(model, prompt, JudgeFeedback, None, step="judge")
            if judged is not None:
                return model_verdict(judged)
            fallback_note = "offline (the model's verdict was unusable)"
        index = SentenceIndex.build(docs, self.r.embedder)
        relevant = _relevant_terms(state)
        cited = {c.get("id") for c in state.get("citations") or []}
        titles = [str(d.get("title", "")) for d in docs if d["id"] in cited]
        offline = offline_feedback(text, answer, index, self.r.embedder, relevant_terms=relevant, cited_titles=titles)
        return {**offline, "judge": fallback_note} if fallback_note else offline

    def _rewrite(self, state: Mapping[str, Any], flags: Mapping[str, Any], text: str, query: str,
                 missing: Sequence[str]) -> str:
        profile = state.get("profile") or {}
        offline = offline_rewrite(text, query, missing, profile)
        if not flags["dynamic_query_rewrite"]:
            return query + " " + " ".join(m for m in missing if m.lower() not in query.lower())
        model = self.r.model("rewrite")
        if model is None:
            return offline
        prompt = PROMPTS.render("rewrite.txt", question=text, query=query, missing=", ".join(missing) or "(없음)")
        rewritten = ask_json(model, prompt, RewrittenQuery, None, step="rewrite")
        return offline if rewritten is None else rewritten.query.strip()

    def _log_decision(self, state: Mapping[str, Any], decision: str, reason: str, *, query: str,
                      feedback: Mapping[str, Any] | None = None) -> dict[str, Any]:
        feedback = feedback or state.get("quality_feedback") or {}
        entry = {"iteration": int(state.get("iteration_count") or 0), "overall": feedback.get("overall_score"),
                 "grounding": feedback.get("grounding_score"), "completeness": feedback.get("completeness_score"),
                 "decision": decision, "reason": reason, "query": query}
        emit(DecisionEvent("refine", decision, reason, {k: v for k, v in entry.items() if k != "reason"}))
        return {"refine_iteration_logs": [*(state.get("refine_iteration_logs") or []), entry]}

    # ----- store_response ---------------------------------------------------------------------------

    def store_response(self, state: Mapping[str, Any]) -> dict[str, Any]:
        text = str(state.get("user_text", ""))
        korean = is_korean(text)
        answer = str(state.get("answer") or "")
        if not answer:
            reason = state.get("stop_reason")
            answer = ("이번 질문은 처리 단계 한도에 도달해 답을 마치지 못했습니다. 다시 질문해 주세요." if korean else
                      "This question hit the step limit before an answer was ready; please ask again.") \
                if reason else (NOT_FOUND_KO if korean else NOT_FOUND_EN) + "\n\n" + safety_note(korean)
        if (state.get("answer") and not state.get("emergency") and state.get("query_complexity") != "greeting"
                and safety_note(korean) not in answer):
            answer = f"{answer}\n\n{safety_note(korean)}"  # code-side: whatever the model wrote
        concerns = [str(c) for c in state.get("safety_concerns") or []]
        if concerns and state.get("answer"):
            note = "" if safety_note(korean) in answer else f"\n{safety_note(korean)}"
            answer = f"{answer}\n\n{safety_warning(concerns, korean)}{note}"
        emergency = state.get("emergency")
        if (state.get("answer") and not state.get("cache_hit") and not emergency
                and state.get("query_complexity") != "greeting" and state.get("mode") != "llm"):
            warnings = profile_notes.profile_warnings(state.get("profile") or {}, text, self._evidence(state), korean)
            if warnings:  # code-side: whatever the model wrote, the profile's warnings are in the reply
                answer = f"{answer}\n\n" + "\n".join(warnings)
        changes = [str(c) for c in state.get("profile_changes") or []]
        head = ("(프로필: " if korean else "(Profile: ") + " ".join(changes) + ")\n\n" if changes else ""
        reply = f"{emergency['notice']}\n\n{head}{answer}" if emergency else f"{head}{answer}"
        if (not state.get("cache_hit") and state.get("mode") != "llm" and self.r.options.cache_enabled
                and state.get("cache_signature") and not state.get("not_found") and state.get("answer")
                and state.get("query_complexity") != "greeting" and not state.get("stop_reason")):
            docs = [_public_doc(d) for d in self._evidence(state)]
            value = {"answer": answer, "citations": list(state.get("citations") or []), "docs": docs,
                     "not_found": False, "intent": state.get("query_complexity"), "dynamic_k": state.get("dynamic_k")}
            vector = state.get("query_vector") or None
            self.r.cache.store(text, value, scope=str(state.get("user_id") or "anonymous"),
                               signature=str(state["cache_signature"]), vector=vector)
        turns = [t for t in str(state.get("conversation_history") or "").split("\n\n") if t.strip()]
        short = answer if len(answer) <= 300 else answer[:299] + "…"
        turns.append(f"Q: {text}\nA: {short}")
        from graphagents.artifacts import CitationArtifact

        artifacts = [CitationArtifact(source=str(c.get("id")), text=str(c.get("text", "")), url=c.get("url"),
                                      ref=f"[{c.get('ref')}]", title=str(c.get("title", ""))).to_dict()
                     for c in state.get("citations") or []]
        return {"reply": reply, "answer": reply, "conversation_history": "\n\n".join(turns[-HISTORY_TURNS:]),
                "artifacts": artifacts}


def model_verdict(judged: JudgeFeedback) -> dict[str, Any]:
    """The model judge's verdict with ``overall_score`` recomputed from its parts (the mean of
    grounding, completeness and accuracy): a judge cannot pass an answer its own parts fail.
    What it said is kept as ``reported_overall_score``."""
    verdict = judged.model_dump()
    parts = (judged.grounding_score, judged.completeness_score, judged.accuracy_score)
    verdict["reported_overall_score"] = judged.overall_score
    verdict["overall_score"] = round(sum(parts) / len(parts), 4)
    verdict["judge"] = "model"
    return verdict


def safety_warning(concerns: Sequence[str], korean: bool) -> str:
    """The warning an answer carries when the judge raised safety concerns, with the code's own
    safety note (a model cannot talk its way out of it)."""
    listed = "; ".join(" ".join(c.split())[:200] for c in concerns[:5])
    head = (f"⚠ 안전 주의: 답변 검토에서 다음 우려가 지적되었습니다: {listed}" if korean else
            f"⚠ Safety: the answer review raised these concerns: {listed}")
    return head


def configured(model: Any, agent_config: Mapping[str, Any]) -> Any:
    """The answer model with the turn's ``temperature`` and ``max_tokens`` (agent_config) when the
    model has those settings (LangChain's provider models do); other models as they are."""
    fields = getattr(type(model), "model_fields", {})
    updates = {key: agent_config[key] for key in ("temperature", "max_tokens") if key in fields and key in agent_config}
    return model.model_copy(update=updates) if updates else model


def _relevant_terms(state: Mapping[str, Any]) -> list[str]:
    """Terms the answer should cover besides the question's words: the drugs and conditions the
    question names (canonical, from its slots) and, when the question is about the user, the profile's."""
    text = str(state.get("user_text", ""))
    profile = state.get("profile") or {}
    own = profile_terms(profile) if profile and profile_relevant(text) else []
    return list(dict.fromkeys([*language.named_terms(text), *own]))


def _renumber(block: str, n: int) -> str:
    return f"[{n}]" + block[block.index("]") + 1:] if block.startswith("[") else block


def _model_slots(model: Any, text: str, offline: Any) -> Any:
    """The model's slots (validated), drug names canonicalised like the offline extractor's; the offline
    extraction when the model's answer is unusable."""
    from pydantic import BaseModel, Field

    class Medication(BaseModel):
        name: str = Field(min_length=1, max_length=100)
        dose: str | None = None
        frequency: str | None = None

    class Slots(BaseModel):
        demographics: dict[str, Any] = Field(default_factory=dict)
        conditions: list[str] = Field(default_factory=list)
        symptoms: list[str] = Field(default_factory=list)
        medications: list[Medication] = Field(default_factory=list)
        vitals: dict[str, Any] = Field(default_factory=dict)
        labs: dict[str, Any] = Field(default_factory=dict)
        removals: list[tuple[str, str]] = Field(default_factory=list)

    got = ask_json(model, PROMPTS.render("slots.txt", text=text), Slots, None, step="slots")
    if got is None:
        return offline
    grounded = _Grounding(text, offline)
    meds = []
    for m in got.medications:
        if grounded(m.name):
            meds.append({k: v for k, v in m.model_dump().items() if v and (k == "name" or grounded(v))})
    update = language.SlotUpdate(
        demographics=grounded.mapping(got.demographics), conditions=grounded.items(got.conditions),
        symptoms=grounded.items(got.symptoms), medications=meds,
        vitals=grounded.mapping(got.vitals), labs=grounded.mapping(got.labs),
        removals=[(s, v) for s, v in got.removals if s in language.SLOTS and grounded(v)])
    for name in language.SLOTS:  # what the model dropped or made up is not lost: the rules' reading stays
        if offline is not None and not getattr(update, name) and getattr(offline, name):
            setattr(update, name, getattr(offline, name))
    return update


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_WORD = re.compile(r"[a-z]{3,}|[가-힣]{2,}")


class _Grounding:
    """Is a model's slot value said in the message? A small model copies the prompt's example
    profile ("age 65, type 2 diabetes, metformin") into a question about lice; a value is kept only
    when its numbers, or else one of its words, are in the message or in the rules' own reading of it
    (which maps 당뇨 to diabetes and 하루 두 번 to 하루 2회)."""

    def __init__(self, text: str, offline: Any) -> None:
        rules = json.dumps(offline.as_dict(), ensure_ascii=False) if offline is not None else ""
        said = f"{text} {rules}".casefold()
        self.said, self.numbers = said, set(_NUMBER.findall(said))

    def __call__(self, value: Any) -> bool:
        value = str(value).casefold()
        numbers = _NUMBER.findall(value)
        if numbers:
            return all(n in self.numbers for n in numbers)
        return any(w in self.said for w in _WORD.findall(value))

    def items(self, values: list[str]) -> list[str]:
        return [v for v in values if self(v)]

    def mapping(self, values: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in values.items() if self(v)}
