"""``add-release`` writes only the models a release's settings need (issue 33, item 3).

The generator decides in Python (:func:`dbt_deid.dbt_side.releases.release_features`) which
optional models a release builds; dbt decides it in Jinja (each package model's ``enabled``
config). A model dbt builds but the generator left out would be a missing node (dbt's parse
fails naming it) or, for a model nothing reads, a silently missing table; one the generator
writes but dbt disables is an extra file. So both must agree on every model and every setting:
the SQL models' ``config(enabled=...)`` in ``macros/releases/release_models.sql`` and the
Python models' YAML ``enabled`` are rendered with Jinja outside dbt for a range of settings and
compared with the generator's choice. Old code (c8044c4): every optional model was written
whatever the settings (25 files, 230 lines for the demo's ``discharge_clinical``).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jinja2
import pytest

from dbt_deid.dbt_side.releases import (
    OPTIONAL_MODELS,
    chain_models,
    release_features,
    release_file_problems,
    release_files,
    write_release_files,
)
from dbt_deid.tools.cli import main
from tests.macro_render import macro_caller

REPO = Path(__file__).resolve().parents[2]
MACROS = [REPO / "macros" / "ola" / "released_levels.sql",
          REPO / "macros" / "releases" / "algorithm_comparison_enabled.sql",
          REPO / "macros" / "releases" / "checked_release.sql",
          REPO / "macros" / "risk_suite" / "risk_suite_enabled.sql"]

SETTINGS: list[dict[str, Any]] = [
    {},
    {"generalization": {"search": "ola"}},
    {"generalization": {"search": "levels"}},
    {"small_areas": {"geography": "province"}},
    {"sampling_fraction": 0.1},
    {"population_size": 1000},
    {"population": "census"},
    {"sample": {"fraction": 0.1, "slot": 0, "seed": 1}},
    {"sample": {"fraction": 0.1, "slot": 0, "seed": 1, "order": "population_first"}},
    {"report": {"algorithm_comparison": True}},
    {"report": {"algorithm_comparison": False, "by": ["age"]}},
    {"generalization": {"search": "ola"}, "small_areas": {"geography": "province"},
     "population_size": 10, "sample": {"order": "population_first"},
     "report": {"algorithm_comparison": True}},
]


def _sql_conditions() -> dict[str, str]:
    """Package SQL model -> the expression of its body's ``config(enabled=...)``."""
    text = (REPO / "macros" / "releases" / "release_models.sql").read_text()
    out = {}
    for m in re.finditer(r"macro default__deid_model_(\w+)\(\)(.*?)endmacro", text, re.S):
        found = re.search(r"config\(enabled=(.*?)(?:, \w+=|\) }})", m.group(2))
        assert found, m.group(1)
        out["deid_" + m.group(1) if not m.group(1).startswith("deid_") else m.group(1)] = (
            found.group(1))
    return out


#: The settings the rendered Jinja macros read (dbt_deid.release_settings).
_CURRENT: dict[str, Any] = {}


def _context(call):
    return {"dbt_deid": SimpleNamespace(
                own=lambda m: m, release_enabled=lambda: True,
                release_settings=lambda: _CURRENT["settings"],
                ola_enabled=call("ola_enabled"), population_first=call("population_first"),
                small_areas_enabled=call("small_areas_enabled"),
                population_risk_enabled=call("population_risk_enabled"),
                algorithm_comparison_enabled=call("algorithm_comparison_enabled")),
            "adapter": SimpleNamespace(dispatch=lambda name, pkg: call("default__" + name))}


_DBT_DEID = _context(macro_caller(MACROS, _context))["dbt_deid"]
_CHAIN = chain_models(REPO)
_SQL = _sql_conditions()


def _dbt_enabled(model: Any, settings: dict[str, Any]) -> bool:
    """Whether dbt enables the package model under the default release ``settings``."""
    if model.language == "python":
        text = str(model.properties["config"]["enabled"])

        def var(name: str, default: Any = None) -> Any:
            return settings if name == "deid_release" else default
        rendered = jinja2.Environment().from_string(text).render(var=var)
        return rendered.strip() == "True"
    _CURRENT["settings"] = settings
    return bool(jinja2.Environment().compile_expression(_SQL[model.name])(dbt_deid=_DBT_DEID))


