"""Choose a template by the query, fill it from the entities, list what is missing.

A field the user did not give stays visible in the draft as "(미기재: 이름)" and is listed under
missing items: a draft with an invented landlord name or deposit is worse than no draft.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict

from .. import entities as ent
from ..offline.lexicon import normalise
from ..units import format_manwon

PACKAGE = "graphagents.agents.supervisor.documents"
_FIELD = re.compile(r"\{(\w+)\}")
_DATE_FIELDS = ("contract_start", "contract_end", "notice_date")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Item(_Strict):
    text: str
    articles: list[str] = []
    fields: list[str] = []
    when: str | None = None


class Section(_Strict):
    heading: str
    items: list[Item]


class Template(_Strict):
    id: str
    title: str
    triggers: str
    sections: list[Section]


class Templates(_Strict):
    fields: dict[str, str]
    templates: list[Template]


@lru_cache(maxsize=1)
def load_templates() -> Templates:
    text = resources.files(PACKAGE).joinpath("templates.yaml").read_text("utf-8")
    return Templates.model_validate(yaml.safe_load(text))


def choose_template(query: str) -> Template | None:
    text = normalise(query)
    for template in load_templates().templates:
        if re.search(template.triggers, text):
            return template
    return None


def field_values(entities: Mapping[str, Any]) -> dict[str, str]:
    """The placeholders the entities can fill; anything else stays missing."""
    values: dict[str, str] = {}
    for role, key in (("deposit", "deposit"), ("monthly_rent", "monthly_rent"), ("price", "price")):
        found = ent.amount(entities, role)
        if found is not None:
            values[key] = format_manwon(found)
    region = entities.get("region") or {}
    if region.get("sigungu"):
        values["sigungu"] = str(region["sigungu"])
    if entities.get("address"):
        values["address"] = str(entities["address"])
    percents = entities.get("percents") or []
    if percents:
        values["requested_increase"] = f"{percents[0]:g}%"
    for key in ("landlord", "tenant", "contract_start", "contract_end", "notice_date", "balance_date"):
        if entities.get(key):
            values[key] = str(entities[key])
    return values


def compose_document(query: str, entities: Mapping[str, Any], inputs: Mapping[str, Any], focus: str = "",
                     *, cite: Callable[[str], str] = str) -> dict[str, Any] | None:
    """The Markdown draft, its backing articles per item and the missing items; None if no template fits.

    ``cite`` turns an article id ("주임법:제3조") into its citation ("주택임대차보호법 제3조")."""
    template = choose_template(f"{query} {focus}")
    if template is None:
        return None
    names = load_templates().fields
    values = field_values(entities)
    text = normalise(query)
    lines = [f"# {template.title} (초안)", ""]
    used: set[str] = set()
    missing: list[str] = []
    articles: list[str] = []
    clauses: list[dict[str, Any]] = []
    for section in template.sections:
        items = [i for i in section.items if i.when is None or re.search(i.when, text)]
        if not items:
            continue
        lines += [f"## {section.heading}", ""]
        for item in items:
            rendered = _FIELD.sub(lambda m: values.get(m.group(1)) or f"(미기재: {names.get(m.group(1), m.group(1))})",
                                  item.text)
            for name in _FIELD.findall(item.text):
                used.add(name)
                label = names.get(name, name)
                if name not in values and label not in missing:
                    missing.append(label)
            refs = ", ".join(cite(a) for a in item.articles)
            lines.append(f"- [ ] {rendered}" + (f" — 근거: {refs}" if refs else ""))
            clauses.append({"text": rendered, "articles": list(item.articles)})
            articles += [a for a in item.articles if a not in articles]
        lines.append("")
    analysis = inputs.get("analysis") or {}
    if analysis.get("insights"):
        lines += ["## 분석 결과 반영", ""] + [f"- {line}" for line in analysis["insights"]] + [""]
    given = [f"{names.get(k, k)}: {v}" for k, v in values.items() if k not in used]
    if given:  # what the user said that this template has no place for is kept, not dropped
        lines += ["## 말씀하신 내용(문서에 반영할 정보)", ""] + [f"- {g}" for g in given] + [""]
    notes: list[str] = []
    date_labels = {names.get(k, k) for k in _DATE_FIELDS}
    if entities.get("unplaced_dates") and date_labels & set(missing):
        notes.append(f"질문에 나온 날짜({', '.join(entities['unplaced_dates'])})가 시작일·종료일·통지일 중 어느 것인지 "
                     "알 수 없어 넣지 않았습니다. '종료일 2026년 3월 31일'처럼 알려 주세요.")
    if missing:
        lines += ["## 채워야 할 항목", ""] + [f"- {m}" for m in missing] + [f"- ※ {n}" for n in notes] + [""]
    return {"template": template.id, "title": template.title, "markdown": "\n".join(lines).rstrip() + "\n",
            "clauses": clauses, "articles": articles, "missing_items": missing, "notes": notes,
            "used_inputs": sorted(k for k, v in inputs.items() if v)}
