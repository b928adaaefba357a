"""Several discharge releases in one dbt project: the nodes of an extra release.

dbt cannot create nodes from a package, so each release of the var ``deid_releases``
(El Emam et al. 2011, discharge PUMF, Table 3: one population, two public-use files,
"geographic" and "clinical", each with its own quasi-identifiers) has its own models in the
project, named ``<release>__<package model>``. They are generated from the installed dbt
package, never written by hand (docs/projects.md, "Several releases in one project"):

* every SQL model of the discharge chain is the package's one line
  ``{{ dbt_deid.release_model() }}`` (the body lives in the package's macros; the node finds its
  release from its name, macros/releases/releases.sql);
* every Python model is the package's file, without its docstring, with its literal
  ``dbt.ref("deid_...")`` calls renamed to the release's nodes (dbt reads Python refs from the
  source text): a few lines, since the model's body is one function of
  :mod:`dbt_deid.dbt_side.glue`;
* one YAML file gives each node the package model's description, columns, configs (the
  Python models' settings JSON read from ``deid_releases.<release>``), gate tests and the tags
  ``deid``, ``deid_gate``/``deid_publish`` as in the package, and ``deid_release_<release>``.

Re-running the generator after a package upgrade rewrites the files; :func:`check_release_files`
says whether the committed files are what the package generates (a test keeps the demo's so).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dbt_deid.errors import ConfigError
from dbt_deid.settings_schema import MAX_RELEASE_NAME, RELEASE_NAME_PATTERN

#: A release name (key of ``deid_releases``): lower-case letters and digits joined by single
#: underscores, at most 30 characters (the one settings definition; the Jinja
#: dbt_deid._release_name_pattern reads the same).
RELEASE_NAME = re.compile(RELEASE_NAME_PATTERN)
MAX_NAME = MAX_RELEASE_NAME
#: The one line of every SQL model of the discharge chain (package and extra releases).
THIN_SQL = "{{ dbt_deid.release_model() }}\n"
#: The package's var of the default release, in the Python models' YAML configs.
_DEFAULT_VAR = re.compile(r"var\('deid_release', (none|\{\})\)")
_PY_REF = re.compile(r'dbt\.ref\("(deid_[a-z0-9_]+)"\)')


def check_release_name(name: str) -> str:
    """``name`` if it may name an extra release, else a :class:`ConfigError`."""
    if not isinstance(name, str) or not RELEASE_NAME.match(name) or len(name) > MAX_NAME:
        raise ConfigError(
            f"release name {name!r} is not allowed: lower-case letters and digits joined by"
            f" single underscores, at most {MAX_NAME} characters (it prefixes the release's"
            " model names)")
    return name


@dataclass(frozen=True)
class ChainModel:
    """A package model of the discharge chain: its name, file and YAML entry."""

    name: str
    path: Path
    language: str
    properties: dict[str, Any]
    published: bool


def find_package_dir(project_dir: Path, package_dir: Path | None = None) -> Path:
    """The dbt package dbt_deid: ``package_dir``, else ``<project>/dbt_packages/dbt_deid``
    (after ``dbt deps``), else the source checkout this module belongs to."""
    candidates = [package_dir] if package_dir else [
        project_dir / "dbt_packages" / "dbt_deid", Path(__file__).resolve().parents[3]]
    for c in candidates:
        project = c / "dbt_project.yml"
        if project.exists() and (yaml.safe_load(project.read_text()) or {}).get(
                "name") == "dbt_deid":
            return c
    raise FileNotFoundError(
        f"the dbt package dbt_deid was not found in {', '.join(str(c) for c in candidates)};"
        " run `dbt deps` first or give --package-dir")


def _yaml_models(package: Path) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for folder in ("models", "python_models"):
        for f in sorted((package / folder).rglob("*.yml")):
            for entry in (yaml.safe_load(f.read_text()) or {}).get("models") or []:
                out[entry["name"]] = entry
    return out


def chain_models(package: Path) -> list[ChainModel]:
    """The package models of the discharge release, by name: the SQL models whose file is the
    one line ``{{ dbt_deid.release_model() }}`` and the Python models configured from var
    ``deid_release``."""
    props = _yaml_models(package)
    found: list[ChainModel] = []
    for folder in ("models", "python_models"):
        for f in sorted((package / folder).rglob("*")):
            if f.suffix not in (".sql", ".py"):
                continue
            entry = props.get(f.stem, {"name": f.stem})
            if f.suffix == ".sql":
                if f.read_text() != THIN_SQL:
                    continue
            elif not _DEFAULT_VAR.search(str((entry.get("config") or {}).get("enabled", ""))):
                continue
            found.append(ChainModel(f.stem, f, "sql" if f.suffix == ".sql" else "python", entry,
                                    "publish" in f.relative_to(package).parts))
    return sorted(found, key=lambda m: m.name)


def _release_var(text: str, release: str) -> str:
    """A package YAML config expression on var('deid_release') made one on the release's entry
    of var('deid_releases')."""
    settings = f"(var('deid_releases', {{}}) or {{}}).get('{release}')"
    return _DEFAULT_VAR.sub(
        lambda m: settings if m.group(1) == "none" else f"({settings} or {{}})", text)


def _config(model: ChainModel, release: str) -> dict[str, Any]:
    config: dict[str, Any] = {}
    if model.language == "sql":
        # the body's config() decides materialization and enabled (release-aware)
        settings = f"(var('deid_releases', {{}}) or {{}}).get('{release}')"
        config["enabled"] = f"{{{{ {settings} is not none }}}}"
    for key, value in (model.properties.get("config") or {}).items():
        if key == "tags":
            continue
        config[key] = _rename(value, release)
    config["materialized"] = config.get("materialized", "table")
    if not model.published:
        config["schema"] = "{{ var('deid_work_schema', 'deid_work') }}"
    tags = ["deid", *(["deid_publish"] if model.published else []),
            *((model.properties.get("config") or {}).get("tags") or []), f"deid_release_{release}"]
    config["tags"] = list(dict.fromkeys(tags))
    return config


def _rename(value: Any, release: str) -> Any:
    if isinstance(value, str):
        return _release_var(value, release)
    if isinstance(value, dict):
        return {k: _rename(v, release) for k, v in value.items()}
    if isinstance(value, list):
        return [_rename(v, release) for v in value]
    return value


def _tests(model: ChainModel, release: str) -> list[Any]:
    out: list[Any] = []
    for test in model.properties.get("data_tests") or []:
        if isinstance(test, str):
            test = {test: {}}
        (kind, args), = test.items()
        args = dict(args or {})
        if "name" in args:
            args["name"] = f"{release}__{args['name']}"
        cfg = dict(args.get("config") or {})
        cfg["tags"] = list(dict.fromkeys([*(cfg.get("tags") or []), "deid", "deid_gate",
                                          f"deid_release_{release}"]))
        args["config"] = cfg
        out.append({kind: args})
    return out


def release_properties(models: list[ChainModel], release: str) -> dict[str, Any]:
    """The YAML properties of the release's nodes."""
    entries = []
    for m in models:
        entry: dict[str, Any] = {"name": f"{release}__{m.name}"}
        desc = " ".join(str(m.properties.get("description") or "").split())
        entry["description"] = (f"Release {release} (var deid_releases.{release}): the package"
                                f" model {m.name} of this release. {desc}").strip()
        entry["config"] = _config(m, release)
        if m.properties.get("columns"):
            entry["columns"] = m.properties["columns"]
        tests = _tests(m, release)
        if tests:
            entry["data_tests"] = tests
        entries.append(entry)
    return {"version": 2, "models": entries}


