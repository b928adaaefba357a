"""The ola command's fast CSV path (issue 35, item 5): the file read by pyarrow straight into
its pattern table gives the same patterns as the strict reader's records grouped, keeps the
conventions (empty = missing, quoted delimiters and line breaks, a BOM), and a malformed file
gets the strict reader's error naming the line."""

from __future__ import annotations

import pandas as pd
import pytest

from dbt_deid.errors import DataError
from dbt_deid.tools.io import read_table
from dbt_deid.tools.pattern_csv import count_column_name, csv_header, read_patterns


def _strict(path, cols, delimiter=","):
    frame = read_table(path, delimiter)[cols]
    return frame.groupby(cols, sort=True).size().rename("n").reset_index()


@pytest.mark.parametrize("delimiter", [",", ";"])
def test_patterns_equal_the_strict_readers_records_grouped(tmp_path, delimiter) -> None:
    d = delimiter
    text = ("\ufeffage" + d + "zip" + d + "note\n"
            f'30{d}"K1A{d} 0B1"{d}x\n'
            f'30{d}"K1A{d} 0B1"{d}"two\nlines"\n'
            f'{d}H0H{d}y\n'
            f'{d}H0H{d}\n'
            f'41{d}""{d}z\n')
    path = tmp_path / "in.csv"
    path.write_text(text, encoding="utf-8")
    cols = ["age", "zip"]
    got = read_patterns(path, cols, d)
    want = _strict(path, cols, d)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    assert list(got["n"]) == [2, 2, 1] or sorted(got["n"]) == [1, 2, 2]
    assert "" in set(got["age"])  # an empty cell is a missing value, kept as such


def test_a_row_with_another_field_count_names_the_line(tmp_path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n1,2\n3\n4,5\n")
    with pytest.raises(DataError, match="line 3 has 1 fields, the header has 2"):
        read_patterns(path, ["a"])


def test_blank_lines_at_the_end_are_accepted_and_a_header_twice_is_not(tmp_path) -> None:
    path = tmp_path / "trail.csv"
    path.write_text("a,b\n1,2\n1,3\n\n\n")
    assert read_patterns(path, ["a"])["n"].tolist() == [2]
    twice = tmp_path / "twice.csv"
    twice.write_text("a,a\n1,2\n")
    with pytest.raises(DataError, match="names column"):
        csv_header(twice)


def test_count_column_name_avoids_the_qis() -> None:
    assert count_column_name(["a", "b"]) == "n"
    assert count_column_name(["n", "_n"]) == "__n"
