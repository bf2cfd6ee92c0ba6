"""Calibrate the rag agent's two similarity thresholds on the medical dev questions (offline encoder).

- ``compose.SUPPORT_THRESHOLD`` (question vs sentence: may this sentence be quoted as an answer?):
  for each question, the best cosine between the question and the sentences of its gold passages
  (answerable) vs the best cosine against the gold passages of another, unrelated question (what the
  composer sees when retrieval found nothing relevant). Printed: the share of each above candidate
  thresholds.
- ``judge.GROUNDING_THRESHOLD`` (answer sentence vs evidence sentence: is it supported?): the best
  cosine between a sentence and the sentences of passages about other questions (unsupported: the
  false-support rate) vs the same sentence reworded by dropping its first clause words and changing
  case (a light paraphrase of supported text: the true-support rate).

Usage: ``.venv/bin/python bench/rag_calibrate.py [--n 60] [--lang en|ko]``
"""

from __future__ import annotations

import argparse
import json
import random

import numpy as np

from graphagents.agents.rag.corpus import medical_corpus_path
from graphagents.packagedata import package_path
from graphagents.retrieval import load_embedder, sentences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=60)
    args = parser.parse_args()
    qpath = package_path("graphagents.agents.rag", "evaldata", "dev_questions.jsonl")
    cpath = medical_corpus_path()
    rng = random.Random(3)
    questions = [json.loads(line) for line in qpath.read_text(encoding="utf-8").splitlines()]
    questions = rng.sample(questions, min(args.n, len(questions)))
    texts = {r["id"]: r["text"] for r in map(json.loads, cpath.read_text(encoding="utf-8").splitlines())}
    embedder = load_embedder()

    def sentence_matrix(ids: list[str]) -> tuple[list[str], np.ndarray]:
        sents = [s for i in ids if i in texts for s in sentences(texts[i]) if len(s) >= 20][:80]
        return sents, (embedder.embed(sents) if sents else np.zeros((0, embedder.dim), np.float32))

    rows = []
    for q in questions:
        sents, matrix = sentence_matrix(q["relevant_passage_ids"])
        if not sents:
            continue
        rows.append((q, sents, matrix))
    answerable = {"en": [], "ko": []}
    unrelated = {"en": [], "ko": []}
    false_support, true_support = [], []
    for i, (q, sents, matrix) in enumerate(rows):
        other_sents, other = rows[(i + len(rows) // 2) % len(rows)][1:]
        for lang, key in (("en", "question"), ("ko", "question_ko")):
            v = embedder.embed_one(q[key])
            answerable[lang].append(float((matrix @ v).max()))
            unrelated[lang].append(float((other @ v).max()))
        picked = sents[: min(3, len(sents))]
        vecs = embedder.embed(picked)
        false_support.extend((vecs @ other.T).max(axis=1).tolist())
        reworded = [" ".join(s.split()[2:]).lower() or s for s in picked]
        rvecs = embedder.embed(reworded)
        true_support.extend((rvecs @ matrix.T).max(axis=1).tolist())
    print(f"{len(rows)} questions")
    print("SUPPORT (question vs best sentence): share above threshold")
    print("threshold  en-answerable  en-unrelated  ko-answerable  ko-unrelated")
    for t in (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5):
        print(f"{t:>9.2f}  " + "  ".join(f"{np.mean(np.array(d[lang]) >= t):>12.1%}"
                                         for lang in ("en", "ko") for d in (answerable, unrelated)))
    print("GROUNDING (answer sentence vs evidence sentences): share called supported")
    print("threshold  reworded-supported  unrelated (false support)")
    for t in (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8):
        supported = np.mean(np.array(true_support) >= t)
        print(f"{t:>9.2f}  {supported:>18.1%}  {np.mean(np.array(false_support) >= t):>12.1%}")


if __name__ == "__main__":
    main()
