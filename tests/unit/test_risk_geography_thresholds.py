"""El Emam et al. 2010 small-area models against the paper's worked values; threshold presets."""

from __future__ import annotations

import logging
import math

import pandas as pd
import pytest

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.risk import (
    PRESETS,
    assess_areas,
    category_counts,
    max_combs,
    threshold_preset,
    uniqueness_probability,
)
from dbt_deid.risk.geography import MODELS


def test_maxcombs_paper_example():
    # El Emam et al. 2010: age 24 x marital status 5 x schooling 9 x religion 3 = 3,240
    assert max_combs({"age": 24, "marst": 5, "school": 9, "relig": 3}) == 3240
    assert max_combs([2, 24, 8, 3, 5]) == 2 * 24 * 8 * 3 * 5
    with pytest.raises(ConfigError):
        max_combs([])
    with pytest.raises(ConfigError):
        max_combs([3, 0])


def test_category_counts_exclude_non_specific():
    frame = pd.DataFrame({"sex": ["M", "F", "F", None], "lang": ["en", "fr", "<missing>", "en"]})
    assert category_counts(frame, ["sex", "lang"], exclude=["<missing>"]) == {"sex": 2, "lang": 2}


def test_equations_by_hand():
    # El Emam et al. 2010 eq. (1)-(4) at M = 9,360, S = 7,080 (Table 3 row 6)
    m, s = (9360 - 59861) / 10000, (7080 - 21120) / 10000
    logit05 = 779.1 + 137.8 * m - 37.3 * s - 6.5 * m * s
    logit20 = 63.3 + 11.8 * m - 6 * s - m * s
    assert float(uniqueness_probability(9360, 7080, 0.05)) == pytest.approx(
        1 / (1 + math.exp(-logit05)))
    assert float(uniqueness_probability(9360, 7080, 0.2)) == pytest.approx(
        1 / (1 + math.exp(-logit20)))
    assert MODELS[0.05].b_population == -37.3  # equation (3); Table 6 prints -37.35


# El Emam et al. 2010 Table 3: (POP, MaxCombs, I05, I20) from the census uniqueness estimates
TABLE3 = [(6228, 48, 0, 0), (14047, 576, 0, 0), (100, 40, 1, 0), (2247, 576, 1, 0),
          (12916, 84480, 1, 1), (7080, 9360, 1, 1), (100, 95040, 1, 1)]


@pytest.mark.parametrize(("pop", "mc", "i05", "i20"), TABLE3)
def test_models_reproduce_table3_within_fitted_range(pop, mc, i05, i20):
    p05 = float(uniqueness_probability(mc, pop, 0.05))
    p20 = float(uniqueness_probability(mc, pop, 0.2))
    assert (p20 > 0.5) == bool(i20)  # the 20% model agrees with every row
    if (pop, mc) == (2247, 576):  # a false negative of the 5% model (sensitivity 0.87)
        assert p05 < 0.5 and i05 == 1
    elif pop < 200:  # illustrative rows outside the fitted population range (200-78,457)
        assert (p05 > 0.5) == (mc > 59861)
    else:
        assert (p05 > 0.5) == bool(i05)


def test_assess_areas_flags_and_range_warnings(caplog):
    areas = pd.DataFrame({"fsa": ["K7N", "L6P", "X0X", "BIG"],
                          "pop": [6228, 2247, 100, 90000], "records": [40, 3, 2, 100]})
    with caplog.at_level(logging.INFO, logger="dbt_deid"):
        res = assess_areas(areas, 9360, area_column="fsa", population_column="pop",
                           records_column="records")
    t = res.table
    assert list(t["flag_20"]) == [True, True, True, False]
    assert list(t["in_fitted_range"]) == [True, True, False, False]
    assert len(res.warnings) == 1 and "1 area(s) below 200 and 1 above 78,457" in res.warnings[0]
    assert any("outside the fitted population range" in r.message for r in caplog.records)
    assert not any("K7N" in r.message for r in caplog.records)  # counts only in logs
    d = res.to_dict()
    assert d["flagged_20"] == 3 and d["records_in_flagged_20"] == 45
    high = assess_areas(areas, 1_000_000, area_column="fsa", population_column="pop")
    assert any("MaxCombs 1000000 is outside" in w for w in high.warnings)


def test_assess_areas_bad_inputs():
    with pytest.raises(ConfigError, match="0.05 or 0.2"):
        uniqueness_probability(100, 1000, 0.0)
    with pytest.raises(DataError):
        assess_areas(pd.DataFrame({"area": ["a"]}), 100)
    with pytest.raises(DataError):
        assess_areas(pd.DataFrame({"area": ["a"], "population": [-5]}), 100)
    with pytest.raises(ConfigError):
        assess_areas(pd.DataFrame({"area": ["a"], "population": [500]}), 100, cutoff=1.5)


def test_presets_values_and_justification():
    pub, agr, aud = PRESETS["public"], PRESETS["agreement"], PRESETS["audited"]
    assert (pub.tau, pub.k, pub.uniqueness) == (0.05, 20, 0.0)
    assert (agr.tau, agr.k, agr.uniqueness) == (0.2, 5, 0.05)
    assert (aud.k, aud.uniqueness) == (3, 0.2) and aud.tau == pytest.approx(0.33, abs=0.004)
    assert "Appendix 1" in aud.justification and "El Emam et al. 2011" in pub.justification
    assert threshold_preset("trusted") == agr


def test_preset_overrides_are_recorded():
    p = threshold_preset("public", tau=0.04, uniqueness=0.05)
    assert p.k == 25 and p.uniqueness == 0.05
    assert p.overridden == ("tau", "uniqueness")
    assert "tau overridden from 0.05 to 0.04 (k = 25)" in p.justification
    assert p.to_dict()["k"] == 25
    with pytest.raises(ConfigError, match="unknown release context"):
        threshold_preset("internet")
    with pytest.raises(ConfigError):
        threshold_preset("public", tau=2)
    with pytest.raises(ConfigError):
        threshold_preset("public", uniqueness=1.5)
