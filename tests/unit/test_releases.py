"""The models of an extra discharge release (``python -m dbt_deid add-release``): the committed
files of the demo and the integration project are what the package generates (so they never
drift from the package's models), and release names are identifiers."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dbt_deid.dbt_side.releases import (
    OPTIONAL_MODELS,
    THIN_SQL,
    chain_models,
    check_release_files,
    check_release_name,
    project_release_settings,
    release_features,
    release_files,
    write_release_files,
)
from dbt_deid.errors import ConfigError
from dbt_deid.tools.cli import main

REPO = Path(__file__).resolve().parents[2]
#: The committed extra releases, with the optional models of settings given at run time
#: (it_second's come from the tests' --vars: test_sample_order_dbt.py uses population_first).
COMMITTED = [(REPO / "demo", "discharge_clinical", set()),
             (REPO / "demo", "discharge_analytical", set()),
             (REPO / "integration_tests", "it_second", {"sample_file"})]
#: Every optional model (a release declaring everything).
EVERY = list(OPTIONAL_MODELS)


@pytest.mark.parametrize(("project", "name", "extra"), COMMITTED)
def test_committed_release_models_are_what_the_package_generates(project, name, extra) -> None:
    """Re-running the generator changes nothing: fails when a package model, its YAML (a new
    gate test, a column) or a Python model changes and the release's files were not
    regenerated, or when the release's settings declare another optional model."""
    features = release_features(project_release_settings(project, name)) | extra
    assert check_release_files(REPO, name, project / "models" / f"deid_{name}", features) == []


def test_every_release_model_is_generated_with_its_tests_and_tags() -> None:
    files = release_files(REPO, "clinical", EVERY)
    models = chain_models(REPO)
    names = {m.name for m in models}
    # the discharge chain, not the claims or text releases, not the shared history init
    assert {"deid_published", "deid_release_plan", "deid_release_report",
            "deid_gate_results", "deid_ola_search", "deid_diagnostics"} <= names
    # the gate view: its tests are on the gate table (issue 33, item 3, session 13)
    assert "deid_release_gate" not in names
    # folded into deid_diagnostics (issue 33, item 3)
    assert not names & {"deid_risk_summary", "deid_information_loss"}
    # folded into deid_release_plan (its rows kind 'setting'; issue 33, item 3, session 11)
    assert "deid_release_parameters" not in names
    assert not any(n.startswith(("deid_claims_", "deid_text_")) for n in names)
    assert "deid_release_history_init" not in names
    for m in models:
        suffix = ".sql" if m.language == "sql" else ".py"
        assert f"clinical__{m.name}{suffix}" in files
    assert files["clinical__deid_patterns.sql"] == THIN_SQL
    report = files["clinical__deid_release_report.py"]
    assert 'dbt.ref("clinical__deid_gate_results")' in report
    assert 'dbt.ref("deid_' not in report
    props = yaml.safe_load(files["clinical__deid_release.yml"])
    by_name = {e["name"]: e for e in props["models"]}
    gate = by_name["clinical__deid_gate_results"]
    tests = [next(iter(t.values())) for t in gate["data_tests"]]
    assert "clinical__deid_gate_max_suppression" in [t["name"] for t in tests]
    assert all({"deid", "deid_gate", "deid_release_clinical"} <= set(t["config"]["tags"])
               for t in tests)
    assert {"deid", "deid_gate", "deid_release_clinical"} <= set(gate["config"]["tags"])
    published = by_name["clinical__deid_published"]
    assert "deid_publish" in published["config"]["tags"] and "schema" not in published["config"]
    assert by_name["clinical__deid_patterns"]["config"]["schema"] == (
        "{{ var('deid_work_schema', 'deid_work') }}")
    plan = by_name["clinical__deid_release_plan"]["config"]
    assert "deid_releases" in plan["deid_release_json"] and "'clinical'" in plan["enabled"]
    assert "var('deid_release'," not in files["clinical__deid_release.yml"]
    assert all(e.get("description") for e in props["models"])


@pytest.mark.parametrize("name", ["Clinical", "a__b", "1st", "x; drop table t", "_x", "a-b",
                                  "a" * 31, "", "clinical\n"])
def test_release_names_are_identifiers(name) -> None:
    with pytest.raises(ConfigError, match="is not allowed"):
        check_release_name(name)


def test_generator_writes_removes_stale_files_and_checks(tmp_path, capsys) -> None:
    out = tmp_path / "models" / "deid_clinical"
    out.mkdir(parents=True)
    (out / "clinical__deid_gone.sql").write_text(THIN_SQL)  # a model the package no longer has
    args = ["add-release", "clinical", "--models-dir", "models/deid_clinical",
            "--project-dir", str(tmp_path), "--package-dir", str(REPO)]
    assert main([*args, "--check"]) == 1
    assert "clinical__deid_gone.sql (not a model of the package): delete it" in (
        capsys.readouterr().out)
    assert main(args) == 0
    assert not (out / "clinical__deid_gone.sql").exists()
    assert main([*args, "--check"]) == 0
    (out / "clinical__deid_patterns.sql").write_text("select 1\n")  # hand-edited
    assert write_release_files(REPO, "clinical", out) == ["clinical__deid_patterns.sql"]
    assert main(["add-release", "Bad Name", "--models-dir", "m", "--package-dir", str(REPO)]) == 2


