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
* one YAML file gives each node its configs (the Python models' settings JSON read from
  ``deid_releases.<release>``), the package model's tests (the gates, renamed
  ``<release>__<test>``) and the tags ``deid``, ``deid_gate``/``deid_publish`` as in the package,
  and ``deid_release_<release>``. Its documentation points at the package model's (a one-line
  description naming and linking it, no columns): the description and columns of a working model
  are written once, in the package's YAML; only the published table, the user's mart, carries
  the package model's description and columns. Configs and test configs shared by several nodes
  are YAML anchors (``&work`` / ``*work``) so each is written once; the file parses to the same
  properties as the plain form (:func:`release_yaml` checks it).

Only the models the release's settings need are written (issue 33, item 3): the models every
release builds, and an optional model (:data:`OPTIONAL_MODELS`: the OLA search, the small
areas, the population risk and uniqueness, the sample file, the algorithm comparison) only when
the release declares the setting that enables it. The settings are read from the project's
``dbt_project.yml`` (var ``deid_releases.<release>``); settings given only at run time
(``--vars``) name their optional models with ``--with`` (:func:`release_features`). A release
that declares a setting whose model was not written fails dbt's parse naming the missing node
(each feature's models are read by a model of the chain: ``deid_generalized`` reads
``deid_ola_levels``, the publish model ``deid_sample_file``, ``deid_report_inputs`` the
small-area inputs, the population patterns and the comparison), so nothing is published.

Re-running the generator after a package upgrade rewrites the files; :func:`check_release_files`
says whether the committed files are what the package generates (a test keeps the demo's so),
and :func:`release_file_problems` what to do about each file that differs.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection, Mapping
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


#: The optional models of the discharge chain: feature (the ``--with`` name) -> the setting that
#: enables it and its package models. The conditions are the Jinja ones of the package models'
#: ``enabled`` configs (dbt_deid.ola_enabled, small_areas_enabled, population_risk_enabled,
#: population_first, algorithm_comparison_enabled; :func:`release_features`); every other model
#: of the chain is built for every release.
OPTIONAL_MODELS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ola": ("generalization.search: ola",
            ("deid_ola_search", "deid_ola_levels", "deid_ola_patterns")),
    "small_areas": ("small_areas",
                    ("deid_small_area_inputs", "deid_small_areas", "deid_small_area_hierarchy")),
    "population": ("sampling_fraction, population_size or population",
                   ("deid_population_patterns", "deid_population_risk", "deid_uniqueness")),
    "sample_file": ("sample.order: population_first", ("deid_sample_file",)),
    "algorithm_comparison": ("report.algorithm_comparison: true",
                             ("deid_algorithm_comparison",)),
}


def release_features(settings: Mapping[str, Any] | None) -> set[str]:
    """The optional features (keys of :data:`OPTIONAL_MODELS`) a release's raw settings declare,
    decided as the package models' Jinja ``enabled`` conditions decide them."""
    if not isinstance(settings, Mapping):
        return set()
    out = set()
    generalization = settings.get("generalization")
    if isinstance(generalization, Mapping) and generalization.get("search") == "ola":
        out.add("ola")
    if settings.get("small_areas") is not None:
        out.add("small_areas")
    if any(settings.get(k) is not None for k in ("sampling_fraction", "population_size",
                                                  "population")):
        out.add("population")
    sample = settings.get("sample")
    if isinstance(sample, Mapping) and sample.get("order") == "population_first":
        out.add("sample_file")
    report = settings.get("report")
    # `== true` in the Jinja condition (algorithm_comparison_enabled)
    if isinstance(report, Mapping) and report.get("algorithm_comparison") == True:  # noqa: E712
        out.add("algorithm_comparison")
    return out


def _feature_of(model: str) -> str | None:
    return next((f for f, (_, names) in OPTIONAL_MODELS.items() if model in names), None)


def project_release_settings(project_dir: Path, release: str) -> dict[str, Any] | None:
    """The raw settings of ``release`` in the project's ``dbt_project.yml`` (var
    ``deid_releases.<release>``, at the top of ``vars`` or under the project's or the
    package's name), or None when the project does not declare it there."""
    path = project_dir / "dbt_project.yml"
    if not path.exists():
        return None
    project = yaml.safe_load(path.read_text()) or {}
    variables = project.get("vars") or {}
    for scope in (variables, variables.get(project.get("name")), variables.get("dbt_deid")):
        if isinstance(scope, Mapping):
            found = (scope.get("deid_releases") or {}).get(release)
            if isinstance(found, Mapping):
                return dict(found)
    return None


