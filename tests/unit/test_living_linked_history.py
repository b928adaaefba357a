"""The refresh's linked guard reads every stored version, not only the latest state (review 10
final, H1): a record an older version rules out is never recruited for a changed record, so
what the guard considers safe is what the gate's SQL twin (macros/gates/linked_changes_sql.sql)
and the reference over every version (tests/combined_view_check.py) accept."""

from __future__ import annotations

import pandas as pd

from tests.combined_view_check import combined_violations, linked_violations, version_violations
from tests.living_line import ID, Line, releases

QIS = ["age", "diag"]  # the columns of tests/combined_levels_sql.py: the gate test reuses it
K = 3


def _table(ages: dict[int, str]) -> pd.DataFrame:
    return pd.DataFrame({ID: list(ages), "age": list(ages.values()), "diag": ["a1"] * len(ages)})


def line_with_an_earlier_correction() -> tuple[Line, list[pd.DataFrame], list]:
    """v1: records 1-4 age 21, 5-7 age 25, 8-12 age 33. v2: 5-7 corrected to 21 (linked set
    3 = k: themselves). v3: record 1 corrected 21 -> 33. Records 5-7 show 21 in v2 like 2-4,
    but 25 in v1: only 2-4 can hide record 1 across v1, v2 and v3 (with the latest state
    only, 2-7 are one pattern and the records split off it for the guard are the last by id,
    6 and 7)."""
    v1 = {**{i: "21" for i in (1, 2, 3, 4)}, **{i: "25" for i in (5, 6, 7)},
          **{i: "33" for i in range(8, 13)}}
    v2 = {**v1, **{i: "21" for i in (5, 6, 7)}}
    v3 = {**v2, 1: "33"}
    line = Line(QIS, K, [tuple(QIS)])
    truths, results = [], []
    for ages in (v1, v2, v3):
        published, result = line.publish(_table(ages))
        results.append(result)
        if published is not None:
            truths.append(_table(ages))
    return line, truths, results


def test_a_record_an_older_version_rules_out_is_not_recruited() -> None:
    line, truths, results = line_with_an_earlier_correction()
    assert len(truths) == 3, [r.refusals() for r in results]
    versions = releases(line, truths)
    combos = [tuple(QIS)]
    problems = [v for r in versions for v in version_violations(QIS, r, combos, K)]
    problems += combined_violations(QIS, versions, combos, K)
    problems += linked_violations(QIS, versions, combos, K)
    assert problems == []
    # what the guard counted is what holds across every version
    (check,) = results[2].linked
    assert (check.changed_records, check.records_below_k) == (1, 0)
    assert check.min_consistent is not None and check.min_consistent >= K
    v3 = versions[2]
    assert [v3[i][0][0] for i in (5, 6, 7)] == ["21"] * 3  # never recruited