def test_summary_finds_a_release_by_name() -> None:
    from dbt_deid.errors import DataError
    from dbt_deid.tools.commands.summary import release_prefix

    tables = {"deid_release_plan", "clinical__deid_release_plan", "deid_published"}
    assert release_prefix(tables, "geographic", None) == ""
    assert release_prefix(tables, "geographic", "geographic") == ""
    assert release_prefix(tables, "geographic", "clinical") == "clinical__"
    with pytest.raises(DataError, match="releases built: geographic, clinical"):
        release_prefix(tables, "geographic", "other")


def _props(release: str = "clinical") -> dict:
    return yaml.safe_load(release_files(REPO, release, EVERY)[f"{release}__deid_release.yml"])


def test_every_package_test_is_generated_for_the_release_with_its_arguments() -> None:
    """The anchors and flow style change the YAML's form only: each package model's tests are
    the release's, renamed, with the same arguments and severity, tagged deid, deid_gate and
    the release's tag (fail closed holds for an extra release as for the package's)."""
    by_name = {e["name"]: e for e in _props()["models"]}
    checked = 0
    for m in chain_models(REPO):
        ours = by_name[f"clinical__{m.name}"].get("data_tests") or []
        theirs = m.properties.get("data_tests") or []
        assert len(ours) == len(theirs), m.name
        for mine, package in zip(ours, theirs, strict=True):
            (kind, args), = mine.items()
            (pkind, pargs), = package.items()
            assert kind == pkind and args["name"] == f"clinical__{pargs['name']}"
            assert args.get("arguments") == pargs.get("arguments")
            assert args["config"]["severity"] == pargs["config"]["severity"] == "error"
            assert {"deid", "deid_gate", "deid_release_clinical"} <= set(args["config"]["tags"])
            checked += 1
    assert checked >= 3


def test_working_models_point_at_the_package_models_docs_the_published_keeps_its_own() -> None:
    """A working model's description names and links its package model (which documents it
    and its columns once); the published table, the user's mart, keeps the package model's
    description and columns (docs/projects.md; tests/integration/test_docs_dbt.py checks the
    rule on the demo's docs)."""
    models = {m.name: m for m in chain_models(REPO)}
    for e in _props()["models"]:
        base = e["name"].removeprefix("clinical__")
        if models[base].published:
            assert [c["name"] for c in e["columns"]] == [
                c["name"] for c in models[base].properties["columns"]]
            assert "The publish model" in e["description"]
        else:
            assert "columns" not in e
            assert f"[{base}](#!/model/model.dbt_deid.{base})" in e["description"]
            assert models[base].docs in e["description"] and models[base].docs.endswith(".yml")


def test_release_yaml_parses_to_the_plain_properties_and_refuses_otherwise() -> None:
    """Shared configs are anchors (written once), and the text parses to exactly the release's
    properties; the check raises rather than write a YAML that does not."""
    from dbt_deid.dbt_side.releases import release_properties, release_yaml

    props = release_properties(chain_models(REPO), "clinical")
    text = release_yaml(props)
    assert yaml.safe_load(text) == props
    assert text.count("&work") == 1 and text.count("*work") >= 10
    assert "config: &gate {" in text and text.count("config: *gate") >= 3
    bad = {**props, "models": [{**props["models"][0], "config": {"x": float("nan")}}]}
    with pytest.raises(AssertionError, match="does not parse back"):
        release_yaml(bad)


def test_check_still_sees_a_new_gate_test_or_config_of_the_package(tmp_path) -> None:
    """--check's staleness detection: the committed files are out of date when the package
    adds a test or changes a config of a chain model (not when it only rewords a working
    model's column, documented once in the package)."""
    import dataclasses

    from dbt_deid.dbt_side.releases import release_properties, release_yaml

    models = chain_models(REPO)
    before = release_yaml(release_properties(models, "clinical"))
    i = next(i for i, m in enumerate(models) if m.name == "deid_patterns")
    props = dict(models[i].properties)
    props["data_tests"] = [{"dbt_deid.deid_gate": {"name": "deid_gate_new",
                                                   "arguments": {"gate": "new"},
                                                   "config": {"severity": "error"}}}]
    with_test = [*models[:i], dataclasses.replace(models[i], properties=props), *models[i + 1:]]
    assert "clinical__deid_gate_new" in release_yaml(release_properties(with_test, "clinical"))
    props = dict(models[i].properties, config={"materialized": "view"})
    viewed = [*models[:i], dataclasses.replace(models[i], properties=props), *models[i + 1:]]
    assert release_yaml(release_properties(viewed, "clinical")) != before
    props = dict(models[i].properties, columns=[{"name": "n", "description": "reworded"}])
    reworded = [*models[:i], dataclasses.replace(models[i], properties=props), *models[i + 1:]]
    assert release_yaml(release_properties(reworded, "clinical")) == before