def check_release_name(name: str) -> str:
    """``name`` if it may name an extra release, else a :class:`ConfigError`."""
    if not isinstance(name, str) or not RELEASE_NAME.fullmatch(name) or len(name) > MAX_NAME:
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
    #: the package YAML file documenting the model, relative to the package
    docs: str = ""


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


def _yaml_models(package: Path) -> dict[str, tuple[dict[str, Any], str]]:
    out: dict[str, tuple[dict[str, Any], str]] = {}
    for folder in ("models", "python_models"):
        for f in sorted((package / folder).rglob("*.yml")):
            for entry in (yaml.safe_load(f.read_text()) or {}).get("models") or []:
                out[entry["name"]] = (entry, f.relative_to(package).as_posix())
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
            entry, docs = props.get(f.stem, ({"name": f.stem}, ""))
            if f.suffix == ".sql":
                if f.read_text() != THIN_SQL:
                    continue
            elif not _DEFAULT_VAR.search(str((entry.get("config") or {}).get("enabled", ""))):
                continue
            found.append(ChainModel(f.stem, f, "sql" if f.suffix == ".sql" else "python", entry,
                                    "publish" in f.relative_to(package).parts, docs))
    return sorted(found, key=lambda m: m.name)


def _release_var(text: str, release: str) -> str:
    """A package YAML config expression on var('deid_release') made one on the release's entry
    of var('deid_releases')."""
    settings = f"(var('deid_releases', {{}}) or {{}}).get('{release}')"
    text = text.replace("(var('deid_release', {}) or {})", f"({settings} or {{}})")
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


def _pointer(model: ChainModel, release: str) -> str:
    """The one-line description of a working model of the release: which package model it is,
    with a link to that model's page on the dbt docs site and the YAML file documenting it."""
    where = f", {model.docs}" if model.docs else ""
    return (f"Release {release} (var deid_releases.{release}) of the package model"
            f" [{model.name}](#!/model/model.dbt_deid.{model.name}), which documents it and its"
            f" columns (dbt_deid{where}).")


def release_properties(models: list[ChainModel], release: str) -> dict[str, Any]:
    """The YAML properties of the release's nodes. A working model's documentation is a pointer
    to its package model (:func:`_pointer`; its columns are the package model's, documented
    once in the package); the published table keeps the package model's description and
    columns."""
    entries = []
    for m in models:
        entry: dict[str, Any] = {"name": f"{release}__{m.name}"}
        if m.published:
            desc = " ".join(str(m.properties.get("description") or "").split())
            entry["description"] = (f"Release {release} (var deid_releases.{release}): the"
                                    f" package model {m.name} of this release. {desc}").strip()
        else:
            entry["description"] = _pointer(m, release)
        entry["config"] = _config(m, release)
        if m.published and m.properties.get("columns"):
            entry["columns"] = m.properties["columns"]
        tests = _tests(m, release)
        if tests:
            entry["data_tests"] = tests
        entries.append(entry)
    return {"version": 2, "models": entries}


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}
#: Line width above which a config is written one key per line.
_WIDTH = 100


