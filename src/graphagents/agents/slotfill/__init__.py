"""slotfill: a scenario engine on LangGraph that collects, confirms and corrects information in a
Korean conversation, with the bundled demand-deposit account (입출금통장) scenario."""

from .scenario import Scenario, ScenarioError, json_schema, load_scenario
from .spec import SPEC

__all__ = ["SPEC", "Scenario", "ScenarioError", "json_schema", "load_scenario"]
