"""Every working model of the package reads the var `deid_work_schema` in its YAML config
(review 18, F4): dbt renders a package's dbt_project.yml without the root project's vars, so
the var moves a working model only from the model's properties. A working model added
without it would stay in `<target>_deid_work` when the var is set while the others move (a
split the publish step refuses). The publish models (models/publish/) are built in the target
schema and take no such config."""
from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = "{{ var('deid_work_schema', 'deid_work') }}"


def _models() -> dict[str, Path]:
    return {p.stem: p for d in ("models", "python_models") for p in (ROOT / d).rglob("*")
            if p.suffix in (".sql", ".py") and p.name != "__init__.py"}


def _configs() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for d in ("models", "python_models"):
        for f in (ROOT / d).rglob("*.yml"):
            for entry in (yaml.safe_load(f.read_text()) or {}).get("models") or []:
                out[entry["name"]] = entry.get("config") or {}
    return out


def test_every_working_model_reads_the_working_schema_var() -> None:
    configs = _configs()
    working = {n for n, p in _models().items() if "publish" not in p.relative_to(ROOT).parts}
    assert len(working) > 40
    assert {n for n in working if configs.get(n, {}).get("schema") != SCHEMA} == set()


def test_no_publish_model_sets_a_schema() -> None:
    configs = _configs()
    publish = {n for n, p in _models().items() if "publish" in p.relative_to(ROOT).parts}
    assert {"deid_published", "deid_text_published"} <= publish
    assert {n for n in publish if "schema" in configs.get(n, {})} == set()