def _without_docstring(text: str) -> str:
    """``text`` (a Python file) without its module docstring and the blank lines after it."""
    tree = ast.parse(text)
    first = tree.body[0] if tree.body else None
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        text = "".join(text.splitlines(keepends=True)[first.end_lineno or 0:])
    return text.lstrip("\n")


def python_model_text(model: ChainModel, release: str, chain: set[str]) -> str:
    """The release's copy of a package Python model: its code (the literal ``dbt.ref`` /
    ``dbt.config.get`` calls and the one call of its body in :mod:`dbt_deid.dbt_side.glue`) with
    the refs renamed to the release's nodes; the docstring stays in the package's file."""
    text = _without_docstring(model.path.read_text())
    renamed = _PY_REF.sub(
        lambda m: f'dbt.ref("{release}__{m.group(1)}")' if m.group(1) in chain else m.group(0),
        text)
    return (f"# Release {release}: generated by `python -m dbt_deid add-release {release}`\n"
            f"# from the package's {model.path.name}; do not edit.\n"
            "# ruff: noqa: E501 (the release's model names make the refs long)\n\n\n"
            f"{renamed}")


def release_files(package: Path, release: str) -> dict[str, str]:
    """File name -> content of every file of the release's nodes."""
    check_release_name(release)
    models = chain_models(package)
    chain = {m.name for m in models}
    files: dict[str, str] = {}
    for m in models:
        if m.language == "sql":
            files[f"{release}__{m.name}.sql"] = THIN_SQL
        else:
            files[f"{release}__{m.name}.py"] = python_model_text(m, release, chain)
    header = (f"# Release {release}: the nodes of var deid_releases.{release}, generated by\n"
              f"#   python -m dbt_deid add-release {release} --models-dir <this folder>\n"
              "# from the installed dbt_deid package; do not edit (re-run it after upgrading).\n")
    files[f"{release}__deid_release.yml"] = header + yaml.safe_dump(
        release_properties(models, release), sort_keys=False, width=100, allow_unicode=True)
    return files


def _stale(models_dir: Path, release: str, files: dict[str, str]) -> list[Path]:
    if not models_dir.exists():
        return []
    return sorted(p for p in models_dir.iterdir()
                  if p.name.startswith(f"{release}__") and p.suffix in (".sql", ".py", ".yml")
                  and p.name not in files)


def check_release_files(package: Path, release: str, models_dir: Path) -> list[str]:
    """What differs between ``models_dir`` and what the package generates for ``release``:
    file names missing, changed or stale (empty when up to date)."""
    files = release_files(package, release)
    out = [name for name, text in files.items()
           if not (models_dir / name).exists() or (models_dir / name).read_text() != text]
    return sorted(out + [p.name for p in _stale(models_dir, release, files)])


def write_release_files(package: Path, release: str, models_dir: Path) -> list[str]:
    """Write the release's files to ``models_dir`` (removing its stale ones); the names
    written or removed."""
    changed = check_release_files(package, release, models_dir)
    files = release_files(package, release)
    models_dir.mkdir(parents=True, exist_ok=True)
    for p in _stale(models_dir, release, files):
        p.unlink()
    for name, text in files.items():
        (models_dir / name).write_text(text)
    return changed
