"""Seed 000's order through dbt on DuckDB (issue 34 item 5): `sample.order: population_first`
suppresses the whole population (every class of every combination at least k) and draws the
file from the suppressed records; two releases with the same seed and fraction and slots 0 and 1
are disjoint files. The gates check what is published (the guarantee is per published file): a
10% file of a population protected at k holds classes below k, so the publish step refuses it
and names the k-anonymity gate, while the population itself passes."""

from __future__ import annotations

import copy

import pytest

from dbt_deid.sampling import sample_mask
from tests.integration.dbt_runner import build_release, release_vars

pytestmark = pytest.mark.dbt

SAMPLE = {"fraction": 0.25, "seed": 34, "order": "population_first"}


def _two_files() -> dict:
    variables = release_vars()
    first = variables["deid_release"]
    first["sample"] = {**SAMPLE, "slot": 0}
    second = copy.deepcopy(first)
    second.update(name="it_second", sample={**SAMPLE, "slot": 1})
    variables["deid_releases"] = {"it_second": second}
    return variables


def test_population_first_protects_the_population_then_draws_disjoint_files(
        it_database, tmp_path) -> None:
    variables = _two_files()
    cfg = variables["deid_release"]
    run = build_release(it_database, tmp_path, variables,
                        extra=["tag:deid_release_it_second"])
    source = run.query("select abstract_id from discharge_abstracts")
    n = len(source)
    k = 5  # tau 0.2
    for prefix in ("", "it_second__"):
        # the protection ran on the whole population, every record kept
        assert run.query(f"select count(*) as n from {prefix}deid_suppressed").n[0] == n
        # every class of the population has at least k records, for every combination
        for combo in cfg["combinations"]:
            cols = ", ".join(combo)
            small = run.query(f"select count(*) as classes from (select {cols}, count(*) as f"
                              f" from {prefix}deid_suppressed group by {cols}) as c"
                              f" where f < {k}")
            assert small.classes[0] == 0, (prefix, combo)
    files = {p: set(run.query(f"select abstract_id from {p}deid_sample_file").abstract_id)
             for p in ("", "it_second__")}
    # the files are disjoint samples of the population, the slots of the seeded hash
    assert files[""].isdisjoint(files["it_second__"])
    ids = list(source.abstract_id)
    for slot, p in enumerate(("", "it_second__")):
        assert 0.2 * n < len(files[p]) < 0.3 * n
        want = {i for i, m in zip(ids, sample_mask(ids, 0.25, slot, 34), strict=True) if m}
        assert files[p] == want  # the SQL hash and its Python twin (seeded, reproducible)
    # a file is the slot's rows of the suppressed population, unchanged
    rows = run.query("select count(*) as n from deid_sample_file as g inner join"
                     " deid_suppressed as s on s.abstract_id = g.abstract_id"
                     " and s.mrdx is not distinct from g.mrdx"
                     " and s.age is not distinct from g.age")
    assert rows.n[0] == len(files[""])

    # the gate table checks the file (deid_sample_file, the checked release), not the
    # population: the guarantee is k in what is published, and a 25% file of classes >= 5 has
    # smaller ones; the row count is the file's
    gates = {r.gate: r for r in run.query("select * from deid_gate_results").itertuples()}
    assert not gates["k_anonymity"].passed, gates
    assert gates["row_count"].passed, gates
    # every diagnostic describes the file, what is published, not the population (issue 34):
    # the record risk, the information loss, the risk summary and its exact check
    n_file = len(files[""])
    risk = run.query("select class_size, records from deid_diagnostics where diagnostic ="
                     " 'risk_cdf' and stage = 'published' and combination = '(all combinations)'")
    assert risk.records.sum() == n_file  # each record of the file once, at its smallest class
    assert (risk.class_size < k).any()  # the gate table's verdict, in the records' risk
    loss = run.query("select records from deid_diagnostics where diagnostic = 'information_loss'")
    assert set(loss.records) == {n_file}
    summary = run.query("select * from deid_diagnostics"
                        " where diagnostic = 'risk_summary' and stage = 'published'")
    assert set(summary.records) == {n_file}
    assert (summary.smallest_class < k).any() and (summary.min_consistent_exact < k).any()
    # ... so the build refuses it, nothing published
    assert not run.ok
    assert "deid_published" not in run.tables()
    history = run.query("select release_name, status, gates_failed from deid_release_history"
                        " order by release_name")
    assert list(history.status) == ["refused", "refused"]
    assert all("k_anonymity" in g for g in history.gates_failed)


def test_an_empty_file_is_an_error_naming_the_sample(it_database, tmp_path) -> None:
    """population_first with a slot that holds no record: the population could be protected,
    but there is nothing to release; one error naming the sample, before any work."""
    # (--vars is read as YAML, where 1e-05 is text: a fraction with a decimal point)
    variables = release_vars(sample={"fraction": 0.0002, "slot": 3, "seed": 34,
                                     "order": "population_first"})
    run = build_release(it_database, tmp_path, variables, command="run",
                        select="+deid_generalized")
    assert not run.ok
    assert "has no records in its sample (sample.fraction 0.0002, slot 3)" in run.output, \
        run.output[-3000:]
