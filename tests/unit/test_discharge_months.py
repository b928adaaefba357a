"""The living demo's monthly source (dbt_deid.tools.synthetic.discharge_months): seeded, month 2
is month 1 with 1% withdrawn, 0.1% of diagnoses corrected and a new month appended."""

from __future__ import annotations

import pandas as pd
import pytest

from dbt_deid.tools.synthetic.discharge_months import discharge_months


def test_month_two_withdraws_corrects_and_appends() -> None:
    first, second = discharge_months(2000, 1, seed=7), discharge_months(2000, 2, seed=7)
    assert list(first["abstract_id"]) == list(range(1, 2001))
    pd.testing.assert_frame_equal(first, discharge_months(2000, 1, seed=7))  # seeded
    kept = first.merge(second, on="abstract_id", suffixes=("", "_2"))
    assert len(kept) == 2000 - 20  # 1% withdrawn
    changed = kept[kept["mrdx"] != kept["mrdx_2"]]
    assert 0 < len(changed) <= 2  # 0.1% corrected (a donor may hold the same code)
    for column in ("province", "age", "gender", "los_days", "cci_code", "health_card_number"):
        assert kept[column].equals(kept[f"{column}_2"]), column  # nothing else changes
    new = second[second["abstract_id"] > 2000]
    assert list(new["abstract_id"]) == list(range(2001, 4001))
    assert new["admission_date"].min() >= pd.Timestamp("2008-05-01")
    assert list(second.columns) == list(first.columns)
    assert not discharge_months(2000, 2, seed=8).equals(second)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="month at least 1"):
        discharge_months(10, 0)
