"""The suite's module order under pytest-xdist (tests/conftest.py): the slowest modules first,
and of the modules the test processes start at once, at most one that needs the shared builds
(the others would wait idle on its lock)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MODULE_SECONDS, SHARED_BUILDS, start_order
from tests.integration import conftest as integration_conftest

REPO = Path(__file__).resolve().parents[2]


def test_the_starting_places_go_to_modules_that_do_not_wait() -> None:
    modules = ["release", "fail_closed", "living", "demo", "combined", "spark", "lola"]
    shared = {"release", "fail_closed", "living", "combined"}
    assert start_order(modules, shared, 3) == [
        "release", "demo", "spark", "fail_closed", "living", "combined", "lola"]
    assert start_order(modules, shared, 2) == [
        "release", "demo", "fail_closed", "living", "combined", "spark", "lola"]


def test_the_order_is_kept_when_nothing_waits() -> None:
    modules = ["a", "b", "c", "d"]
    assert start_order(modules, set(), 3) == modules
    assert start_order(modules, {"d"}, 3) == modules
    assert start_order(modules, {"a", "b", "c", "d"}, 3) == modules  # no module to put first
    assert start_order(modules, {"a", "b"}, 1) == modules
    assert sorted(start_order(modules, {"a", "c"}, 2)) == sorted(modules)  # nothing dropped


def test_the_shared_builds_are_the_integration_fixtures_and_the_modules_exist() -> None:
    source = Path(integration_conftest.__file__).read_text()
    for name in SHARED_BUILDS:  # session fixtures built once per run (``built_once``)
        assert f"def {name}(" in source, name
        body = source.split(f"def {name}(")[1].split("\n@pytest.fixture")[0]
        assert "built_once(" in body, name
    missing = [m for m in MODULE_SECONDS if not (REPO / m).exists()]
    assert not missing, missing
