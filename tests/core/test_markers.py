"""Markers select what they say: a test that uses a service fixture carries that service's marker."""

from __future__ import annotations

import pytest

from service_checks import SERVICE_MARKERS


def test_every_test_using_a_service_fixture_is_marked(request: pytest.FixtureRequest) -> None:
    items = request.session.items
    if len(items) == 1:
        pytest.skip("run with the rest of the suite: alone, there is nothing else to check")
    unmarked = [
        (item.nodeid, marker)
        for item in items
        for fixture, marker in SERVICE_MARKERS.items()
        if fixture in getattr(item, "fixturenames", ()) and item.get_closest_marker(marker) is None
    ]
    assert unmarked == []
    checked = [i for i in items if "pg_database" in getattr(i, "fixturenames", ())]
    assert all(i.get_closest_marker("postgres") for i in checked)


def test_test_modules_have_unique_basenames() -> None:
    """Tests import by basename (rootdir-relative sys.path), so two ``test_x.py`` in different
    folders shadow each other and a whole module silently fails to collect."""
    from collections import Counter
    from pathlib import Path

    tests = Path(__file__).resolve().parents[1]
    # a package's __init__ is imported by the package's name (tests/thirdparty/notes_agent), not by basename
    names = Counter(p.name for p in tests.rglob("*.py") if p.name not in ("conftest.py", "__init__.py"))
    assert [n for n, c in names.items() if c > 1] == []
