"""``graphagents rag ingest`` and a user's own Korean documents: ingested, searched and cited the same
way as the English corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Any

DOC = """# 메트포르민 복용 안내

## 흔한 부작용

메트포르민의 흔한 부작용은 설사, 메스꺼움, 복부 불편감 같은 위장 증상입니다.
대개 복용 초기에 나타나고 시간이 지나면 줄어듭니다.
식사와 함께 복용하면 위장 증상을 줄일 수 있습니다.

## 드문 부작용

드물게 젖산산증이 생길 수 있으며, 신장 기능이 크게 떨어진 사람은 주의해야 합니다.
"""


def test_ingest_command_and_korean_documents(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from graphagents.agents.rag.cli import app
    from graphagents.agents.rag.spec import SPEC
    from graphagents.runtime import Agent

    docs = tmp_path / "my_docs"
    docs.mkdir()
    (docs / "metformin.md").write_text(DOC, encoding="utf-8")
    store_url = f"file://{tmp_path / 'store'}"
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", str(docs), "--store-url", store_url, "--store-name", "rag_mine"])
    assert result.exit_code == 0, result.output
    assert "rag_mine:" in result.output and "added" in result.output
    again = runner.invoke(app, ["ingest", str(docs), "--store-url", store_url, "--store-name", "rag_mine"])
    assert "1 unchanged" in again.output  # idempotent: the unchanged file is skipped
    missing = runner.invoke(app, ["ingest", str(tmp_path / "nope")])
    assert missing.exit_code != 0

    agent = Agent(SPEC, checkpoint_url="memory", embedder="offline", corpus=[str(docs)], store_url=store_url,
                  store_name="rag_mine")
    reply: Any = agent.session(None, user_id="k1").send("메트포르민 부작용이 뭐예요?")
    assert "설사" in reply.text and "[1]" in reply.text
    citations = [a for a in reply.artifacts if a.kind == "citation"]
    assert citations and citations[0].to_dict()["source"].startswith("metformin.md#")
