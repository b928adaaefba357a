"""The refresh counts the combined view by person (review 19, F1; issue 32).

Recipients keep every version and link a record's rows across versions. The gate counts each
record once with every cell any version revealed (macros/gates/combined_persons_sql.sql); the
refresh's Python algorithm (dbt_deid.living) counted each record *state* as a record, so where
the count by person was below k it did not suppress more and the gate refused the version
(the nightly line stuck). The reviewer's smallest case (k = 3, 13 records): S001, S005 and
S009 published (NULL, NULL) in version 1; S001's q0 corrected b -> a. On 8b94a27 the refresh
showed S001 as (a, a) in version 2 (combined check by state: smallest 3), and target S005 =
(b, c) is consistent with S005 and S009 only by person (2 < k). Now the refresh shows S001
(NULL, NULL) again, and both the independent count by person and the gate's SQL say 3.
"""

from __future__ import annotations

import duckdb
import pandas as pd

from tests.combined_view_check import combined_view, person_violations, view_violations
from tests.living_line import ID, Line, releases
from tests.unit.test_combined_persons_sql import _combined, _summary

QIS = ["q0", "q1"]
V1 = [(1, "b", "a"), (2, "a", "a"), (3, "a", "b"), (4, "a", "b"), (5, "b", "c"), (6, "a", "a"),
      (7, "a", "c"), (8, "a", "a"), (9, "b", "c"), (10, "a", "c"), (11, "a", "b"),
      (12, "a", "c"), (13, "a", "b")]
V2 = [(r, "a" if r == 1 else a, b) for r, a, b in V1]  # S001's q0 corrected b -> a


def _line() -> tuple[Line, list[pd.DataFrame], list]:
    line = Line(QIS, 3, [("q0", "q1")])
    truths, results = [], []
    for table in (V1, V2):
        frame = pd.DataFrame(table, columns=[ID, *QIS])
        published, result = line.publish(frame)
        assert published is not None, result.refusals()
        truths.append(frame)
        results.append(result)
    return line, truths, results


def test_the_reviewers_case_publishes_a_version_safe_by_person() -> None:
    """8b94a27: version 2 published with S001 (a, a); by state the combined view's smallest
    consistent set was 3, by person 2 records (S005, S009) were consistent with 2 < k."""
    line, truths, (_r1, r2) = _line()
    versions = releases(line, truths)
    assert person_violations(QIS, versions, [QIS], 3) == []
    assert versions[1][1][0] == (None, None)  # the corrected record hidden again
    assert [(c.min_consistent, c.records_below_k_exact) for c in r2.combined_checks] == [(3, 0)]
    assert r2.stats.person_cells > 0 and r2.ok
    # the view by state (the rule before) still says 3: it never saw the gap
    truth, cells = combined_view(versions)
    assert view_violations(QIS, truth, cells, [QIS], 3) == []


def test_the_gates_sql_agrees_with_the_refresh() -> None:
    """combined_persons_sql on DuckDB (as tests/unit/test_combined_persons_sql.py renders
    it) over the two published versions: smallest 3, none below k, the refresh's figure."""
    line, truths, (_r1, r2) = _line()
    states: dict[tuple, list] = {}
    for version in releases(line, truths):
        for rid, (cells, true) in version.items():
            merged = states.setdefault((str(rid), true), [None, None])
            for j, c in enumerate(cells):
                merged[j] = c if c is not None else merged[j]
    con = duckdb.connect()
    _combined(con, [(rid, c[0], t[0], c[1], t[1]) for (rid, t), c in sorted(states.items())])
    assert _summary(con, "persons", QIS, 3, "deid_target") == (3, 0)
    assert r2.combined_checks[0].min_consistent == 3
