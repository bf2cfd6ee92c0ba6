"""Hostile inputs and process probes shared by the upload tests and ``bench/tableqa_hostile_uploads.py``."""

from __future__ import annotations

import io
import os
import zipfile

__all__ = ["descendants", "xlsx_bytes"]


def descendants(pid: int) -> set[int]:
    """Every descendant of ``pid``, read from /proc (a fork server and the readers it forked)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parents[int(entry)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier} - found
        found |= frontier
    return found


def xlsx_bytes(rows: int, columns: int, *, dimension: bool) -> bytes:
    """A minimal XLSX of ``rows`` x ``columns`` cells of 1, highly compressible (a small file that
    expands far), with or without the ``<dimension>`` element that declares its size."""
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    pkg = "http://schemas.openxmlformats.org/package/2006/relationships"
    ct = "application/vnd.openxmlformats-officedocument.spreadsheetml"
    parts = {
        "[Content_Types].xml": (
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/xl/workbook.xml" ContentType="{ct}.sheet.main+xml"/>'
            f'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="{ct}.worksheet+xml"/></Types>'),
        "_rels/.rels": (f'<Relationships xmlns="{pkg}"><Relationship Id="rId1" Type="{rel}/officeDocument" '
                        'Target="xl/workbook.xml"/></Relationships>'),
        "xl/workbook.xml": (f'<workbook xmlns="{main}" xmlns:r="{rel}"><sheets><sheet name="Sheet1" sheetId="1" '
                            'r:id="rId1"/></sheets></workbook>'),
        "xl/_rels/workbook.xml.rels": (f'<Relationships xmlns="{pkg}"><Relationship Id="rId1" '
                                       f'Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'),
        "xl/worksheets/sheet1.xml": (
            f'<worksheet xmlns="{main}">' + (f'<dimension ref="A1:T{rows}"/>' if dimension else "")
            + "<sheetData>" + ("<row>" + "<c><v>1</v></c>" * columns + "</row>") * rows + "</sheetData></worksheet>"),
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
    return buf.getvalue()
