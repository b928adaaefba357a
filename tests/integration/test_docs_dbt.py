"""Every package model column and every package test argument is described (issue 19, item 5).

Builds the demo with `dbt build --empty` (every model's columns, no data), runs `dbt docs
generate` and reads target/manifest.json and catalog.json: each column the warehouse holds for a
package model has a description in the YAML, directly or through a documented pattern whose
name depends on the release (`<qi>`, `<qi>__original`, `<record_id>`, ...: the pattern's
`<qi>` stands for the release's QI names, `<record_id>` for its record id, `<pass_through>` for
its pass-through columns, `<sensitive>` for its sensitive columns); each package test macro
declares every argument of its signature with a description.

An extra release's working model (`discharge_clinical__deid_patterns`, written by `python -m
dbt_deid add-release`) is documented by its package model (docs/projects.md, "Several releases
in one project"): its description names and links the package model, and each of its built
columns must be described there (the package model's YAML is the one text). Its published
table keeps its own description and columns. The package's own models keep the strict rule:
their own YAML describes every column."""

from __future__ import annotations

import json
import re

import pytest

from tests.integration.dbt_runner import DEMO, project_vars, run_dbt

pytestmark = pytest.mark.dbt


def _substitutions() -> dict[str, list[str]]:
    v = project_vars(DEMO)
    release, claims = v["deid_release"], v["deid_claims_release"]
    extra = list(v.get("deid_releases", {}).values())  # the clinical file (its own QIs)
    qis = [*release["quasi_identifiers"], *claims["demographic_qis"], *claims["claim_qis"],
           *(q for r in extra for q in r["quasi_identifiers"])]
    # `<sensitive>`: the release's sensitive columns (attribute_disclosure.remedy's pattern
    # table); none in the demo, so the pattern matches no column
    return {"qi": qis, "record_id": [release["record_id"]],
            "pass_through": release.get("pass_through", []),
            "sensitive": release.get("sensitive") or ["<no sensitive column>"]}


def _pattern(name: str, subs: dict[str, list[str]]) -> re.Pattern[str]:
    out = ""
    for part in re.split(r"(<[^>]+>)", name.lower()):
        if part.startswith("<"):
            values = subs.get(part[1:-1])
            out += "(" + "|".join(map(re.escape, values)) + ")" if values else ".+"
        else:
            out += re.escape(part)
    return re.compile(f"^{out}$")


@pytest.fixture(scope="module")
def docs(tmp_path_factory) -> tuple[dict, dict]:
    tmp = tmp_path_factory.mktemp("docs")
    build = run_dbt(DEMO, ["build", "--empty", "--exclude", "tag:deid_claims", "tag:deid_text"],
                    tmp)
    assert build.ok, build.output[-3000:]
    gen = run_dbt(DEMO, ["docs", "generate"], tmp, database=build.database)
    assert gen.ok, gen.output[-3000:]
    return (json.loads((tmp / "target" / "manifest.json").read_text()),
            json.loads((tmp / "target" / "catalog.json").read_text()))


def _package_models(manifest: dict) -> dict[str, dict]:
    """The package's models and the demo's extra release's (`discharge_clinical__deid_...`,
    generated from them by `python -m dbt_deid add-release`)."""
    return {uid: n for uid, n in manifest["nodes"].items()
            if n["resource_type"] == "model" and (n["package_name"] == "dbt_deid"
                                                  or "__deid_" in n["name"])}


def _documenting(node: dict, manifest: dict) -> dict:
    """The node whose YAML documents ``node``'s columns: an extra release's working model's
    package model (its description must link it), else the node itself."""
    release, sep, base = node["name"].partition("__deid_")
    if node["package_name"] == "dbt_deid" or not sep or node["columns"]:
        return node
    package = manifest["nodes"].get(f"model.dbt_deid.deid_{base}")
    assert package is not None, f"{node['name']}: no package model deid_{base}"
    assert f"(#!/model/model.dbt_deid.deid_{base})" in node["description"], node["description"]
    return package


def test_every_package_model_and_declared_column_is_described(docs) -> None:
    manifest, _ = docs
    models = _package_models(manifest)
    assert len(models) > 50
    bare = [n["name"] for n in models.values() if not n["description"].strip()]
    assert not bare, f"models without a description: {bare}"
    undescribed = [f"{n['name']}.{c}" for n in models.values()
                   for c, col in n["columns"].items() if not col.get("description", "").strip()]
    assert not undescribed, undescribed
    # the extra releases' working models point at their package model (add-release writes
    # no column for them); the package's own models document their columns themselves
    pointing = [n for n in models.values() if _documenting(n, manifest) is not n]
    assert len(pointing) > 20
    assert all(n["package_name"] != "dbt_deid" for n in pointing)


def test_every_built_column_is_described(docs) -> None:
    manifest, catalog = docs
    subs = _substitutions()
    checked, missing = 0, []
    for uid, node in _package_models(manifest).items():
        table = catalog["nodes"].get(uid)
        if table is None:
            continue
        documented = _documenting(node, manifest)
        declared = {c.lower() for c, col in documented["columns"].items() if "<" not in c
                    and col.get("description")}
        patterns = [_pattern(c, subs) for c, col in documented["columns"].items() if "<" in c
                    and col.get("description")]
        for col in table["columns"]:
            checked += 1
            if col.lower() not in declared and not any(p.match(col.lower()) for p in patterns):
                missing.append(f"{node['name']}.{col}")
    assert checked > 200  # 268 on the demo without the claims and text releases
    assert not missing, f"{len(missing)} undocumented column(s): {missing}"


def test_every_test_argument_is_described(docs) -> None:
    manifest, _ = docs
    tests = {m["name"]: m for m in manifest["macros"].values()
             if m["package_name"] == "dbt_deid" and m["name"].startswith("test_")}
    assert len(tests) >= 11
    problems = []
    for name, macro in tests.items():
        sig = re.search(r"{%-?\s*test\s+\w+\((.*?)\)\s*-?%}", macro["macro_sql"], re.S)
        args = [a.split("=")[0].strip() for a in sig.group(1).split(",") if a.strip()]
        declared = {a["name"]: a.get("description", "") for a in macro.get("arguments", [])}
        problems += [f"{name}({a})" for a in args if not declared.get(a, "").strip()]
        if not macro["description"].strip():
            problems.append(f"{name}: no description")
    assert not problems, problems
