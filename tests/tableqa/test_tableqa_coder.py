"""The coder's environment and prompt: df_orig_1..n and df, exactly like the design note."""

from __future__ import annotations

import pandas as pd

from graphagents.agents.tableqa.coder import bindings, coder_prompt, extract_code
from graphagents.agents.tableqa.state import IntermediateTable, TableRef
from graphagents.sandbox import get_store


def _ref(name: str, frame: pd.DataFrame) -> TableRef:
    table_id = get_store().put(frame)
    return {"id": table_id, "name": name, "rows": len(frame), "columns": list(frame.columns),
            "dtypes": [str(t) for t in frame.dtypes], "source": name}


def test_df_is_the_latest_intermediate_or_the_first_original() -> None:
    dept = _ref("department", pd.DataFrame({"id": [1, 2], "budget": [50, 150]}))
    mgmt = _ref("management", pd.DataFrame({"id": [2], "head": [7]}))
    assert bindings([dept, mgmt], []) == {"df_orig_1": dept["id"], "df_orig_2": mgmt["id"], "df": dept["id"]}
    joined = get_store().put(pd.DataFrame({"id": [2], "budget": [150], "head": [7]}))
    step: IntermediateTable = {"id": joined, "step": 1, "action": "Retrieve", "instruction": "JOIN department and "
                               "management", "code": "", "rows": 1, "columns": [], "input_id": dept["id"]}
    assert bindings([dept, mgmt], [step])["df"] == joined
    assert bindings([dept, mgmt], [step], chain=False)["df"] == dept["id"]  # MACT's release


def test_prompt_lists_tables_like_the_design_note() -> None:
    dept = _ref("department", pd.DataFrame({"id": [1, 2], "budget": [50, 150]}))
    mgmt = _ref("management", pd.DataFrame({"id": [2], "head": [7]}))
    joined = get_store().put(pd.DataFrame({"id": [2], "budget": [150], "head": [7]}))
    step: IntermediateTable = {"id": joined, "step": 1, "action": "Retrieve", "instruction": "JOIN",
                               "code": "", "rows": 1, "columns": [], "input_id": dept["id"]}
    instruction = "\"df\"에서 'budget'이 100 이상인 부서를 필터링하세요."
    prompt = coder_prompt("q?", instruction, [dept, mgmt], [step], get_store())
    lines = prompt.splitlines()
    assert lines[:4] == [
        "# 사용 가능한 DataFrame:",
        "# - df_orig_1: 원본 'department' 테이블",
        "# - df_orig_2: 원본 'management' 테이블",
        "# - df: 이전 단계에서 생성된 Retrieve 결과 테이블 (step 1: JOIN)",
    ]
    assert "# 지시사항: \"\"df\"에서 'budget'이 100 이상인 부서를 필터링하세요.\"" in prompt
    assert prompt.rstrip().endswith("# 생성될 코드:")
    assert "# df_orig_1 ('department'): 2 rows x 2 columns" in prompt
    assert "#   columns: 'id' (int64), 'budget' (int64)" in prompt
    assert "# df: 1 rows x 3 columns" in prompt


def test_extract_code() -> None:
    assert extract_code("Here:\n```python\nnew_table = df[df['budget'] > 100]\n```\nDone.") == (
        "new_table = df[df['budget'] > 100]"
    )
    assert extract_code("# 생성될 코드:\nnew_table = df") == "new_table = df"
    assert extract_code("```\na = 1\n```\n```py\nb = 2\n```") == "b = 2"
