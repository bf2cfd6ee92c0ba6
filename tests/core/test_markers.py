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