def _flow(value: Any) -> str:
    """``value`` in YAML flow style (strings quoted unless a plain identifier)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_flow(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, str):
        plain = _PLAIN.fullmatch(value) and value.lower() not in _RESERVED
        return value if plain else json.dumps(value, ensure_ascii=False)
    return json.dumps(value)


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


class _Anchors:
    """YAML anchors for the configs written more than once: the first use defines
    ``&name``, the next ones are ``*name``; a config that only adds to or changes keys of a
    config defined above merges it (``<<: *work`` and its own keys)."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts
        self.names: dict[str, str] = {}
        #: the anchored configs defined so far, in the order written (deterministic output)
        self.values: dict[str, dict[str, Any]] = {}

    def lines(self, head: str, value: dict[str, Any], name: str,
              width: int = _WIDTH) -> list[str]:
        """``head`` (``"  config: "``) followed by ``value``: an alias, or the mapping in flow
        style (block style, one key per line, when longer than ``width``)."""
        key = _key(value)
        anchor = ""
        if self.counts.get(key, 0) >= 2:
            if key in self.values:
                return [f"{head}*{self.names[key]}"]
            taken = set(self.names.values())
            self.names[key] = next(n for n in (name, *(f"{name}{i}" for i in range(2, 99)))
                                   if n not in taken)
            self.values[key] = value
            anchor = f"&{self.names[key]} "
        items = [(k, _flow(v)) for k, v in value.items()]
        # merge the anchored config that leaves the fewest keys to write
        for other in sorted(self.values, key=lambda o: -len(self.values[o])):
            base = self.values[other]
            if other == key or not set(base) <= set(value):
                continue
            own = [(k, _flow(v)) for k, v in value.items() if k not in base or base[k] != v]
            if len(own) + 1 < len(items):
                items = [("<<", f"*{self.names[other]}"), *own]
        flow = anchor + "{" + ", ".join(f"{_flow(k) if k != '<<' else k}: {v}"
                                        for k, v in items) + "}"
        if len(head) + len(flow) <= width:
            return [head + flow]
        indent = " " * (len(head) - len(head.lstrip()) + 2)
        return [(head + anchor).rstrip()] + [
            f"{indent}{_flow(k) if k != '<<' else k}: {v}" for k, v in items]


def _anchor_name(config: dict[str, Any]) -> str:
    if "deid_release_json" in config:
        return "python"
    return "gated" if "deid_gate" in (config.get("tags") or []) else "work"


def release_yaml(props: dict[str, Any]) -> str:
    """``props`` (:func:`release_properties`) as YAML: a config or test config written more
    than once is an anchor; raises when the text does not parse back to ``props``."""
    counts: dict[str, int] = {}
    configs = [e["config"] for e in props["models"]]
    test_configs = [next(iter(t.values()))["config"] for e in props["models"]
                    for t in e.get("data_tests", [])]
    for c in configs + test_configs:
        counts[_key(c)] = counts.get(_key(c), 0) + 1
    anchors = _Anchors(counts)
    lines = [f"version: {props['version']}", "models:"]
    for e in props["models"]:
        lines += [f"- name: {_flow(e['name'])}", f"  description: {_flow(e['description'])}"]
        lines += anchors.lines("  config: ", e["config"], _anchor_name(e["config"]))
        if e.get("columns"):
            lines.append("  columns:")
            lines += [f"  - {{name: {_flow(c['name'])}, description:"
                      f" {_flow(' '.join(str(c.get('description', '')).split()))}}}"
                      for c in e["columns"]]
        if e.get("data_tests"):
            lines.append("  data_tests:")
            for t in e["data_tests"]:
                (kind, args), = t.items()
                rest = {k: v for k, v in args.items() if k != "config"}
                config, = anchors.lines("", args["config"], "gate", width=10**6)
                lines.append(f"  - {kind}: {_flow(rest)[:-1]}, config: {config}}}")
    text = "\n".join(lines) + "\n"
    if yaml.safe_load(text) != _normalized(props):
        raise AssertionError("dbt_deid add-release: the YAML written does not parse back to the"
                             " release's properties; this is a bug of dbt_deid")
    return text


def _normalized(props: dict[str, Any]) -> dict[str, Any]:
    """``props`` with column descriptions on one line (as :func:`release_yaml` writes them)."""
    out = json.loads(json.dumps(props))
    for e in out["models"]:
        for c in e.get("columns") or []:
            c["description"] = " ".join(str(c.get("description", "")).split())
    return out


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
    return (f"# Release {release}: generated by `python -m dbt_deid add-release {release}` from"
            f" the package's {model.path.name}; do not edit.\n"
            "# ruff: noqa: E501 (the release's model names make the refs long)\n\n"
            f"{renamed}")


def _features(features: Collection[str]) -> list[str]:
    unknown = sorted(set(features) - set(OPTIONAL_MODELS))
    if unknown:
        raise ConfigError(f"add-release: unknown optional model(s) {', '.join(unknown)}; one of"
                          f" {', '.join(OPTIONAL_MODELS)}")
    return [f for f in OPTIONAL_MODELS if f in features]


def release_models(package: Path, features: Collection[str] = ()) -> list[ChainModel]:
    """The package models a release builds: every model of the chain but the optional ones
    whose feature is not in ``features`` (:data:`OPTIONAL_MODELS`)."""
    wanted = set(_features(features))
    return [m for m in chain_models(package)
            if (f := _feature_of(m.name)) is None or f in wanted]


