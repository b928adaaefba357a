"""The refresh's linked guard reads every stored version, not only the latest state (review 10
final, H1): a record an older version rules out is never recruited for a changed record, so
what the guard considers safe is what the gate's SQL twin (macros/gates/linked_changes_sql.sql)
and the reference over every version (tests/combined_view_check.py) accept."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.combined_view_check import (
    combined_violations,
    ever_linked_violations,
    linked_set,
    linked_violations,
    version_violations,
)
from tests.living_line import ID, Line, releases

QIS = ["age", "diag"]  # the columns of tests/combined_levels_sql.py: the gate test reuses it
K = 3


def _table(ages: dict[int, str]) -> pd.DataFrame:
    return pd.DataFrame({ID: list(ages), "age": list(ages.values()), "diag": ["a1"] * len(ages)})


def _independent_problems(versions: list) -> list:
    """What the independent check (tests/combined_view_check.py) finds on `versions` over the
    one combination of QIS: each version alone, the combined view, changed records linked."""
    combos = [tuple(QIS)]
    problems = [v for r in versions for v in version_violations(QIS, r, combos, K)]
    problems += combined_violations(QIS, versions, combos, K)
    return problems + linked_violations(QIS, versions, combos, K)


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
    assert _independent_problems(versions) == []
    # the guard counts record 1 (changed now) at k or more; records 5-7 (changed in v2, targets
    # again in v3: review 11b, L1) are held in an older state: with the pairs' per-release
    # detail it counts them by the gate's rule (before review 11 final, M1: 1 each, a lower
    # bound, (4, 3) here), never more than the gate's SQL
    (check,) = results[2].linked
    assert (check.changed_records, check.records_below_k) == (4, 0)
    assert line.guard_over_gate == []
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


def test_a_deleted_target_keeps_the_linked_set_it_was_published_with() -> None:
    """Issue 32 (docs/living-release.md, "A deleted target"): v2 corrects record 1 (21 -> 33),
    hidden among records 1-5 (the gate's (1, 5, 0)); v3 deletes record 1 and record 13 (an
    unchanged 33), changes records 2-4, which hid record 1, to 25 and records 9-10 to 25. The
    gate does not check record 1 in v3 (the candidate does not hold it): its linked set runs
    over the versions holding it, v1 and v2, on each record's own cells there, rows that no
    later version changes. Judged by a brute force over all three versions (every record that
    ever changed, deleted or not), record 1 is still linked to {1, ..., 5}, what the gate
    counted when v2 was published. What is not counted: a recipient who also knows *when* a
    record left the line rules out the records still present, and finds record 1 alone, as
    it finds the unchanged record 13 alone (a deletion's timing exposes any record: the
    combined view, where deleted records stay, does not model it)."""
    v1 = {**{i: "21" for i in (1, 2, 3, 4, 5)}, **{i: "25" for i in (6, 7, 8)},
          **{i: "33" for i in range(9, 14)}}
    v2 = {**v1, 1: "33"}
    v3 = {**{r: a for r, a in v2.items() if r not in (1, 13)},
          **{r: "25" for r in (2, 3, 4, 9, 10)}}
    line = Line(QIS, K, [tuple(QIS)])
    out = []
    for ages in (v1, v2, v3):
        out.append(line.publish(_table(ages)))
        if len(out) == 2:
            assert line.gate_linked == {"age+diag": (1, 5, 0)}
    assert [p is not None for p, _r in out] == [True, True, True], [
        r.refusals() for _p, r in out]
    versions = releases(line, [_table(a) for a in (v1, v2, v3)])
    assert _independent_problems(versions) == []
    assert ever_linked_violations(QIS, versions, [tuple(QIS)], K) == []
    assert linked_set(QIS, versions, 1, QIS) == {1, 2, 3, 4, 5}
    assert linked_set(QIS, versions, 1, QIS, knows_deletion=True) == {1}
    assert linked_set(QIS, versions, 13, QIS, knows_deletion=True) == {13}


def _hider_line(detail: bool) -> tuple[Line, list, list]:
    """The example of docs/living-release.md (review 11 final, M1): k = 3, v1 ages records 1-5
    21, 6-8 25, 9-13 33; v2 corrects record 1 (21 -> 33); v3 changes records 2-4, which hid
    it, to 25. Returns the line, the tables and the three publish results."""
    v1 = {**{i: "21" for i in (1, 2, 3, 4, 5)}, **{i: "25" for i in (6, 7, 8)},
          **{i: "33" for i in range(9, 14)}}
    v2 = {**v1, 1: "33"}
    v3 = {**v2, 2: "25", 3: "25", 4: "25"}
    line = Line(QIS, K, [tuple(QIS)], detail=detail)
    out = []
    for ages in (v1, v2, v3):
        out.append(line.publish(_table(ages)))
    return line, [_table(a) for a in (v1, v2, v3)], out


def test_a_hider_of_an_old_correction_changing_is_published_safely() -> None:
    """Review 11 final, M1 (was the pinned liveness limit
    test_a_hider_of_an_old_correction_changing_is_refused): v2 corrects record 1 (21 -> 33),
    v3 changes records 2-4, which hid it, to 25. With the pairs' per-release detail (record
    1's age in v1, each record's own cells in v1 and v2) the guard counts record 1 by the
    gate's rule and recruits: it suppresses the new ages of records 2-4 (they fit record 1 in
    v1 and v2), and v3 is published with every version, the combined view and every linked set
    at k or more. On the old guard (31d64a4) v3 was refused: it counted record 1 1 and the
    gate's SQL printed {'age+diag': (4, 2, 1)}."""
    line, tables, out = _hider_line(detail=True)
    assert [p is not None for p, _r in out] == [True, True, True], [
        r.refusals() for _p, r in out]
    versions = releases(line, tables)
    assert _independent_problems(versions) == []
    (changed, smallest, below), = line.gate_linked.values()
    assert (changed, below) == (4, 0) and smallest is not None and smallest >= K
    (check,) = out[2][1].linked
    assert check.records_below_k == 0 and check.min_consistent >= K
    assert line.guard_over_gate == []
    v3 = versions[2]
    assert [v3[i][0][0] for i in (2, 3, 4)] == [None] * 3  # recruited: new ages suppressed
    assert out[2][1].stats.linked_cells >= 1  # the guard recruited (the phases did the rest)


