"""A de-identified mart that lives (issue 32): nightly refreshes publish, and everything ever
published stays k-anonymous together.

One copy of the integration database and one chain of `dbt run`s of one release (4,000
records, k = 5, three combinations), the source changed between runs as a nightly load would:

1. day 1: published (version 1, seed 000's algorithm);
2. +1% new records (40): a refresh, published; every earlier record's row is the same;
3. +3% new records (120), 1% deleted (40) and 10 corrected (their diagnosis changed): published;
   kept rows change only by cells newly suppressed for the new version alone;

each checked by the independent check of ``tests/combined_view_check.py``: every version
alone, the combined view of all versions (one row per record state), and the changed records
linked across versions. On main 3097eea step 2 was refused ("combined releases: ... 2
record(s) consistent with fewer than k = 5 combined records").
"""

from __future__ import annotations

import shutil

import duckdb
import pandas as pd
import pytest

from dbt_deid.synthetic.discharge import discharge_table
from tests.combined_view_check import (
    combined_violations,
    linked_violations,
    version_violations,
)
from tests.integration.dbt_runner import INTEGRATION, release_vars, run_dbt

pytestmark = pytest.mark.dbt

NAME = "living_it"
SOURCE = "main.discharge_abstracts"


def _records(run) -> tuple[list[str], dict[int, tuple[tuple, tuple]]]:
    """(QIs, record id -> (published cells, true values)) of the version just computed
    (deid_suppressed, the checked release), read with the test's own query."""
    cols = list(run.query("select * from deid_suppressed limit 0").columns)
    qis = [c for c in cols if f"{c}__generalized" in cols]
    frame = run.query("select abstract_id, " + ", ".join(qis) + ", "
                      + ", ".join(f"{q}__generalized" for q in qis) + " from deid_suppressed")
    out = {}
    for row in frame.itertuples(index=False):
        values = [None if pd.isna(v) else v for v in row[1:]]
        out[int(row[0])] = (tuple(values[:len(qis)]), tuple(values[len(qis):]))
    return qis, out


def _add(db, rows: int, seed: int, first_id: int) -> None:
    new = discharge_table(rows, seed=seed, first_id=first_id).to_pandas()
    with duckdb.connect(str(db)) as con:
        cols = [c[0] for c in con.execute(f"select * from {SOURCE} limit 0").description]
        con.register("deid_new", new[cols])
        con.execute(f"insert into {SOURCE} select * from deid_new")


def _check(qis, versions, combinations, k) -> None:
    for v in versions:
        assert version_violations(qis, v, combinations, k) == []
    assert combined_violations(qis, versions, combinations, k) == []
    assert linked_violations(qis, versions, combinations, k) == []


@pytest.fixture(scope="module")
def line(it_database, tmp_path_factory):
    """The database copy and a runner of the release on it (module scope: the steps chain)."""
    tmp = tmp_path_factory.mktemp("living")
    db = tmp / "release.duckdb"
    shutil.copy(it_database, db)

    def run(step: str, **changes):
        return run_dbt(INTEGRATION, ["run", "--select", "package:dbt_deid"], tmp / step,
                       release_vars(name=NAME, **changes), db)

    return db, run


def test_a_line_refreshes_and_publishes(line):
    db, run = line
    base = release_vars(name=NAME)["deid_release"]
    combinations, k = base["combinations"], round(1 / base["tau"])

    # 1. day 1
    first = run("v1")
    assert first.ok, first.output[-3000:]
    qis, rel1 = _records(first)
    assert len(rel1) == 4000

    # 2. +1% new records: published; every earlier row is the same
    _add(db, 40, seed=101, first_id=100_001)
    second = run("v2")
    assert second.ok, second.output[-3000:]
    assert "refresh: 4000 kept, 40 new" in second.output
    _, rel2 = _records(second)
    assert len(rel2) == 4040
    assert all(rel2[r] == rel1[r] for r in rel1)
    _check(qis, [rel1, rel2], combinations, k)

    # 3. +3% new, 1% deleted, 10 corrected (diagnosis): published
    _add(db, 120, seed=102, first_id=200_001)
    with duckdb.connect(str(db)) as con:
        con.execute(f"delete from {SOURCE} where abstract_id in"
                    f" (select abstract_id from {SOURCE} where abstract_id <= 4000"
                    " order by abstract_id limit 40)")
        con.execute(f"update {SOURCE} set mrdx = (select mrdx from {SOURCE}"
                    " where abstract_id = 3000) where abstract_id between 2001 and 2010"
                    f" and mrdx <> (select mrdx from {SOURCE} where abstract_id = 3000)")
    third = run("v3")
    assert third.ok, third.output[-3000:]
    _, rel3 = _records(third)
    assert len(rel3) == 4040 - 40 + 120
    changed = [r for r in rel3 if r in rel2 and rel3[r][1] != rel2[r][1]]
    assert 0 < len(changed) <= 10
    moved = 0
    for r, (cells, true) in rel3.items():
        if r in rel2 and rel2[r][1] == true and rel2[r][0] != cells:
            # a kept row changes only by cells newly suppressed (never a cell revealed)
            assert all(c is None or c == p for c, p in zip(cells, rel2[r][0], strict=True))
            moved += 1
    _check(qis, [rel1, rel2, rel3], combinations, k)
    history = third.query("select release_version, status from deid_release_history"
                          f" where release_name = '{NAME}' order by recorded_at")
    assert history["status"].tolist() == ["published"] * 3
    assert history["release_version"].tolist() == [1, 2, 3]
    print(f"living line: step 3 moved {moved} kept row(s), {len(changed)} changed record(s)")
