"""``python -m dbt_deid check --vars ...``: the release settings checked without a warehouse.

Reads dbt vars (inline YAML or JSON, a YAML/JSON file of vars, or a ``dbt_project.yml`` whose
``vars:`` are read) and resolves every release they declare: ``deid_release``, each of
``deid_releases``, ``deid_claims_release`` and ``deid_text_release``, with the one resolver
(the package's Jinja config macros rendered outside dbt, :mod:`dbt_deid.dbt_side.settings_jinja`,
then
:func:`dbt_deid.settings_resolve.resolve`). It answers what ``dbt parse`` answers: one line per
release, or the parse-time check's error text and exit code 2. Nothing is read from or written
to a warehouse.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from dbt_deid.dbt_side import settings_jinja
from dbt_deid.dbt_side.releases import check_release_name
from dbt_deid.errors import ConfigError
from dbt_deid.settings_resolve import resolve as resolve_python


def resolve(kind: str, raw: Any) -> Any:
    """The package's Jinja parse-time check (dbt's own words), then the Python resolver (a test
    keeps the two in agreement on every setting)."""
    if settings_jinja.available():
        try:
            settings_jinja.jinja_config(kind, raw)
        except settings_jinja.JinjaSettingError as exc:
            raise ConfigError(str(exc)) from None
    return resolve_python(kind, raw)


def read_vars(text: str) -> dict[str, Any]:
    """The vars of ``text``: a path to a YAML/JSON file (a ``dbt_project.yml`` gives its
    ``vars:``), else inline YAML or JSON (as ``dbt --vars`` takes)."""
    path = Path(text)
    try:
        is_file = "\n" not in text and path.is_file()
    except OSError:  # a long inline value is not a file name
        is_file = False
    try:
        data = yaml.safe_load(path.read_text() if is_file else text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"--vars: not YAML or JSON, nor a file: {exc}") from exc
    if is_file and isinstance(data, Mapping) and "vars" in data and (
        path.name == "dbt_project.yml" or "name" in data
    ):
        data = data["vars"] or {}
    if not isinstance(data, Mapping):
        raise ConfigError("--vars must be a mapping of dbt vars (or a file holding one)")
    return dict(data)


def check_vars(variables: Mapping[str, Any]) -> list[str]:
    """One line per release the vars declare; the first bad setting raises ConfigError."""
    out: list[str] = []
    if variables.get("deid_release") is not None:
        out.append(_release_line(resolve("release", variables["deid_release"])))
    extra = variables.get("deid_releases") or {}
    if not isinstance(extra, Mapping):
        raise ConfigError("dbt_deid setting 'deid_releases': must be a mapping release name ->"
                          " release settings")
    for key, raw in extra.items():
        check_release_name(key)
        if not isinstance(raw, Mapping) or raw.get("name") != key:
            raise ConfigError(f"dbt_deid setting 'deid_releases.{key}.name': must equal the key"
                              f" {key}")
        out.append(_release_line(resolve("release", raw)))
    if variables.get("deid_claims_release") is not None:
        cfg = resolve("claims", variables["deid_claims_release"])
        name = variables["deid_claims_release"].get("name") or "claims_release"
        out.append(f"ok: claims release {name!r}: tau {cfg['tau']:g}, sampling_fraction"
                   f" {cfg['sampling_fraction']:g}, max_suppression {cfg['max_suppression']:g},"
                   f" {len(cfg['demographic_qis']) + len(cfg['claim_qis'])} quasi-identifiers")
    if variables.get("deid_text_release") is not None:
        cfg = resolve("text", variables["deid_text_release"])
        out.append(f"ok: text release {cfg['name']!r}: tau {cfg['tau']:g}, h {cfg['h']:g},"
                   f" {cfg['iterations']} Monte Carlo iterations")
    if not out:
        raise ConfigError("--vars declares no release (deid_release, deid_releases,"
                          " deid_claims_release or deid_text_release)")
    return out


def _release_line(cfg: Any) -> str:
    line = (f"ok: release {cfg.name!r}: k = {cfg.k} (tau {cfg.tau:g}), max_suppression"
            f" {cfg.max_suppression:g}, {len(cfg.quasi_identifiers)} quasi-identifiers,"
            f" algorithm {cfg.algorithm}")
    if cfg.sensitive:  # the attribute-disclosure gates (docs/attribute-disclosure.md)
        ad = cfg.extra.get("attribute_disclosure") or {}
        models = [f"{name} {ad[key]:g}" for key, name in (
            ("distinct_l", "distinct l"), ("entropy_l", "entropy l"),
            ("recursive_c", "recursive c"), ("recursive_l", "recursive l"), ("t", "t"))
            if ad.get(key) is not None]
        line += f", {len(cfg.sensitive)} sensitive column(s) gated by {', '.join(models)}"
    return line


def run(args: argparse.Namespace) -> int:
    if not settings_jinja.available():
        print(f"note: the package's macros are not in {settings_jinja.MACROS}; checked with the"
              " Python resolver only", file=sys.stderr)
    for line in check_vars(read_vars(args.vars)):
        print(line)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check", help="check the release settings without a warehouse (as dbt parse does)",
        description=__doc__.splitlines()[0])
    p.add_argument("--vars", required=True,
                   help="dbt vars as YAML/JSON, or a path to a vars file or dbt_project.yml")
    p.set_defaults(func=run)