def release_files(package: Path, release: str, features: Collection[str] = ()) -> dict[str, str]:
    """File name -> content of every file of the release's nodes: the models every release
    builds and the optional models of ``features`` (:func:`release_features`)."""
    check_release_name(release)
    chain = {m.name for m in chain_models(package)}
    models = release_models(package, features)
    files: dict[str, str] = {}
    for m in models:
        if m.language == "sql":
            files[f"{release}__{m.name}.sql"] = THIN_SQL
        else:
            files[f"{release}__{m.name}.py"] = python_model_text(m, release, chain)
    declared = ", ".join(f"{f} ({OPTIONAL_MODELS[f][0]})" for f in _features(features))
    header = (f"# Release {release}: the nodes of var deid_releases.{release}, generated by\n"
              f"#   python -m dbt_deid add-release {release} --models-dir <this folder>\n"
              "# from the installed dbt_deid package; do not edit (re-run it after upgrading).\n"
              f"# Optional models (the settings' or --with): {declared or 'none'}.\n")
    files[f"{release}__deid_release.yml"] = header + release_yaml(
        release_properties(models, release))
    return files


def recorded_features(models_dir: Path, release: str) -> set[str] | None:
    """The optional models the release's YAML in ``models_dir`` says it was written with (its
    header line ``# Optional models ...``), or None without that file or line: for a release
    whose settings come at run time only, the ``--with`` of the last run."""
    path = models_dir / f"{release}__deid_release.yml"
    if not path.exists():
        return None
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        if line.startswith("# Optional models"):
            rest = line.split(":", 1)[1]
            return {f for f in re.findall(r"(\w+) \(", rest) if f in OPTIONAL_MODELS}
    return None


def _stale(models_dir: Path, release: str, files: dict[str, str]) -> list[Path]:
    if not models_dir.exists():
        return []
    return sorted(p for p in models_dir.iterdir()
                  if p.name.startswith(f"{release}__") and p.suffix in (".sql", ".py", ".yml")
                  and p.name not in files)


def release_file_problems(package: Path, release: str, models_dir: Path,
                          features: Collection[str] = ()) -> list[tuple[str, str]]:
    """(file name, what is wrong and what to do) for every file of ``models_dir`` that differs
    from what the package generates for ``release`` with ``features``: missing (with the setting
    that needs it), out of date, extra (an optional model the release does not declare, or a
    model the package no longer has); empty when up to date."""
    files = release_files(package, release, features)
    out = []
    for name, text in files.items():
        path = models_dir / name
        model = name.removeprefix(f"{release}__").rsplit(".", 1)[0]
        feature = _feature_of(model)
        if not path.exists():
            why = f" (the release declares {OPTIONAL_MODELS[feature][0]})" if feature else ""
            out.append((name, f"missing: {path}{why}"))
        elif path.read_text() != text:
            out.append((name, f"out of date: {path}"))
    for path in _stale(models_dir, release, files):
        model = path.name.removeprefix(f"{release}__").rsplit(".", 1)[0]
        feature = _feature_of(model)
        if feature:
            out.append((path.name, (
                f"extra: {path} (built only with {OPTIONAL_MODELS[feature][0]}, which the"
                f" release does not declare): delete it; or, when the release declares it in"
                f" the settings given at run time (--vars), re-run with --with {feature}")))
        else:
            out.append((path.name, f"extra: {path} (not a model of the package): delete it"))
    return sorted(out)


def check_release_files(package: Path, release: str, models_dir: Path,
                        features: Collection[str] = ()) -> list[str]:
    """What differs between ``models_dir`` and what the package generates for ``release``:
    file names missing, changed or stale (empty when up to date)."""
    return [name for name, _ in release_file_problems(package, release, models_dir, features)]


def write_release_files(package: Path, release: str, models_dir: Path,
                        features: Collection[str] = ()) -> list[str]:
    """Write the release's files to ``models_dir`` (removing its stale ones and the optional
    models it does not declare); the names written or removed."""
    changed = check_release_files(package, release, models_dir, features)
    files = release_files(package, release, features)
    models_dir.mkdir(parents=True, exist_ok=True)
    for p in _stale(models_dir, release, files):
        p.unlink()
    for name, text in files.items():
        (models_dir / name).write_text(text)
    return changed
