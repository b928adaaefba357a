"""Review 19, F1, through dbt: the combined view of a line is counted by person.

A recipient keeps every version and links a record's rows across versions (here by the
pass-through column `stay_ref`). The reviewer's smallest case (k = 3, 13 records, QIs q0 and q1
released as they are): version 1 hides S001, S005 and S009 as (NULL, NULL), a class of 3; then
S001's q0 is corrected b -> a. On ec04311 the refresh published version 2 (the gate, counting
S001's old state as a record of its own, said "smallest 3") with S001 shown (a, a): a recipient
who knows S005 is (b, c) finds only S005 and S009 consistent with it over both versions, 2 < k.
The gate now counts each record once with every cell any version revealed (session 19: the
refresh was refused, nothing published), and since session 20 the refresh counts by person too
(src/dbt_deid/living/persons.py): it suppresses S001's new cells, so version 2 publishes and an
independent count by person over both published versions finds every record consistent with at
least k persons.
"""

from __future__ import annotations

import copy

from tests.integration.dbt_runner import INTEGRATION, project_vars, run_dbt

V1 = [(1, "b", "a"), (2, "a", "a"), (3, "a", "b"), (4, "a", "b"), (5, "b", "c"), (6, "a", "a"),
      (7, "a", "c"), (8, "a", "a"), (9, "b", "c"), (10, "a", "c"), (11, "a", "b"), (12, "a", "c"),
      (13, "a", "b")]
K = 3


def _vars(rows: list[tuple]) -> dict:
    variables = copy.deepcopy(project_vars(INTEGRATION))
    variables.pop("deid_releases", None)
    variables["people_rows"] = [[r, f"S{r:03d}", a, b] for r, a, b in rows]
    variables["deid_release"] = {
        "name": "tiny_line", "source": "people_rows", "record_id": "rid",
        "pass_through": ["stay_ref"],
        "quasi_identifiers": {"q0": {"level": 0}, "q1": {"level": 0}},
        "combinations": [["q0", "q1"]], "tau": 0.34, "max_suppression": 0.9,
        "max_changed_share": 0.2}
    return variables


def _published(run) -> dict[str, tuple]:
    """The published table by stay_ref: (q0, q1), None for a suppressed cell."""
    frame = run.query("select stay_ref, q0, q1 from deid_published")
    return {s: tuple(None if v is None or v != v else v for v in (a, b))
            for s, a, b in frame.itertuples(index=False)}


def _by_person(versions: list[dict[str, tuple]], truths: list[dict[str, tuple]]) -> int:
    """The smallest number of persons (rows linked by stay_ref) consistent with a record's true
    values in every version that holds both (a suppressed cell, None, is consistent)."""
    smallest = None
    for target in truths[0]:
        n = sum(1 for person in versions[0] if all(
            person not in pv or all(c is None or c == x for c, x in zip(pv[person], tv[target],
                                                                         strict=True))
            for pv, tv in zip(versions, truths, strict=True)))
        smallest = n if smallest is None else min(smallest, n)
    return smallest


def test_a_correction_that_would_expose_an_unchanged_record_is_published_safely(
        tmp_path) -> None:
    select = ["build", "--select", "+deid_published"]
    first = run_dbt(INTEGRATION, select, tmp_path / "v1", _vars(V1))
    assert first.ok, first.output[-3000:]
    v2 = [(r, "a" if r == 1 else a, b) for r, a, b in V1]
    second = run_dbt(INTEGRATION, select, tmp_path / "v2", _vars(v2), first.database)
    assert second.ok, second.output[-3000:]
    published = [_published(first), _published(second)]
    # S001's corrected cell is not revealed (on 8b94a27 version 2 showed it as (a, a), and the
    # gate, counting by person, refused it; on ec04311 it was published so)
    assert published[0]["S001"] == (None, None)
    assert published[1]["S001"][0] is None, published[1]["S001"]
    truths = [{f"S{r:03d}": (a, b) for r, a, b in rows} for rows in (V1, v2)]
    assert _by_person(published, truths) >= K
    history = second.query("select status from deid_release_history order by recorded_at")
    assert list(history["status"]) == ["published", "published"]
