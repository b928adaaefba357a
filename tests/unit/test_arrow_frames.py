"""Arrow fetch of DuckDB relations gives the same frame as ``df()``."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from dbt_deid.arrow_frames import arrow_to_pandas, read_arrow
from dbt_deid.dbt_side.entry import to_pandas

_SQL = """
select * from (values
  (1, 'a', true, date '2020-01-02', 1.5::decimal(9,2), 2.5::double, null::integer),
  (2, null, null, null, null, null, 3),
  (3, 'c', false, date '2021-03-04', 2.25::decimal(9,2), null, null)
) t(i, s, b, d, m, f, ni)
"""


def test_arrow_frame_matches_df_values_and_dtypes() -> None:
    con = duckdb.connect()
    expected = con.sql(_SQL).df()
    got = to_pandas(con.sql(_SQL))
    assert list(got.columns) == list(expected.columns)
    for c in expected.columns:
        assert got[c].dtype.kind == expected[c].dtype.kind, c
        assert str(got[c].dtype) == str(expected[c].dtype) or c == "s", c
        assert got[c].isna().tolist() == expected[c].isna().tolist(), c
        assert [v for v in got[c] if not pd.isna(v)] == [v for v in expected[c] if not pd.isna(v)]


def test_read_arrow_rejects_non_arrow_and_duplicate_names() -> None:
    with pytest.raises(TypeError):
        read_arrow([1, 2])
    con = duckdb.connect()
    with pytest.raises(ValueError, match="duplicate column"):
        arrow_to_pandas(con.sql("select 1 as x, 2 as x").arrow())