def test_without_the_detail_a_hider_changing_is_published_by_the_guard_by_person() -> None:
    """The same line from pairs without the per-release detail (a warehouse query of an older
    package): the linked guard cannot read record 1's v1 values, counts it 1 (a lower bound)
    and recruits nothing. The guard by person (session 20, review 19 F1) counts record 1's
    old state (age 21), a row of its own without the detail, against records 2-4, now one
    record each with their v1 cells and their new ages: below k, it suppresses their new
    ages, and the gate's SQL linked check then passes (4 changed, none below k). On 8b94a27
    v3 was refused (the gate's SQL printed {'age+diag': (4, 2, 1)})."""
    line, tables, out = _hider_line(detail=False)
    assert out[2][0] is not None
    (changed, smallest, below), = line.gate_linked.values()
    assert (changed, below) == (4, 0) and smallest is not None and smallest >= K
    (check,) = out[2][1].linked
    assert check.min_consistent == 1  # the linked guard's lower bound, as before
    assert out[2][1].stats.person_cells >= 1
    versions = releases(line, tables)
    assert _independent_problems(versions) == []
    assert ever_linked_violations(QIS, versions, [tuple(QIS)], K) == []
    assert [versions[2][i][0][0] for i in (2, 3, 4)] == [None] * 3


