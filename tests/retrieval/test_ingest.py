"""Ingestion: the file formats, stable ids, idempotence, incremental updates, progress."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rt_helpers import CountingFake

from graphagents.errors import InputError
from graphagents.retrieval import Store, ingest, open_store

GUIDE = """# Diabetes guide

Diabetes is a chronic disease. Blood sugar stays too high.

## Treatment

Metformin is the usual first medicine. Insulin is used when tablets are not enough.

```
# not a heading inside code
```

## Monitoring

Check fasting glucose every morning.
"""


def _pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of Helvetica text per page (no PDF library writes text)."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>",
               "<< /Type /Pages /Kids [" + " ".join(f"{4 + 2 * i} 0 R" for i in range(len(pages)))
               + f"] /Count {len(pages)} >>",
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    for i, text in enumerate(pages):
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET"
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {5 + 2 * i} 0 R"
                       " /Resources << /Font << /F1 3 0 R >> >> >>")
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "guide.md").write_text(GUIDE, encoding="utf-8")
    (root / "sub" / "note.txt").write_text("혈압약은 아침에 드세요.\n\n두 번째 문단입니다.", encoding="utf-8")
    records = [{"id": "p1", "text": "Aspirin thins the blood.", "title": "Aspirin", "lang": "en"},
               {"id": "p2", "text": "Ibuprofen eases pain and fever.", "title": "Ibuprofen"}]
    (root / "passages.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    (root / "manual.pdf").write_bytes(_pdf(["Store insulin in the fridge.", "Never freeze insulin pens."]))
    (root / "image.png").write_bytes(b"\x89PNG")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "secret.md").write_text("# hidden", encoding="utf-8")
    return root


@pytest.fixture
def store(tmp_path: Path, fake: CountingFake) -> Store:
    return open_store(f"file://{tmp_path / 'stores'}", "docs", fake)


def test_formats_ids_and_metadata(corpus: Path, store: Store) -> None:
    report = ingest([corpus], store, max_chars=200, overlap_chars=0, progress=False)
    assert (report.files, report.skipped, report.ignored) == (4, 0, 1)
    assert report.added == len(store) and report.deleted == 0
    docs = store.get(["p1", "p2", "guide.md#0", "guide.md#1", "guide.md#2", "sub/note.txt#0",
                      "manual.pdf#0", "manual.pdf#1"])
    assert len(docs) == 8 and len(store) == 8
    assert docs["p1"].metadata == {"source": "passages.jsonl", "title": "Aspirin", "lang": "en"}
    assert docs["guide.md#1"].text.startswith("Diabetes guide > Treatment\nMetformin is the usual")
    assert docs["guide.md#1"].metadata == {"source": "guide.md", "section": "Diabetes guide > Treatment", "chunk": 1}
    assert "not a heading" in docs["guide.md#1"].text  # a "#" line inside a code block is text
    assert docs["manual.pdf#1"].text == "Never freeze insulin pens." and docs["manual.pdf#1"].metadata["page"] == 2
    assert docs["sub/note.txt#0"].text == "혈압약은 아침에 드세요. 두 번째 문단입니다."
    assert store.search("insulin fridge", 1, "bm25")[0].id == "manual.pdf#0"
    assert store.search("aspirin", 1, "bm25")[0].id == "p1"  # the JSONL title is indexed too


def test_second_run_does_nothing(corpus: Path, store: Store, fake: CountingFake) -> None:
    ingest([corpus], store, progress=False)
    fake.seen.clear()
    again = ingest([corpus], store, progress=False)
    assert (again.files, again.skipped, again.added, again.updated) == (0, 4, 0, 0) and fake.seen == []


def test_an_edit_reembeds_only_what_changed(corpus: Path, store: Store, fake: CountingFake) -> None:
    ingest([corpus], store, max_chars=200, overlap_chars=0, progress=False)
    before = len(store)
    guide = corpus / "guide.md"
    edited = GUIDE.replace("Check fasting glucose every morning.", "Check fasting glucose before breakfast.")
    guide.write_text(edited.replace("## Treatment\n", "## Treatment\n\nSee a doctor first.\n"), encoding="utf-8")
    (corpus / "passages.jsonl").write_text(json.dumps({"id": "p1", "text": "Aspirin thins the blood.",
                                                       "title": "Aspirin", "lang": "en"}) + "\n", encoding="utf-8")
    fake.seen.clear()
    report = ingest([corpus], store, max_chars=200, overlap_chars=0, progress=False)
    assert report.files == 2 and report.skipped == 2
    assert report.deleted == 1 and "p2" not in store.get(["p2"])  # the record left the file
    assert len(store) == before - 1
    assert report.unchanged == 2  # guide.md#0 and p1
    assert {t.split("\n")[0] for t in fake.seen} == {"Diabetes guide > Treatment", "Diabetes guide > Monitoring"}


def test_long_jsonl_records_stay_whole_unless_asked(tmp_path: Path, store: Store) -> None:
    path = tmp_path / "long.jsonl"
    text = " ".join(f"Sentence {i} about a long passage." for i in range(60))
    path.write_text(json.dumps({"id": "long", "text": text}) + "\n", encoding="utf-8")
    ingest([path], store, progress=False)
    assert store.get(["long"])["long"].text == text
    other = open_store(f"file://{tmp_path / 'split'}", "split", store.embedder)
    ingest([path], other, max_chars=300, overlap_chars=50, split_records=True, progress=False)
    parts = other.get([f"long#{i}" for i in range(10)])
    assert len(parts) > 3 and parts["long#1"].metadata["parent_id"] == "long"


def test_bad_input_is_one_clear_line(tmp_path: Path, store: Store) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "ok"}\n{"id": "b", "text": \n', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.jsonl:2: not valid JSON"):
        ingest([bad], store, progress=False)
    assert len(store) == 0  # a file is parsed whole before anything is written
    nontext = tmp_path / "x.jsonl"
    nontext.write_text('{"id": "a", "body": "no text field"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="string 'text'"):
        ingest([nontext], store, progress=False)
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8"):
        ingest([latin], store, progress=False)
    with pytest.raises(InputError, match="no such file"):
        ingest([tmp_path / "missing"], store, progress=False)
    (tmp_path / "x.png").write_bytes(b"x")
    with pytest.raises(InputError, match="unsupported file type"):
        ingest([tmp_path / "x.png"], store, progress=False)
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 garbage")
    with pytest.raises(InputError, match="cannot read this PDF"):
        ingest([broken], store, progress=False)


def test_progress_bar(corpus: Path, store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    report = ingest([corpus], store, progress=True)
    assert report.added > 0 and report.passages_per_second > 0
