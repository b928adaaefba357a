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
    # the guard counts record 1 (changed now) at k or more; records 5-7 (changed in v2, targets
    # again in v3: review 11b, L1) are held in an older state: it counts them 1 (a lower bound,
    # their older values are not in the pairs) and the gate's SQL, which reads them, decides
    (check,) = results[2].linked
    assert (check.changed_records, check.records_below_k) == (4, 3)
    (changed, smallest, below), = line.gate_linked.values()
    assert (changed, below) == (4, 0) and smallest is not None and smallest >= K
    v3 = versions[2]
    assert [v3[i][0][0] for i in (5, 6, 7)] == ["21"] * 3  # never recruited


def test_a_record_changed_in_an_earlier_version_is_rechecked() -> None:
    """Review 11b, L1, through the refresh and the gate's SQL (tests/living_line.Line): v2
    corrects record 1 (21 -> 33) and the guard hides it among others; v3 deletes records 2-4
    (or changes them to 25), nothing else changes. Before the fix v3 was published with record
    1 linked to {1, 5} only, 2 < k = 3 (the gate's SQL printed (0, None, 0): no target); now
    v3 is refused, or what is published keeps every linked set at k."""
    v1 = {**{i: "21" for i in (1, 2, 3, 4, 5)}, **{i: "25" for i in (6, 7, 8)},
          **{i: "33" for i in range(9, 14)}}
    v2 = {**v1, 1: "33"}
    for v3 in ({r: a for r, a in v2.items() if r not in (2, 3, 4)},
               {**v2, 2: "25", 3: "25", 4: "25"}):
        line = Line(QIS, K, [tuple(QIS)])
        truths = []
        for ages in (v1, v2, v3):
            published, _result = line.publish(_table(ages))
            if published is not None:
                truths.append(_table(ages))
        assert len(truths) >= 2
        versions = releases(line, truths)
        assert linked_violations(QIS, versions, [tuple(QIS)], K) == []
        if len(truths) == 3:
            assert all(below == 0 for _n, _m, below in line.gate_linked.values())
        else:
            assert [b for _n, _m, b in line.gate_linked.values()] != [0]


def test_a_hider_of_an_old_correction_changing_is_refused() -> None:
    """Review 11 final, M1 (a liveness limit, not a hole; documented in docs/living-release.md,
    "Why nothing is recruited"): v2 corrects record 1 (21 -> 33), v3 changes records 2-4, which
    hid it, to 25. Suppressing their new ages would keep record 1 linked to {1..5}, but the
    guard cannot recruit for a target changed in an earlier version (the pairs do not carry its
    per-release values and the records' own cells there): it counts record 1 1, the gate's SQL
    counts it 2 < k and v3 is refused. When a fix recruits for it, v3 is published with every
    linked set at k: change this test then."""
    v1 = {**{i: "21" for i in (1, 2, 3, 4, 5)}, **{i: "25" for i in (6, 7, 8)},
          **{i: "33" for i in range(9, 14)}}
    v2 = {**v1, 1: "33"}
    v3 = {**v2, 2: "25", 3: "25", 4: "25"}
    line = Line(QIS, K, [tuple(QIS)])
    for ages in (v1, v2):
        published, result = line.publish(_table(ages))
        assert published is not None, result.refusals()
    published, result = line.publish(_table(v3))
    assert published is None
    assert line.gate_linked == {"age+diag": (4, 2, 1)}
    (check,) = result.linked
    assert check.min_consistent == 1  # record 1: the guard's lower bound