def _pairs_frame(p2_own1: tuple[str | None, str | None], long: bool = False) -> pd.DataFrame:
    """Pairs (two stored releases) for one QI, age, hand-made: T (3 records) kept now at 33,
    held in r1 in an older state (age 21, history ``21``); P (2 records) kept at 21, its age
    shown in r1, suppressed in r2 (fits T in both); P2 (2 records) kept at 21, held in r1 in
    older states with their age cells ``p2_own1`` (smallest, largest); U (4 records) kept at
    33, new in r2. ``long``: the detail as rows (living.pairs.DETAIL, the long form of
    refresh_line.sql past 400 per-release columns)."""
    rows = [
        # age, earlier, published, revealed, history, was1 min/max, own1 min/max, was2, own2, n
        ("33", "33", "33", "33", "21", "21", "21", "21", "21", None, None, "33", "33", 3),
        ("21", "21", None, "21", "11", None, None, "21", "21", None, None, None, None, 2),
        ("21", "21", None, None, "21", "22", "22", *p2_own1, None, None, None, None, 2),
        ("33", "33", "33", "33", "01", None, None, None, None, None, None, "33", "33", 4),
    ]
    if long:
        keys = ["age", "age__earlier", "age__published", "age__revealed", "deid_history"]
        detail = ["age__was_min", "age__was_max", "age__own_min", "age__own_max"]
        out = []
        for r in rows:  # the pairs row, then its detail rows (one per release here)
            out.append((*r[:5], None, None, None, None, None, r[-1]))
            for i in (1, 2):
                values = r[5 + 4 * (i - 1): 9 + 4 * (i - 1)]
                if any(v is not None for v in values):
                    out.append((*r[:5], "10" if i == 1 else "01", *values, 0))
        return pd.DataFrame(out, columns=[*keys, "deid_detail_releases", *detail, "n"]
                            ).astype(object)
    cols = ["age", "age__earlier", "age__published", "age__revealed", "deid_history",
            "age__was1_min", "age__was1_max", "age__own1_min", "age__own1_max",
            "age__was2_min", "age__was2_max", "age__own2_min", "age__own2_max", "n"]
    return pd.DataFrame(rows, columns=cols).astype(object)


@pytest.mark.parametrize("long", [False, True])
def test_a_pairs_row_whose_records_differ_counts_as_the_least_consistent(long: bool) -> None:
    """The per-release detail is the smallest and largest over a pairs row's records (not a
    key): a row whose records showed different cells in a release (P2: 21 and 25 in r1) fits
    no value there, so the guard never counts a record the gate would not (when the records
    agree, 21, they fit T's r1 age and count). T itself counts (its own cells fit it)."""
    from dbt_deid.living.linked import linked_counts
    from dbt_deid.living.pairs import read_pairs
    from dbt_deid.living.views import WorkTable

    def count(p2_own1: tuple[str | None, str | None]) -> dict[str, int]:
        inp = read_pairs(_pairs_frame(p2_own1, long), ["age"])
        work = WorkTable.build(inp)
        targets, counts = linked_counts(work, inp, [0])
        return {str(inp.labels[0][inp.current[work.src[t], 0]]): int(c)
                for t, c in zip(targets, counts, strict=True)}

    # T (now 33): itself (3) and P (2), plus P2 when it fits; P2 (now 21, age 22 in r1) is a
    # target too: P (its own cells 21 in r1, suppressed in r2) and P2 itself fit it only on
    # what they showed in r1 (22)
    assert count(("21", "25"))["33"] == 3 + 2
    assert count(("21", "21"))["33"] == 3 + 2 + 2
    assert count((None, None))["33"] == 3 + 2 + 2  # suppressed in r1: fits
    assert count(("22", "22"))["21"] == 2  # P2 itself: P showed 21 in r1


def test_detail_rows_that_do_not_fit_their_pairs_are_refused() -> None:
    """The long form's detail rows are read only where they fit (living.pairs.read_pairs): a
    detail row whose key matches no pairs row, a release given twice for one pairs row, or a
    mask of the wrong length is an inconsistent store (DataError), never detail dropped."""
    from dbt_deid.errors import DataError
    from dbt_deid.living.pairs import DETAIL, read_pairs

    good = _pairs_frame(("21", "21"), long=True)
    read_pairs(good, ["age"])
    detail = good[good[DETAIL].notna()]
    orphan = detail.iloc[[0]].assign(age="99")  # no pairs row has age 99
    twice = detail.iloc[[0]].assign(**{DETAIL: "11"})  # release 1 again for that row
    short = detail.iloc[[0]].assign(**{DETAIL: "1"})
    for bad, what in ((orphan, "matches no pairs row"), (twice, "two detail rows"),
                      (short, "one character 0 or 1")):
        with pytest.raises(DataError, match=what):
            read_pairs(pd.concat([good, bad], ignore_index=True), ["age"])
