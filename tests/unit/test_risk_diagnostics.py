"""Diagnostics: risk CDF (El Emam et al. 2009 (CJHP) Figure 4), class sizes, suppression,
information loss."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dbt_deid.risk import (
    OTHER,
    assess_release,
    class_size_histogram,
    information_loss,
    risk_cdf,
    suppression_by,
    suppression_by_column,
)
from dbt_deid.risk.diagnostics import binned_histogram, share_at_or_below


def release() -> pd.DataFrame:
    return pd.DataFrame({
        "sex": ["M", "F", None, "F", "M"],
        "age": ["30", None, "30", "40", "<missing>"],
        "region": ["East", "East", "West", "North", "East"],
        "n": [3, 1, 2, 5, 4],
    })


def test_risk_cdf_is_share_at_or_below():
    cdf = risk_cdf(np.array([1 / 3, 1.0, 0.5, 0.2, 1 / 3]), np.array([3, 1, 2, 5, 3]))
    assert list(cdf["risk"]) == pytest.approx([0.2, 1 / 3, 0.5, 1.0])
    assert list(cdf["cumulative_share"]) == pytest.approx([5 / 14, 11 / 14, 13 / 14, 1.0])
    assert share_at_or_below(cdf, 0.2) == pytest.approx(5 / 14)
    assert share_at_or_below(cdf, 0.1) == 0.0
    assert share_at_or_below(cdf, 1 / 3) == pytest.approx(11 / 14)


def test_class_size_histogram_and_bins():
    hist = class_size_histogram(np.array([3, 1, 2, 5, 3, 12]), np.array([2, 1, 2, 5, 1, 12]))
    assert hist.to_dict(orient="list") == {
        "class_size": [1, 2, 3, 5, 12], "classes": [1, 1, 1, 1, 1], "records": [1, 2, 3, 5, 12]}
    binned = binned_histogram(hist, 3)
    assert list(binned["bin"]) == ["1", "2", "3-5", "6-14", "15-29", ">= 30"]
    assert list(binned["records"]) == [1, 2, 8, 12, 0, 0]


def test_suppression_by_column_and_information_loss():
    sup = suppression_by_column(release(), ["sex", "age"])
    assert list(sup["suppressed"]) == [2, 1]
    assert list(sup["suppressed_share"]) == pytest.approx([2 / 15, 1 / 15])
    assert list(sup["missing"]) == [0, 4]
    il = information_loss(release(), ["sex", "age"])
    assert il["cells_suppressed"] == 3 and il["cells"] == 30
    assert il["records_with_suppression"] == 3
    assert il["records_with_suppression_share"] == pytest.approx(3 / 15)
    assert il["records_by_suppressed_qis"] == {0: 12, 1: 3, 2: 0}


def test_suppression_by_pools_small_categories():
    out = suppression_by(release(), ["sex", "age"], "region", k=5)
    # East 8 records, North 5, West 2 -> pooled; the pool (2 < k) has its shares blanked
    assert list(out["region"]) == ["East", "North", OTHER]
    assert list(out["records"]) == [8, 5, 2]
    assert out.loc[0, "age_suppressed"] == pytest.approx(1 / 8)
    assert math.isnan(out.loc[2, "sex_suppressed"])
    assert "West" not in out["region"].tolist()
    by_sex = suppression_by(release(), ["age"], "sex", k=3)
    assert "(suppressed)" not in by_sex["sex"].tolist()  # only 2 suppressed-sex records
    assert set(by_sex["sex"]) == {"M", "F", OTHER}


def test_assess_release_combines_everything():
    a = assess_release(release(), ["sex", "age"], 0.25, sampling_fraction=0.5, by="region")
    d = a.to_dict()
    assert d["records"] == 15 and d["k"] == 4
    assert d["prosecutor"]["max_risk"] == 1.0
    assert d["journalist_marketer"]["population_size"] == 30
    assert d["uniqueness"]["sample_uniques"] == 1
    assert sum(b["records"] for b in d["class_size_histogram"]) == 15
    assert d["risk_cdf_share_at_or_below"]["0.25"] == pytest.approx(9 / 15)  # classes 5 and 4
    assert a.breakdown is not None and a.sample_uniques == 1
