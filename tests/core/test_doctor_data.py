"""``graphagents doctor`` checks each built-in agent's bundled data and index (issue 22 §1), and a
broken piece of data is a FAIL line naming it, not a pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_cli import run_cli

from graphagents.registry import DoctorContext, all_specs
from graphagents.settings import get_settings


def agent_checks(name: str, **options: Any) -> dict[str, Any]:
    spec = all_specs()[name]
    assert spec.doctor is not None, name
    return {c.name: c for c in spec.doctor(DoctorContext(get_settings(), name, options))}


def test_doctor_checks_every_agents_data_on_a_fresh_data_dir(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, "doctor")
    assert code == 0, out
    for line in ("ok   rag corpus: bundled MedQuAD, 1,996 passages", "ok   rag vectors: 1,953 shipped vectors",
                 "ok   rag index:", "ok   supervisor statutes: 81 articles of 4 laws",
                 "ok   supervisor market data: 284 transactions (synthetic)", "ok   tableqa example tables:",
                 "ok   tableqa dev set: WTQ: 180 questions", "ok   text2sql dev set: defog: 110 questions",
                 "ok   slotfill scenario:"):
        assert line in out, line


def test_stale_shipped_vectors_fail_the_rag_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Vectors that do not cover the corpus (an edited corpus, an old file) are a FAIL that says how
    to rebuild them, because the first question would then embed the rest for minutes."""
    from graphagents.errors import ConfigError
    from graphagents.packagedata import package_path as real
    from graphagents.retrieval import FakeEmbedder, write_seed

    class Named(FakeEmbedder):
        name = "offline:use-multilingual-v3"

    from graphagents.agents.rag.corpus import medical_corpus_path
    from graphagents.retrieval import read_documents

    first = read_documents(medical_corpus_path())[0].index_text
    write_seed(tmp_path / "data" / "medquad" / "vectors-offline.npz", Named(dim=512), [first])

    def package_path(package: str, *parts: str) -> Path:
        if parts[-1] == "vectors-offline.npz":
            return tmp_path.joinpath(*parts)
        return real(package, *parts)

    monkeypatch.setattr("graphagents.packagedata.package_path", package_path)
    with pytest.raises(ConfigError, match=r"cover 1 of 1,953 passage texts: rebuild them with scripts/build_rag"):
        agent_checks("rag")["rag vectors"].run()


def test_a_corpus_option_that_does_not_exist_fails_the_rag_check() -> None:
    from graphagents.errors import ConfigError

    with pytest.raises(ConfigError, match="corpus not found: /no/such/corpus"):
        agent_checks("rag", corpus=["/no/such/corpus"])["rag corpus"].run()


def test_a_dataset_folder_without_statutes_fails_the_supervisor_check(tmp_path: Path) -> None:
    from graphagents.errors import ConfigError

    with pytest.raises(ConfigError, match="laws/articles.jsonl is missing"):
        agent_checks("supervisor", data=str(tmp_path))["supervisor statutes"].run()


def test_a_check_text_with_brackets_is_printed_as_written(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """rich markup must not eat "[local]" out of "pip install 'graphagents[local]'"."""
    from graphagents.cli import doctor

    monkeypatch.setattr(doctor, "_local_model", lambda: "missing (pip install 'graphagents[local]')")
    _, out, _ = run_cli(monkeypatch, capsys, "doctor")
    assert "pip install 'graphagents[local]'" in out
