"""dbt integration: a release with ``algorithm: mask_cover`` (docs/suppression-exact.md) builds,
passes every gate and publishes; the comparison model (built when the release declares
``report.algorithm_comparison: true``) shows it next to the paper's two, and the report shows
the comparison through deid_report_inputs."""

from __future__ import annotations

import pytest

from tests.independent_check import smallest_class, smallest_consistent_set
from tests.integration.dbt_runner import build_release, release_vars
from tests.published_form import published_frame

pytestmark = pytest.mark.dbt


def test_mask_cover_release_publishes_and_passes(it_database, tmp_path) -> None:
    variables = release_vars(algorithm="mask_cover", report={
        "algorithm_comparison": True, "path": str(tmp_path / "reports" / "mask_cover.html")})
    release = variables["deid_release"]
    run = build_release(it_database, tmp_path, variables, report=True)
    assert run.ok, run.output[-3000:]
    published = run.query("select * from deid_published")
    suppressed = run.query("select * from deid_suppressed")
    assert len(published) == len(suppressed) == 4000
    k = run.query("select * from deid_gate_results")
    assert k["passed"].all(), k
    combos = release.get("combinations") or [list(release["quasi_identifiers"])]
    k_value = 5  # the integration release's tau 0.2
    for b in combos:
        truth = published_frame(  # the true values as the published table labels them
            suppressed[[f"{q}__generalized" for q in b]].set_axis(list(b), axis=1), release)
        assert smallest_class(published, b) >= k_value
        assert smallest_consistent_set(truth, published, b) >= k_value
    comparison = run.query("select * from deid_algorithm_comparison")
    assert set(comparison["algorithm"]) == {"combinations", "complete", "mask_cover"}
    selected = comparison[comparison["selected"].astype(bool)]
    assert set(selected["algorithm"]) == {"mask_cover"}
    whole = selected[selected["column_name"] == "(all quasi-identifiers)"]
    cells = int(published[[q for q in release["quasi_identifiers"] if q in published.columns]]
                .isna().sum().sum())
    assert int(whole["suppressed_cells"].iloc[0]) == cells
    # the report reads the comparison through deid_report_inputs (its algorithm_comparison part)
    part = run.query("select * from deid_report_inputs where part = 'algorithm_comparison'")
    assert set(part["algorithm"]) == {"combinations", "complete", "mask_cover"}
    page = (tmp_path / "reports" / "mask_cover.html").read_text(encoding="utf-8")
    compared = page[page.index("Suppression algorithms compared"):]
    assert "mask_cover" in compared and "Not requested" not in compared
