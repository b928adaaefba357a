"""dbt layer of the risk-measurement suite (issue 6) on the integration_tests project.

Builds the release with the risk models, compares the SQL risk CDF and class-size histogram with
the core (:mod:`dbt_deid.risk`) on the same published table, checks the HTML report (exists,
parses, no QI value of a class smaller than k) and the small-area gate (fails when a flagged area
would be published, passes with the remedy).
"""

from __future__ import annotations

import copy
import re
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dbt_deid.risk import PRESETS, class_size_histogram, prosecutor_risk, risk_cdf
from tests.integration.dbt_runner import INTEGRATION, DbtRun, project_vars, run_dbt

pytestmark = pytest.mark.dbt

SELECT = ["--select", "+deid_published", "+deid_diagnostics", "+deid_release_report",
          "+deid_small_areas", "deid_release_plan", "+deid_uniqueness",
          "+deid_population_risk"]


def _release(tmp: Path, **extra: Any) -> dict[str, Any]:
    variables = project_vars(INTEGRATION)
    release = copy.deepcopy(variables["deid_release"])
    release["report"] = {"by": ["province", "age"], "path": str(tmp / "report.html")}
    release.update(extra)
    variables["deid_release"] = release
    return variables


def _small_areas(remedy: str) -> dict[str, Any]:
    return {"geography_column": "province", "areas": "it_small_areas",
            "hierarchy": "province_hierarchy", "threshold": 0.05, "remedy": remedy,
            "maxcombs": 40000, "coarser_level": 2}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.cells: list[str] = []
        self.tags = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags += 1

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.cells.append(data.strip())


def _gate_rows(run_tmp: Path, variables: dict[str, Any], database: Path) -> int:
    sql = ("select count(*) as n from ({{ adapter.dispatch('test_deid_small_areas', 'dbt_deid')"
           "(ref('deid_suppressed')) }}) as gate")
    run = run_dbt(INTEGRATION, ["show", "--inline", sql, "--output", "json"], run_tmp,
                  variables, database=database)
    assert run.ok, run.output
    match = re.search(r'"n":\s*(\d+)', run.output)
    assert match, run.output
    return int(match.group(1))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[DbtRun, dict[str, Any], Path]:
    tmp = tmp_path_factory.mktemp("risk_suite")
    variables = _release(tmp, preset="agreement", sampling_fraction=0.1,
                         small_areas=_small_areas("none"))
    run = run_dbt(INTEGRATION, ["build", *SELECT], tmp, variables)
    return run, variables, tmp


def test_sql_cdf_and_histogram_match_core(built: tuple[DbtRun, dict[str, Any], Path]) -> None:
    run, variables, _ = built
    assert "deid_diagnostics" in run.tables(), run.output
    release = variables["deid_release"]
    published = run.query("select * from deid_suppressed")
    for combo in release["combinations"]:
        name = "+".join(combo)
        frame = published[combo].astype(object).where(published[combo].notna(), None)
        core = prosecutor_risk(frame, combo, release["tau"], count_column=None)
        want = risk_cdf(core.record_risk)
        got = run.query(f"select risk, records, cumulative_share from deid_diagnostics where"
                        f" diagnostic = 'risk_cdf' and stage = 'published'"
                        f" and combination = '{name}' order by risk")
        assert np.allclose(got["risk"], want["risk"])
        assert list(got["records"]) == list(want["records"])
        assert np.allclose(got["cumulative_share"], want["cumulative_share"])
        hist_want = class_size_histogram(core.class_size)
        hist_got = run.query(f"select class_size, classes, records from deid_diagnostics"
                             f" where diagnostic = 'class_size_histogram'"
                             f" and stage = 'published' and combination = '{name}'"
                             " order by class_size")
        pd.testing.assert_frame_equal(hist_got.astype("int64"), hist_want.astype("int64"),
                                      check_dtype=False)


def test_diagnostics_pool_small_categories_and_record_preset(
    built: tuple[DbtRun, dict[str, Any], Path],
) -> None:
    run, variables, _ = built
    k = 5
    by = run.query("select * from deid_diagnostics where diagnostic = 'suppression_by'"
                   " and by_column <> '(none)'")
    named = by[by["category"] != "other (n < k)"]
    assert (named["records"] >= k).all()
    assert set(by["by_column"]) == {"province", "age"}
    # the release context (preset) is recorded with the settings and stated in the report
    preset = run.query("select value from deid_release_plan where kind = 'setting'"
                       " and setting = 'preset'")
    assert preset["value"].tolist() == ["agreement"]
    page = Path(run.query("select path from deid_release_report")["path"][0]).read_text(
        encoding="utf-8")
    assert escape(PRESETS["agreement"].title) in page
    assert escape(PRESETS["agreement"].justification) in page
    uniq = run.query("select * from deid_uniqueness")
    assert len(uniq) == len(variables["deid_release"]["combinations"])
    pop = run.query("select * from deid_population_risk")
    assert (pop["journalist_max_risk"] <= pop["tau"] * 0.1 + 1e-9).all()


