"""A CSV file read straight into its pattern table: the CLI's fast path for OLA.

The search works on the pattern table (one row per distinct quasi-identifier tuple with its
record count; El Emam et al. 2009, "equivalence classes"), never on the records, so the file is
read with pyarrow's multi-threaded CSV reader (only the quasi-identifier columns, every cell as
text, an empty cell a missing value: :mod:`dbt_deid.tools.io`'s conventions) and grouped there; the
records never become Python objects. The strict reader (:func:`dbt_deid.tools.io.read_rows`) stays
the judge of a malformed file: when pyarrow refuses the file (a row with another number of
fields, text that is not UTF-8, ...) the file is read again by it, so the error names the line
exactly as before, and a file it accepts (blank lines at the end) is grouped from its rows.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from dbt_deid.errors import DataError
from dbt_deid.tools.io import check_delimiter, check_header, input_file, read_table


def csv_header(path: str | Path, delimiter: str = ",") -> list[str]:
    """The header line's column names (a UTF-8 BOM dropped); a header naming a column twice
    is an error, as in :func:`dbt_deid.tools.io.read_rows`."""
    check_delimiter(delimiter)
    p = input_file(path)
    try:
        with p.open(newline="", encoding="utf-8-sig") as f:
            header = next(csv.reader(f, delimiter=delimiter, quotechar='"', strict=True), None)
    except (UnicodeDecodeError, csv.Error):
        return read_table(p, delimiter).columns.tolist()  # the strict reader's error
    if header is None:
        raise DataError(f"input file {str(p)!r} is empty: it needs a header line")
    check_header(p, header)
    return header


def _has_blank_line(path: str | Path) -> bool:
    """Whether the file holds an empty line (a line break right after another; a quoted
    value with an empty line in it counts too, and only sends the file to the strict
    reader)."""
    import mmap

    with open(path, "rb") as f:
        if f.seek(0, 2) == 0:
            return False
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            return m.find(b"\n\n") != -1 or m.find(b"\n\r\n") != -1


def count_column_name(columns: Sequence[str]) -> str:
    """A name for the record-count column that is none of ``columns``."""
    name = "n"
    while name in columns:
        name = "_" + name
    return name


def read_patterns(path: str | Path, columns: Sequence[str], delimiter: str = ",",
                  count_column: str = "n") -> pd.DataFrame:
    """The pattern table of ``columns`` in a CSV file: one row per distinct tuple (text cells,
    empty = missing) with its number of records in ``count_column``, sorted by the tuple."""
    header = csv_header(path, delimiter)
    cols = list(columns)
    # pyarrow reads a blank line as a record of empty cells: such a file goes to the strict
    # reader, which names the line (or drops blank lines at the end of the file)
    table = None if _has_blank_line(path) else _read_arrow(path, header, cols, delimiter)
    if table is None or table.num_rows == 0 or "count_all" in cols:
        # the strict reader names the bad line, or accepts what pyarrow would not, and
        # rejects a file without records
        frame = read_table(path, delimiter)[cols]
        grouped = frame.groupby(cols, sort=True, dropna=False).size()
        return grouped.rename(count_column).reset_index()
    grouped = table.group_by(cols, use_threads=False).aggregate([([], "count_all")])
    out = grouped.to_pandas().rename(columns={"count_all": count_column})[[*cols, count_column]]
    for c in cols:
        out[c] = out[c].astype(object)
    out[count_column] = out[count_column].astype("int64")
    return out.sort_values(cols, kind="stable").reset_index(drop=True)


def _read_arrow(path: str | Path, header: list[str], cols: list[str], delimiter: str) -> Any:
    """The ``cols`` of the file as a pyarrow table of strings, or None when pyarrow refuses
    the file (a row with another number of fields, text that is not UTF-8, ...)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    try:
        return pacsv.read_csv(
            str(path),
            read_options=pacsv.ReadOptions(use_threads=True, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char='"',
                                              double_quote=True, newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(
                column_types={c: pa.string() for c in header}, include_columns=cols,
                strings_can_be_null=False, quoted_strings_can_be_null=False,
                null_values=[]),
        )
    except (pa.ArrowInvalid, pa.ArrowKeyError, UnicodeDecodeError):
        return None
