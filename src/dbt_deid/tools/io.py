"""Reading and writing CSV files for the CLI, with the package's missing/suppressed conventions.

In CLI input files an empty cell is a *missing* original value, which is data (its own
category), not a suppression. In output files an empty cell is a *suppressed* value and a missing
original value is written as the missing label (``<missing>`` unless told otherwise), so the two
stay distinguishable.

Files are read and written with the :mod:`csv` module, cell by cell as text, so that what is
written reads back as the same cells: a field holding the delimiter, a quote, a carriage return
or a line feed is quoted (the csv module's minimal quoting does not quote a lone carriage return
when lines end in ``\\n``, so the rule is applied here), a one-column row with an empty cell is
written as ``""`` (not a blank line), and a header naming a column twice or a row with another
number of fields than the header is an error naming the line, never a renamed column or a
dropped or padded record.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from dbt_deid.errors import ConfigError, DataError

_SPECIAL = ('"', "\r", "\n")


def check_delimiter(delimiter: str) -> str:
    """The field delimiter: one character, not a quote or a line break."""
    if len(delimiter) != 1 or delimiter in _SPECIAL:
        raise ConfigError(
            f"--delimiter must be one character other than a quote or a line break,"
            f" got {delimiter!r}"
        )
    return delimiter


def input_file(path: str | Path) -> Path:
    """``path`` as a Path; a file that does not exist is an error naming it."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"input file {str(p)!r} does not exist")
    return p


def check_header(path: Path, header: Sequence[str]) -> None:
    """A header naming a column twice is an error (never a renamed column)."""
    seen: set[str] = set()
    twice = [c for c in header if c in seen or seen.add(c)]
    if twice:
        raise DataError(
            f"input file {str(path)!r}: the header names column(s) {twice} more than once")


def read_rows(path: str | Path, delimiter: str = ",") -> tuple[list[str], list[list[str]]]:
    """The header and the rows of a CSV file, every cell as text (empty = missing)."""
    check_delimiter(delimiter)
    p = input_file(path)
    try:
        with p.open(newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f, delimiter=delimiter, quotechar='"', doublequote=True,
                                strict=True)
            lines = [(reader.line_num, row) for row in reader]
    except UnicodeDecodeError as exc:
        raise DataError(f"input file {str(p)!r} is not UTF-8 text ({exc.reason})") from exc
    except csv.Error as exc:
        raise DataError(f"input file {str(p)!r}: malformed CSV ({exc})") from exc
    if not lines:
        raise DataError(f"input file {str(p)!r} is empty: it needs a header line")
    header = lines[0][1]
    check_header(p, header)
    while len(lines) > 1 and lines[-1][1] == [] and len(header) > 1:
        lines.pop()  # blank lines at the end of the file
    rows = [row for _, row in lines[1:]]
    for (line, row) in lines[1:]:
        if len(row) != len(header):
            what = "is blank" if not row else f"has {len(row)} fields"
            raise DataError(
                f"input file {str(p)!r}: line {line} {what}, the header has {len(header)}"
                + (' (write "" for a missing value)' if not row else "")
            )
    return header, rows


def read_table(path: str | Path, delimiter: str = ",") -> pd.DataFrame:
    """All columns as strings; empty cells stay empty strings (missing values)."""
    header, rows = read_rows(path, delimiter)
    if not rows:
        raise DataError(f"input file {str(path)!r} has no records")
    columns = list(zip(*rows, strict=True))
    return pd.DataFrame({c: pd.Series(columns[j], dtype=object) for j, c in enumerate(header)})


def _field(value: str, delimiter: str) -> str:
    if delimiter in value or any(ch in value for ch in _SPECIAL):
        return '"' + value.replace('"', '""') + '"'
    return value


def write_rows(
    path: str | Path, header: Sequence[str], rows: Iterable[Sequence[str]], delimiter: str = ","
) -> None:
    """Write text cells so that :func:`read_rows` (or any CSV reader) reads the same cells."""
    check_delimiter(delimiter)
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        for row in [header, *rows]:
            if len(row) == 1 and row[0] == "":
                f.write('""\n')
                continue
            f.write(delimiter.join(_field(str(v), delimiter) for v in row))
            f.write("\n")


def mark_missing(frame: pd.DataFrame, columns: list[str], label: str) -> pd.DataFrame:
    """Replace empty cells of ``columns`` by the missing label (a category of its own).

    A column that already holds the label as a value is an error: missing and that value
    would become one category and could not be told apart in the output.
    """
    if label == "":
        raise ConfigError("--missing-label must not be empty: an empty output cell is a"
                          " suppressed value")
    out = frame.copy()
    for c in columns:
        if (out[c] == label).any():
            raise DataError(
                f"column {c!r} holds the value {label!r}, which is the missing label; choose"
                " another --missing-label"
            )
        out[c] = out[c].where(out[c] != "", label)
    return out