@pytest.mark.parametrize("settings", SETTINGS)
def test_the_generator_writes_exactly_the_models_dbt_enables(settings) -> None:
    features = release_features(settings)
    written = {name.removeprefix("r__").rsplit(".", 1)[0]
               for name in release_files(REPO, "r", features)} - {"deid_release"}
    enabled = {m.name for m in _CHAIN if _dbt_enabled(m, settings)}
    assert written == enabled


def test_every_optional_model_is_a_model_of_the_chain() -> None:
    names = {m.name for m in chain_models(REPO)}
    optional = {n for _, models in OPTIONAL_MODELS.values() for n in models}
    assert optional <= names
    assert {"deid_release_plan", "deid_published", "deid_release_report"} <= names - optional
    every = release_files(REPO, "r", list(OPTIONAL_MODELS))
    assert len(every) == len(names) + 1  # and the YAML


def test_check_says_what_is_missing_or_extra_and_what_to_do(tmp_path, capsys) -> None:
    """A release declaring the algorithm comparison (in dbt_project.yml) without its model,
    and a model of the OLA search it does not declare: --check names both with what to do;
    add-release writes the one and removes the other."""
    (tmp_path / "dbt_project.yml").write_text(
        "name: p\nvars:\n  deid_releases:\n    clinical:\n      name: clinical\n"
        "      report: {algorithm_comparison: true}\n")
    out = tmp_path / "models" / "deid_clinical"
    args = ["add-release", "clinical", "--models-dir", "models/deid_clinical",
            "--project-dir", str(tmp_path), "--package-dir", str(REPO)]
    assert main(args) == 0
    assert (out / "clinical__deid_algorithm_comparison.py").exists()
    assert not (out / "clinical__deid_ola_search.py").exists()
    assert main([*args, "--check"]) == 0
    (out / "clinical__deid_algorithm_comparison.py").unlink()
    (out / "clinical__deid_ola_levels.sql").write_text("{{ dbt_deid.release_model() }}\n")
    capsys.readouterr()
    assert main([*args, "--check"]) == 1
    text = capsys.readouterr().out
    assert re.search(r"missing: .*clinical__deid_algorithm_comparison\.py \(the release"
                     r" declares report\.algorithm_comparison: true\)", text), text
    assert re.search(r"extra: .*clinical__deid_ola_levels\.sql \(built only with"
                     r" generalization\.search: ola, which the release does not declare\):"
                     r" delete it.*--with ola", text), text
    assert "re-run: python -m dbt_deid add-release clinical --models-dir" in text
    problems = dict(release_file_problems(REPO, "clinical", out, {"algorithm_comparison"}))
    assert set(problems) == {"clinical__deid_algorithm_comparison.py",
                             "clinical__deid_ola_levels.sql"}
    assert main(args) == 0
    assert main([*args, "--check"]) == 0
    # settings given at run time only: --with names the optional models
    assert write_release_files(REPO, "clinical", out, {"algorithm_comparison", "ola"}) != []
    assert (out / "clinical__deid_ola_search.py").exists()
    assert main([*args, "--check", "--with", "ola"]) == 0
    with pytest.raises(SystemExit):
        main([*args, "--with", "nonsense"])


def test_a_release_of_run_time_settings_keeps_the_optional_models_of_its_last_run(
        tmp_path, capsys) -> None:
    """A release whose settings come only at run time (not in dbt_project.yml; the integration
    project's it_second): a plain re-run (after an upgrade) keeps the optional models the
    folder's YAML lists, those of the last --with, so it does not remove a model a build
    needs."""
    (tmp_path / "dbt_project.yml").write_text("name: p\n")
    out = tmp_path / "models" / "deid_second"
    args = ["add-release", "second", "--models-dir", "models/deid_second",
            "--project-dir", str(tmp_path), "--package-dir", str(REPO)]
    assert main([*args, "--with", "sample_file"]) == 0
    assert (out / "second__deid_sample_file.sql").exists()
    assert main([*args, "--check"]) == 0
    assert main(args) == 0
    assert (out / "second__deid_sample_file.sql").exists()
    assert "as its YAML lists, those of --with sample_file" in capsys.readouterr().out
    assert main([*args, "--with", "ola"]) == 0
    assert not (out / "second__deid_sample_file.sql").exists()
    assert (out / "second__deid_ola_search.py").exists()
