"""deid_algorithm_comparison on a refresh of a release line (docs/living-release.md, "Through
dbt, the cost"): the version is seed 000's algorithm applied to the new records with the
earlier cells held fixed, not a run of either algorithm from scratch, so the comparison holds
the released version's own figures only, read from its released patterns; the pattern table
(the pairs) is not read and no algorithm runs. A build that is not a refresh compares both."""

from __future__ import annotations

import duckdb
import numpy as np
import pandas as pd
import pytest

from dbt_deid.comparison import compare_algorithms
from dbt_deid.dbt_side.glue.release import algorithm_comparison
from dbt_deid.living.pairs import pair_columns
from dbt_deid.report.html import _comparison_sections

QIS = ["age", "zip"]
RELEASE = {"name": "r", "source": "src", "record_id": "rid", "k": 3, "max_suppression": 1.0,
           "quasi_identifiers": {q: {} for q in QIS}, "combinations": [QIS]}


def _released() -> pd.DataFrame:
    """A released pattern table (deid_suppressed_patterns: `<qi>`, `<qi>__generalized`, n)."""
    rng = np.random.default_rng(5)
    age = rng.choice(["30", "40", "50"], 200)
    zip_ = rng.choice(["K1", "K2", "K3", "K4"], 200)
    frame = pd.DataFrame({"age__generalized": age, "zip__generalized": zip_})
    frame["age"] = frame["age__generalized"]
    frame["zip"] = frame["zip__generalized"].where(rng.random(200) > 0.1)
    return (frame.groupby(["age", "zip", "age__generalized", "zip__generalized"], dropna=False)
            .size().rename("n").reset_index())


class _Unreadable:
    """A relation whose columns are listed but whose rows must not be read."""

    def __init__(self, columns: list[str]) -> None:
        self.columns = columns

    def df(self) -> pd.DataFrame:
        raise AssertionError("the pattern table was read")


def test_a_refresh_reports_the_released_version_only() -> None:
    released = _released()
    pairs = _Unreadable([*pair_columns(QIS), "n"])
    got = algorithm_comparison(pairs, RELEASE, released)
    assert set(got["algorithm"]) == {"combinations"}
    assert got["selected"].all()
    # the same figures as the selected algorithm's rows of a comparison of both
    both = compare_algorithms(None, RELEASE, released=released, selected_only=True)
    pd.testing.assert_frame_equal(got.reset_index(drop=True), both.reset_index(drop=True))


def test_a_refresh_reads_only_the_columns_of_a_duckdb_relation() -> None:
    """Through dbt-duckdb the pattern table is a relation: its columns tell the refresh."""
    con = duckdb.connect()
    pairs = pd.DataFrame({c: pd.Series(["30"], dtype="object") for c in pair_columns(QIS)})
    pairs["n"] = 1
    con.register("pairs", pairs)
    con.register("released", _released())
    got = algorithm_comparison(con.sql("select * from pairs"), RELEASE,
                               con.sql("select * from released"))
    assert set(got["algorithm"]) == {"combinations"}


def test_a_build_that_is_not_a_refresh_compares_both() -> None:
    released = _released()
    patterns = (released.drop(columns=["age", "zip"])
                .rename(columns={"age__generalized": "age", "zip__generalized": "zip"})
                .groupby(QIS).agg(n=("n", "sum")).reset_index())
    got = algorithm_comparison(patterns, RELEASE, released)
    assert set(got["algorithm"]) == {"combinations", "complete"}


def test_selected_only_needs_the_released_patterns() -> None:
    with pytest.raises(ValueError, match="released"):
        compare_algorithms(None, RELEASE, selected_only=True)


def test_the_report_says_why_one_algorithm_is_shown() -> None:
    got = algorithm_comparison(_Unreadable([*pair_columns(QIS), "n"]), RELEASE, _released())
    text = "\n".join(_comparison_sections(got))
    assert "refreshes a release line" in text
    both = algorithm_comparison(
        _released().drop(columns=["age", "zip"]).rename(
            columns={"age__generalized": "age", "zip__generalized": "zip"}),
        RELEASE, _released())
    assert "refreshes a release line" not in "\n".join(_comparison_sections(both))
