"""The one definition of the release settings: every name, default and allowed value.

Both validators read this table: the Python one (:mod:`dbt_deid.config`) directly, the Jinja one
(``macros/config/release_config.sql``) through the generated macro
``macros/config/settings_schema.sql`` (``python -m dbt_deid.settings_schema --write``; a test
fails when the macro is not what this module generates). So the two cannot disagree on a name,
a default or an allowed value. Value checks that relate settings to each other (a rule's levels,
a QI in a combination) are written in both validators and tested on the same bad inputs.

Unknown names are errors (fail closed): a misspelt ``max_supression`` would otherwise publish
with no MaxSup. The error suggests the closest known name (:func:`closest_name`).

Column roles (El Emam et al. 2011, "Types of Variables", Table 1; ARX's attribute types): every
source column is the ``record_id`` (never published), a direct identifier (dropped), a
quasi-identifier (generalized, suppressed and checked), ``pass_through`` (non-identifying or
sensitive: copied unchanged) or ``excluded`` (not published). A column with no role fails the
build.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from dbt_deid.errors import ConfigError

#: Threshold presets (El Emam et al. 2009 (CJHP) "Determine Threshold", El Emam et al. 2011
#: "Probability of Re-identification Threshold") and their accepted aliases.
#: ``dbt_deid.risk.thresholds`` holds the justification.
PRESET_TAU: dict[str, float] = {"public": 0.05, "agreement": 0.2, "audited": 1.0 / 3.0}
PRESET_ALIASES: dict[str, str] = {
    "trusted": "agreement", "strong_controls": "audited", "research": "agreement",
}

ALGORITHMS = ["combinations", "complete"]
RULE_TYPES = ["interval", "prefix", "date"]
DATE_UNITS = ["week", "month", "quarter", "year"]
INTERVAL_LABELS = ["range", "lower", "index"]

# Each section maps a setting name to its spec: `doc`, and optionally `required`, `default`,
# `allowed` (the only values accepted) and `section` (the section its value, or each value of
# a mapping with `each: true`, is checked against).
SECTIONS: dict[str, dict[str, dict[str, Any]]] = {
    "release": {
        "name": {"doc": "Release name (report file, history).", "default": "release"},
        "description": {"doc": "Free text for people."},
        "source": {"doc": "Model/seed name or {source_name, table}.", "required": True},
        "record_id": {"doc": "Unique, non-null key; never published.", "required": True},
        "direct_identifiers": {"doc": "Columns dropped (names, card numbers).", "default": []},
        "pass_through": {"doc": "Columns copied unchanged: non-identifying or sensitive"
                                " attributes an adversary cannot know.", "default": []},
        "excluded": {"doc": "Columns not published (neither identifying nor released).",
                     "default": []},
        "quasi_identifiers": {"doc": "QI name -> settings.", "required": True,
                              "section": "quasi_identifier", "each": True},
        "combinations": {"doc": "QI combinations an adversary may know; every released QI must"
                                " be in one."},
        "demographics": {"doc": "QIs crossed with the levels of the hierarchical QIs."},
        "hierarchical_qis": {"doc": "Family name -> levels (El Emam et al. 2011 Tables 4-8).",
                             "section": "family", "each": True},
        "evaluate_all_levels": {"doc": "Evaluate every level of every family (Table 7).",
                                "default": False, "allowed": [True, False]},
        "tau": {"doc": "Threshold; k = ceil(1/tau)."},
        "k": {"doc": "Smallest class size (instead of tau)."},
        "preset": {"doc": "Named threshold context.",
                   "allowed": [*PRESET_TAU, *PRESET_ALIASES]},
        "population_threshold": {"doc": "Smallest population class F_j (k = ceil(alpha F_j))."},
        "sampling_fraction": {"doc": "alpha, the share of the population in the release."},
        "population_size": {"doc": "N, the population size."},
        "population": {"doc": "Model/seed of the population (risk suite)."},
        "population_count_column": {"doc": "Count column of a pattern-level population."},
        "max_suppression": {"doc": "MaxSup: largest share of records with a suppressed QI.",
                            "required": True},
        "column_suppression_cap": {"doc": "Per-column cap (number or column -> number)."},
        "algorithm": {"doc": "Suppression algorithm.", "default": "combinations",
                      "allowed": ALGORITHMS},
        "missing_label": {"doc": "How a NULL source value is published.", "default": "<missing>"},
        "sample": {"doc": "Seeded disjoint samples.", "section": "sample"},
        "report": {"doc": "Report settings.", "section": "report"},
        "small_areas": {"doc": "Small geographic areas (El Emam et al. 2010).",
                        "section": "small_areas"},
        "generalization": {"doc": "OLA search of the released levels.",
                           "section": "generalization"},
    },
    "quasi_identifier": {
        "level": {"doc": "Released level (0 = original).", "default": 0},
        "weight": {"doc": "w in [0, 1]; higher = suppressed later.", "default": 1.0},
        "hierarchy": {"doc": "Lookup hierarchy model/seed (ARX layout)."},
        "rule": {"doc": "Rule-based hierarchy.", "section": "rule"},
        "suppression_cap": {"doc": "Share of the cells of this column that may be suppressed."},
        "column": {"doc": "Source column (default: the QI name)."},
        "derived_from": {"doc": "QI this one is derived from."},
        "description": {"doc": "Free text for people."},
    },
    "rule": {
        "type": {"doc": "Rule type.", "required": True, "allowed": RULE_TYPES},
        "levels": {"doc": "One mapping per level.", "required": True},
    },
    "rule_level_interval": {
        "width": {"doc": "Bin width."},
        "offset": {"doc": "Bin origin.", "default": 0},
        "breaks": {"doc": "Increasing lower bounds (instead of width)."},
        "top_code": {"doc": "Values >= top_code form one bin."},
        "bottom_code": {"doc": "Values < bottom_code form one bin."},
        "label": {"doc": "How a bin is labelled.", "default": "range",
                  "allowed": INTERVAL_LABELS},
    },
    "rule_level_prefix": {
        "length": {"doc": "Characters kept.", "required": True},
    },
    "rule_level_date": {
        "trunc": {"doc": "Truncation unit.", "required": True, "allowed": DATE_UNITS},
    },
    "family": {
        "levels": {"doc": "QI names, finest first.", "required": True},
        "generalizes": {"doc": "coarser level -> finer level (total orders)."},
        "adversary_level": {"doc": "Q: the level an adversary knows.", "default": 0},
        "analyst_level": {"doc": "M: the level analysts need.", "default": 0},
        "evaluate_all_levels": {"doc": "Evaluate every level.", "default": False,
                                "allowed": [True, False]},
        "description": {"doc": "Free text for people."},
    },
    "sample": {
        "fraction": {"doc": "Share of records in the sample.", "required": True},
        "slot": {"doc": "Which disjoint slot.", "default": 0},
        "seed": {"doc": "Hash seed.", "default": 0},
    },
    "report": {
        "by": {"doc": "QIs to break suppression down by.", "default": []},
        "path": {"doc": "Report file (relative to the dbt project)."},
    },
    "small_areas": {
        "geography_column": {"doc": "Geography QI.", "required": True},
        "areas": {"doc": "Model/seed: one row per area with its population.", "required": True},
        "area_column": {"doc": "Area code column.", "default": "area"},
        "population_column": {"doc": "Population column.", "default": "population"},
        "threshold": {"doc": "0.05 or 0.2 (El Emam et al. 2010 equations 3-4).", "default": 0.05,
                      "allowed": [0.05, 0.2]},
        "remedy": {"doc": "What happens to flagged areas.", "default": "none",
                   "allowed": ["none", "suppress", "aggregate"]},
        "hierarchy": {"doc": "Original lookup hierarchy of the geography."},
        "coarser_level": {"doc": "Level flagged areas are aggregated to."},
        "maxcombs": {"doc": "Largest number of QI combinations evaluated."},
        "cutoff": {"doc": "Probability cutoff of the logistic model.", "default": 0.5},
    },
    "generalization": {
        "search": {"doc": "fixed levels or an OLA search.", "default": "fixed",
                   "allowed": ["fixed", "ola"]},
        "metric": {"doc": "Information loss metric.", "default": "entropy",
                   "allowed": ["entropy", "precision", "discernibility", "loss"]},
        "max_levels": {"doc": "QI -> maximum acceptable level."},
        "suppression": {"doc": "records (OLA) or cells (combinations).", "default": "records",
                        "allowed": ["records", "cells"]},
        "max_nodes": {"doc": "Largest lattice the optimal search takes (above it the heuristic"
                             " search runs).",
                      "default": 16777216},
        "max_seconds": {"doc": "Time budget of the search (an error naming it when exceeded)."},
        "heuristic_seconds": {"doc": "Beyond max_nodes: time budget of the heuristic search"
                                     " (Lightning), which returns its best node (as ARX:"
                                     " default 30 s).",
                              "default": 30},
        "heuristic_nodes": {"doc": "Beyond max_nodes: node budget of the heuristic search (same"
                                   " node on every machine); default no limit."},
    },
}

#: The sections a rule level is checked against, by rule type.
RULE_LEVEL_SECTION = {t: f"rule_level_{t}" for t in RULE_TYPES}


def schema() -> dict[str, Any]:
    """Everything the Jinja validator needs, as JSON-compatible data."""
    return {
        "sections": SECTIONS,
        "rule_level_section": RULE_LEVEL_SECTION,
        "preset_tau": PRESET_TAU,
        "preset_aliases": PRESET_ALIASES,
    }


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insertions, deletions, substitutions); the Jinja twin is
    ``dbt_deid._edit_distance``."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        cur = [i]
        for j, cb in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def closest_name(name: str, known: Iterable[str]) -> str | None:
    """The known name nearest to ``name`` (ties: the first in sorted order), if it is within
    max(2, len(name) // 3) edits; None otherwise. ``dbt_deid._closest_name`` is the Jinja
    twin."""
    best, best_d = None, None
    for k in sorted(known):
        d = edit_distance(str(name), k)
        if best_d is None or d < best_d:
            best, best_d = k, d
    if best is None or best_d is None or best_d > max(2, len(str(name)) // 3):
        return None
    return best


def check_names(
    where: str, raw: Mapping[str, Any], section: str, *, require: bool = True
) -> None:
    """Raise ConfigError for the first setting of ``raw`` that ``section`` does not define
    (with a suggestion), then (unless ``require`` is false) for the first required one
    missing."""
    spec = SECTIONS[section]
    for key in raw:
        if key not in spec:
            hint = closest_name(str(key), spec)
            suggestion = f"; did you mean '{_join(where, hint)}'?" if hint else ""
            known = ", ".join(spec)
            raise ConfigError(
                f"unknown setting '{_join(where, str(key))}'{suggestion} (known here: {known})"
            )
    for key, s in spec.items():
        if require and s.get("required") and raw.get(key) is None:
            raise ConfigError(f"{_join(where, key)} is required: {s['doc']}")


def check_allowed(where: str, value: Any, section: str, key: str) -> Any:
    """``value`` (or the default when None) if the section allows it, else ConfigError."""
    spec = SECTIONS[section][key]
    if value is None:
        value = spec.get("default")
    allowed = spec.get("allowed")
    if allowed is not None and value is not None and (
        value not in allowed or isinstance(value, bool) != isinstance(allowed[0], bool)
    ):
        raise ConfigError(
            f"{_join(where, key)} must be one of {', '.join(map(str, allowed))}, got {value!r}"
        )
    return value


def default(section: str, key: str) -> Any:
    """The default of a setting (None when it has none)."""
    return SECTIONS[section][key].get("default")


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


MACRO_PATH = Path(__file__).resolve().parents[2] / "macros" / "config" / "settings_schema.sql"


def render_macro() -> str:
    """The Jinja macro that hands :func:`schema` to the Jinja validator."""
    body = json.dumps(schema(), sort_keys=True, separators=(",", ":"))
    if "'" in body or "\\" in body:
        raise ValueError("settings docs must not contain quotes or backslashes")
    return (
        "{#- GENERATED by `python -m dbt_deid.settings_schema --write` from\n"
        "    src/dbt_deid/settings_schema.py: do not edit. The one definition of the release\n"
        "    settings (names, defaults, allowed values) for the Jinja validator. -#}\n"
        "{% macro settings_schema() -%}\n"
        "  {{ return(adapter.dispatch('settings_schema', 'dbt_deid')()) }}\n"
        "{%- endmacro %}\n\n"
        "{% macro default__settings_schema() -%}\n"
        "  {{ return(fromjson('" + body + "')) }}\n"
        "{%- endmacro %}\n"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"write {MACRO_PATH}")
    args = ap.parse_args(argv)
    if args.write:
        MACRO_PATH.write_text(render_macro())
    else:
        print(render_macro(), end="")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
