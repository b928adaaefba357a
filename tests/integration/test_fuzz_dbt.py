"""The dbt path of the fuzz suite (issue 13): a few seeded random releases (interval, prefix
and date rules, lookup hierarchies, the diagnosis family, samples) built with `dbt build` and
checked independently; `fuzz/fuzz_dbt.py` runs many more."""

from __future__ import annotations

import pytest

from fuzz.dbt_cases import check_run, make_release
from tests.integration.dbt_runner import INTEGRATION, build_release, project_vars

pytestmark = pytest.mark.dbt


@pytest.mark.parametrize("seed", [3, 11])
def test_random_release_holds_the_guarantee_or_is_refused(it_database, tmp_path, seed) -> None:
    release = make_release(seed)
    run = build_release(it_database, tmp_path,
                        {**project_vars(INTEGRATION), "deid_release": release}, report=True)
    assert check_run(run, release) == [], release