def test_report_has_no_small_class_values(built: tuple[DbtRun, dict[str, Any], Path]) -> None:
    run, variables, tmp = built
    # this release publishes records of flagged small areas (remedy none): the small-area gate
    # refuses it, so its report is the refused one, beside the configured path
    assert "FAIL 1 deid_gate_small_areas" in run.output
    path = tmp / "report.refused.html"
    assert path.exists(), run.output
    assert not (tmp / "report.html").exists()
    index = run.query("select * from deid_release_report")
    assert Path(index["path"][0]) == path.resolve()
    text = path.read_text(encoding="utf-8")
    # levels set in the settings: no search ran, deid_report_inputs has no search node, no
    # picture
    assert len(run.query("select * from deid_report_inputs where part = 'search_nodes'")) == 0
    assert "no generalization search ran" in text and 'class="risk-utility"' not in text
    # the small-area inputs and the (empty: sampling fraction only) population patterns reach
    # the report through deid_report_inputs, which reads their models (built with small_areas
    # and the sampling fraction)
    areas = run.query("select * from deid_report_inputs where part = 'small_area_inputs'")
    assert len(areas) == len(run.query("select * from deid_small_area_inputs")) > 0
    # no report.algorithm_comparison: the comparison model is not built (deid_report_inputs
    # has no row of it) and the report says it was not requested
    assert len(run.query("select * from deid_report_inputs"
                         " where part = 'algorithm_comparison'")) == 0
    assert "Not requested: this release does not declare" in text
    assert "Small geographic areas (El Emam et al. 2010 equations 1-4)" in text
    assert len(run.query("select * from deid_report_inputs where part = 'population_patterns'")
               ) == len(run.query("select * from deid_population_patterns")) == 0
    assert "Journalist and marketer risk" in text
    parser = _Text()
    parser.feed(text)
    assert parser.tags > 50 and "<script" not in text and "http://" not in text
    cells = set(parser.cells)
    # every QI value whose category alone holds fewer than k records (so every class holding
    # it is smaller than k), at the original, generalized and published stage
    k = 5
    generalized = run.query("select * from deid_suppressed")
    leaked = []
    # every QI column: released, true at the released level, original (one per source column)
    record_id = variables["deid_release"]["record_id"]
    for col in [c for c in generalized.columns if c != record_id]:
        counts = generalized[col].dropna().astype(str).value_counts()
        for value in counts[counts < k].index:
            if len(value) >= 2 and not re.fullmatch(r"[\d.,%-]+", value) and value in cells:
                leaked.append((col, value))
    assert not leaked


def test_small_area_gate_fails_then_passes_with_remedy(
    built: tuple[DbtRun, dict[str, Any], Path], tmp_path: Path,
) -> None:
    run, variables, tmp = built
    flagged = run.query("select area_level, area from deid_small_areas where flagged")
    assert len(flagged) > 0, run.output
    assert _gate_rows(tmp / "show", variables, run.database) > 0

    fixed = copy.deepcopy(variables)
    rel = fixed["deid_release"]
    rel["small_areas"] = _small_areas("suppress")
    rel["quasi_identifiers"]["province"]["hierarchy"] = "deid_small_area_hierarchy"
    rel["report"]["path"] = str(tmp_path / "report.html")
    fixed_run = run_dbt(INTEGRATION, ["build", "--select", "+deid_published",
                                      "+deid_small_areas"], tmp_path, fixed)
    assert fixed_run.ok, fixed_run.output
    assert _gate_rows(tmp_path / "show", fixed, fixed_run.database) == 0
    published = fixed_run.query("select distinct province from deid_published")
    assert not set(published["province"].dropna()) & set(flagged["area"])


def test_ola_with_a_small_area_remedy_has_no_cycle(tmp_path: Path) -> None:
    """The OLA search with a small-area remedy: the search's patterns read deid_hierarchy, which
    reads the remedied hierarchy, which reads deid_small_areas, so deid_small_areas and its
    inputs must not read anything downstream of the search (deid_report_inputs reads
    deid_ola_search). With the small-area inputs folded into deid_report_inputs, dbt refused
    to parse: 'Found a cycle: model.dbt_deid.deid_report_inputs --> model.dbt_deid.deid_small_areas
    --> ... --> model.dbt_deid.deid_ola_search'."""
    variables = _release(
        tmp_path, small_areas=_small_areas("suppress"),
        combinations=[["province", "age", "gender"]], generalization={"search": "ola"},
        excluded=["cmg", "total_cost_cad", "los_days", "mrdx", "cci_code", "admission_date"])
    release = variables["deid_release"]
    release["quasi_identifiers"] = {
        "province": {"hierarchy": "deid_small_area_hierarchy", "level": 1},
        "age": {"rule": {"type": "interval", "levels": [{"width": 5, "top_code": 90},
                                                        {"width": 10, "top_code": 90}]}},
        "gender": {"hierarchy": "gender_hierarchy"}}
    run = run_dbt(INTEGRATION, ["ls", "--select", "package:dbt_deid", "--resource-type", "model",
                                "--output", "name", "--quiet"], tmp_path, variables)
    assert run.ok, run.output[-2000:]
    listed = set(run.output.split())
    assert {"deid_report_inputs", "deid_small_area_inputs", "deid_small_areas",
            "deid_small_area_hierarchy", "deid_ola_search"} <= listed
    # no sampling fraction, population size or population: no population patterns
    assert "deid_population_patterns" not in listed
