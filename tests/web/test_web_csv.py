"""Issue 26 item 4: the page's CSV downloads never carry a live spreadsheet formula (OWASP's
CSV-injection guidance): a text cell starting with = + - @, a tab or a CR gets a leading apostrophe."""

from __future__ import annotations

import csv
import io
from importlib import resources
from typing import Any

import pytest

FORMAT_JS = (resources.files("graphagents.server") / "static" / "format.js").read_text(encoding="utf-8")


@pytest.mark.browser
def test_csv_cells_that_start_a_formula_are_neutralised(browser: Any) -> None:
    page = browser.new_page()
    try:
        page.set_content("<!doctype html><title>csv</title>")
        page.add_script_tag(content=FORMAT_JS)
        columns = ["=HYPERLINK(\"http://x\")", "name"]
        rows = [
            ["@SUM(1)", "=cmd|' /C calc'!A0"],
            ["+1+1", "-2+3"],
            ["\tTAB", "\rCR"],
            [-5, 3.5],  # numbers are not formulas
            ["plain", "a=b"],  # not at the start: left alone
            [None, {"k": "=x"}],
        ]
        text = page.evaluate("([c, r]) => GA.csv(c, r)", [columns, rows])
        cells = [page.evaluate("v => GA.csvCell(v)", v) for v in ("@SUM(1)", "=1", "-1", "+1", "\t=1", "\r=1", "ok")]
    finally:
        page.close()
    assert text.startswith("\ufeff")
    parsed = list(csv.reader(io.StringIO(text[1:])))
    assert parsed[0] == ["'=HYPERLINK(\"http://x\")", "name"]
    assert parsed[1] == ["'@SUM(1)", "'=cmd|' /C calc'!A0"]
    assert parsed[2] == ["'+1+1", "'-2+3"]
    assert parsed[3] == ["'\tTAB", "'\rCR"]
    assert parsed[4] == ["-5", "3.5"] and parsed[5] == ["plain", "a=b"]
    assert parsed[6] == ["", '{"k":"=x"}']
    for row in parsed:
        for cell in row:
            assert not cell or cell[0] not in "=+-@\t\r" or cell.lstrip("-").replace(".", "").isdigit(), cell
    assert cells[:6] == ['"\'@SUM(1)"', '"\'=1"', '"\'-1"', '"\'+1"', '"\'\t=1"', '"\'\r=1"'] and cells[6] == "ok"
