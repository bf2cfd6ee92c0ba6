"""Gold question sets in defog sql-eval's CSV layout (ours and defog's share one loader)."""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

from graphagents.errors import InputError

from ._compare import expand_gold_alternatives

REQUIRED_COLUMNS = ("question", "query", "db_name", "query_category")


@dataclass(frozen=True)
class Question:
    question: str
    query: str  # gold SQL, possibly with defog's {a,b} alternatives and several golds joined by ';'
    db_name: str
    query_category: str
    instructions: str = ""

    @property
    def gold_queries(self) -> list[str]:
        """The concrete gold queries this row accepts; a prediction may match any of them."""
        return expand_gold_alternatives(self.query)


def load_questions(csv_path: str | os.PathLike[str], *, db_name: str | None = None) -> list[Question]:
    """Read a defog-style question CSV, optionally keeping one database's rows.

    ``instructions`` is optional because defog's older CSVs do not have it.
    """
    path = Path(csv_path)
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except FileNotFoundError as exc:
        raise InputError(f"question file {str(path)!r} does not exist; check the path") from exc
    with handle:
        reader = csv.DictReader(handle)
        missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(
                f"question file {str(path)!r} lacks column(s) {', '.join(missing)}; "
                f"the header must have {', '.join(REQUIRED_COLUMNS)} and optionally instructions"
            )
        questions = [
            Question(
                question=row["question"].strip(),
                query=row["query"].strip(),
                db_name=row["db_name"].strip(),
                query_category=row["query_category"].strip(),
                instructions=(row.get("instructions") or "").strip(),
            )
            for row in reader
        ]
    return [q for q in questions if db_name is None or q.db_name == db_name]
