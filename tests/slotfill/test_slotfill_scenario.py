"""Scenario files: the bundled one loads, bad ones fail at load with the JSON path and the reason."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphagents.agents.slotfill.cli import make_cli
from graphagents.agents.slotfill.scenario import ScenarioError, json_schema, load_scenario, parse_scenario

BUNDLED = Path(__file__).resolve().parents[2] / "src/graphagents/agents/slotfill/scenarios/bank_account.json"


def bundled() -> dict[str, Any]:
    return json.loads(BUNDLED.read_text(encoding="utf-8"))


def test_bundled_scenario_loads() -> None:
    sc = load_scenario()
    assert sc.start_stage_id == "greeting"
    assert sc.max_stage_visits == 3
    assert {"basic_info", "internet_banking_basic", "internet_banking_alerts"} <= set(sc.info_groups)
    assert sc.info_groups["internet_banking_basic"].depends_on == {"use_internet_banking": True}
    assert sc.slots["security_medium"].choices == ["OTP", "보안카드", "모바일OTP"]


def _error(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(data, "s.json")
    return str(info.value)


def test_unknown_stage_in_transition() -> None:
    data = bundled()
    data["stages"]["confirm_basic_info"]["transitions"][0]["next_stage_id"] = "nowhere"
    assert _error(data) == ("s.json: $.stages.confirm_basic_info.transitions[0].next_stage_id: "
                            "unknown stage 'nowhere'")


def test_template_slot_never_defined() -> None:
    data = bundled()
    data["stages"]["confirm_basic_info"]["prompt"] = "%{customer_email}% 맞나요?"
    assert "$.stages.confirm_basic_info.prompt: template uses slot 'customer_email'" in _error(data)


def test_cycle_without_exit() -> None:
    data = bundled()
    data["stages"]["confirm_summary"]["transitions"] = [
        {"next_stage_id": "correct_summary", "condition": "confirmed"}]
    message = _error(data)
    assert "can never reach END_SCENARIO" in message
    assert "confirm_summary -> correct_summary -> confirm_summary" in message


def test_unknown_key_is_rejected_with_its_path() -> None:
    data = bundled()
    data["stages"]["greeting"]["promt"] = "typo"
    assert _error(data).startswith("s.json: $.stages.greeting.promt: Extra inputs are not permitted")


def test_unknown_slot_in_group_and_fields() -> None:
    data = bundled()
    data["info_groups"]["basic_info"]["fields"].append("email")
    assert _error(data) == "s.json: $.info_groups.basic_info.fields[2]: unknown slot 'email'"
    data = bundled()
    data["stages"]["confirm_ib_info"]["fields_to_confirm"][0] = "otp"
    assert "$.stages.confirm_ib_info.fields_to_confirm[0]: unknown slot 'otp'" in _error(data)


def test_bad_slot_type_and_bad_regex() -> None:
    data = bundled()
    data["slots"]["customer_name"]["type"] = "name"
    assert _error(data).startswith("s.json: $.slots.customer_name.type: Input should be")
    data = bundled()
    data["slots"]["customer_name"]["validation"]["regex"] = "[가-"
    assert "$.slots.customer_name.validation" in _error(data)


def test_confirmation_stage_needs_a_confirmed_path() -> None:
    data = bundled()
    stage = data["stages"]["confirm_alerts"]
    stage["transitions"] = [t for t in stage["transitions"] if t["condition"] != "confirmed"]
    stage["transitions"].append({"next_stage_id": "confirm_summary", "condition": "needs_correction"})
    assert "$.stages.confirm_alerts.transitions: a confirmation stage needs a 'confirmed' transition" in _error(data)


def test_yaml_scenario_file(tmp_path: Path) -> None:
    import yaml

    data = copy.deepcopy(bundled())
    data["name"] = "yaml_copy"
    path = tmp_path / "copy.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    assert load_scenario(path).name == "yaml_copy"


def test_unreadable_or_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read scenario"):
        load_scenario(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ScenarioError, match="bad.json: not valid JSON"):
        load_scenario(bad)


def test_json_schema_forbids_extra_keys() -> None:
    schema = json_schema()
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["Stage"]["additionalProperties"] is False
    assert set(schema["$defs"]["Stage"]["properties"]["stage_type"]["enum"]) == {
        "collection", "confirmation", "correction"}


def test_cli_schema_and_validate(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(make_cli(), ["schema"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["title"] == "Scenario"
    ok = runner.invoke(make_cli(), ["validate", str(BUNDLED)])
    assert ok.exit_code == 0 and "13 stages" in ok.stdout
    data = bundled()
    data["start_stage_id"] = "hello"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    failed = runner.invoke(make_cli(), ["validate", str(bad)])
    assert failed.exit_code == 1
    lines = failed.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("invalid: bad.json: $.start_stage_id: unknown stage 'hello'")


def test_published_schema_is_current() -> None:
    """docs/slotfill-scenario.schema.json is what `graphagents slotfill schema` prints."""
    published = Path(__file__).resolve().parents[2] / "docs" / "slotfill-scenario.schema.json"
    assert json.loads(published.read_text(encoding="utf-8")) == json_schema()
