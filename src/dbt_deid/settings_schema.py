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
quasi-identifier (generalized, suppressed and checked), ``pass_through`` (non-identifying:
copied unchanged), ``sensitive`` (copied unchanged and gated by ``attribute_disclosure``) or
``excluded`` (not published). A column with no role fails the
build.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from dbt_deid.code_digest import CODE_DIGEST
from dbt_deid.errors import ConfigError

#: Threshold presets (El Emam et al. 2009 (CJHP) "Determine Threshold", El Emam et al. 2011
#: "Probability of Re-identification Threshold") and their accepted aliases.
#: ``dbt_deid.risk.thresholds`` holds the justification.
PRESET_TAU: dict[str, float] = {"public": 0.05, "agreement": 0.2, "audited": 1.0 / 3.0}
PRESET_ALIASES: dict[str, str] = {
    "trusted": "agreement", "strong_controls": "audited", "research": "agreement",
}

ALGORITHMS = ["combinations", "complete", "mask_cover"]
RULE_TYPES = ["interval", "prefix", "date"]
DATE_UNITS = ["week", "month", "quarter", "year"]
INTERVAL_LABELS = ["range", "lower", "index"]

#: The value types a setting may declare (``type``), each with the phrase of its error message
#: ("must be <phrase>, got <value>"); both validators check them (``settings_check.value_error``
#: and the Jinja ``dbt_deid._value_error``) and a test feeds both the same values.
TYPES: dict[str, str] = {
    "fraction": "a number in [0, 1]",
    "rate": "a number in (0, 1]",
    "positive": "a positive finite number",
    "number": "a finite number",
    "integer": "an integer",
    "percentile": "a percentile in (0, 100]",
    "boolean": "true or false",
    "string": "a string that is not blank",
    "relation": "a model/seed name or {source_name: ..., table: ...}",
    "columns": "a list of distinct column names",
    "mapping": "a mapping",
    "list": "a list",
    "env_name": "the name of an environment variable (never the key itself)",
    "any": "anything",
}

# Each section maps a setting name to its spec: `doc`, and optionally `type` (one of TYPES;
# `min` for an integer), `required`, `default`, `allowed` (the only values accepted) and
# `section` (the section its value, or each value of a mapping with `each: true`, is checked
# against). A null value is an absent one (the default applies; a required one is missing).
_REL = {"type": "relation"}
_COLS = {"type": "columns"}
SECTIONS: dict[str, dict[str, dict[str, Any]]] = {
    "release": {
        "name": {"doc": "Release name (report file, history).", "default": "release",
                 "type": "string"},
        "description": {"doc": "Free text for people."},
        "source": {"doc": "Model/seed name or {source_name, table}.", "required": True, **_REL},
        "record_id": {"doc": "Unique, non-null key; never published.", "required": True,
                      "type": "string"},
        "direct_identifiers": {"doc": "Columns dropped (names, card numbers).", "default": [],
                               **_COLS},
        "pass_through": {"doc": "Columns copied unchanged: non-identifying or sensitive"
                                " attributes an adversary cannot know.", "default": [], **_COLS},
        "excluded": {"doc": "Columns not published (neither identifying nor released).",
                     "default": [], **_COLS},
        "sensitive": {"doc": "Columns published unchanged whose values an adversary does not"
                             " know and must not learn (a diagnosis): gated by"
                             " attribute_disclosure (docs/attribute-disclosure.md).",
                      "default": [], **_COLS},
        "attribute_disclosure": {"doc": "l-diversity and t-closeness of every sensitive column"
                                        " in every verified combination classes.",
                                 "type": "mapping", "section": "attribute_disclosure"},
        "quasi_identifiers": {"doc": "QI name -> settings.", "required": True, "type": "mapping",
                              "section": "quasi_identifier", "each": True},
        "combinations": {"doc": "QI combinations an adversary may know; every released QI must"
                                " be in one (a hierarchical_qis level only where the suppression"
                                " of the checked levels reaches it).", "type": "list"},
        "demographics": {"doc": "QIs crossed with the levels of the hierarchical QIs.",
                         "type": "list"},
        "hierarchical_qis": {"doc": "Family name -> levels (El Emam et al. 2011 Tables 4-8).",
                             "type": "mapping", "section": "family", "each": True},
        "evaluate_all_levels": {"doc": "Evaluate every level of every family (Table 7).",
                                "default": False, "allowed": [True, False]},
        "tau": {"doc": "Threshold; k = ceil(1/tau).", "type": "rate"},
        "k": {"doc": "Smallest class size (instead of tau).", "type": "integer", "min": 2},
        "preset": {"doc": "Named threshold context.",
                   "allowed": [*PRESET_TAU, *PRESET_ALIASES]},
        "population_threshold": {"doc": "Smallest population class F_j (k = ceil(alpha F_j)).",
                                 "type": "integer", "min": 1},
        "sampling_fraction": {"doc": "alpha, the share of the population in the release.",
                              "type": "rate"},
        "population_estimator": {"doc": "How F_j is estimated from a sample class f_j: f_j / alpha"
                                        " (scaling) or the truncated-Poisson estimator (El Emam"
                                        " and Dankar 2008).", "default": "scaling",
                                 "allowed": ["scaling", "truncated_poisson"]},
        "population_size": {"doc": "N, the population size.", "type": "positive"},
        "population": {"doc": "Model/seed of the population (risk suite).", "type": "string"},
        "population_count_column": {"doc": "Count column of a pattern-level population.",
                                    "type": "string"},
        "max_suppression": {"doc": "MaxSup: largest share of records with a suppressed QI.",
                            "required": True, "type": "fraction"},
        "column_suppression_cap": {"doc": "Per-column cap (number or column -> number)."},
        "algorithm": {"doc": "Suppression algorithm (mask_cover: docs/suppression-exact.md).",
                      "default": "combinations",
                      "allowed": ALGORITHMS},
        "missing_label": {"doc": "How a NULL source value is published.", "default": "<missing>",
                          "type": "string"},
        "sample": {"doc": "Seeded disjoint samples.", "type": "mapping", "section": "sample"},
        "max_changed_share": {"doc": "Largest share of the records a version shares with the"
                                     " latest version of the line whose quasi-identifier true"
                                     " values changed; more is refused as record ids naming"
                                     " other records (a renumbered surrogate key): keep the"
                                     " ids stable, or `restart`. A line setting: set when the"
                                     " line starts (its first version or a `restart`); a"
                                     " change between versions is refused.", "default": 0.05,
                              "type": "fraction"},
        "report": {"doc": "Report settings.", "type": "mapping", "section": "report"},
        "small_areas": {"doc": "Small geographic areas (El Emam et al. 2010).",
                        "type": "mapping", "section": "small_areas"},
        "generalization": {"doc": "OLA search of the released levels.", "type": "mapping",
                           "section": "generalization"},
        "restart": {"doc": "Start the release line over (issue 32): the one explicit, audited"
                           " way to re-key, change levels or settings, or go on after a lost"
                           " store (after a lost history, once the published table is archived"
                           " or dropped); written into the history.", "type": "mapping",
                    "section": "restart"},
    },
    "restart": {
        "reason": {"doc": "Why the line starts over (free text, recorded in the history; a"
                          " new reason starts a new line).", "required": True,
                   "type": "string"},
    },
    # Attribute disclosure (Machanavajjhala et al. 2007; Li et al. 2007): the limits every
    # sensitive column's classes must meet (docs/attribute-disclosure.md).
    "attribute_disclosure": {
        "distinct_l": {"doc": "Distinct l-diversity: at least l distinct sensitive values per"
                              " class.", "type": "integer", "min": 2},
        "entropy_l": {"doc": "Entropy l-diversity: the entropy of the sensitive values of every"
                             " class is at least log(l).", "type": "positive"},
        "recursive_c": {"doc": "Recursive (c, l)-diversity: r_1 < c (r_l + ... + r_m) in every"
                               " class (with recursive_l).", "type": "positive"},
        "recursive_l": {"doc": "The l of recursive (c, l)-diversity (with recursive_c).",
                        "type": "integer", "min": 2},
        "t": {"doc": "t-closeness: the Earth Mover Distance between the sensitive"
                     " distribution of every class and that of the whole table is at most t.",
              "type": "fraction"},
        "ordered": {"doc": "Sensitive columns under the ordered distance (numbers in"
                           " numeric order); the others with the equal distance.", **_COLS},
        "hierarchies": {"doc": "Sensitive column -> hierarchy model/seed (ARX layout): the"
                               " hierarchical distance.", "type": "mapping"},
        "remedy": {"doc": "none (the gates refuse a failing class) or suppress: the suppression"
                          " treats a class failing a model as a small class and suppresses"
                          " until every class passes (docs/attribute-disclosure-remedy.md).",
                   "default": "none", "allowed": ["none", "suppress"]},
    },
    "quasi_identifier": {
        "level": {"doc": "Released level (0 = original).", "default": 0, "type": "integer",
                  "min": 0},
        "weight": {"doc": "w in [0, 1]; higher = suppressed later.", "default": 1.0,
                   "type": "fraction"},
        "hierarchy": {"doc": "Lookup hierarchy model/seed (ARX layout).", "type": "string"},
        "rule": {"doc": "Rule-based hierarchy.", "type": "mapping", "section": "rule"},
        "suppression_cap": {"doc": "Share of the cells of this column that may be suppressed.",
                            "type": "fraction"},
        "column": {"doc": "Source column (default: the QI name).", "type": "string"},
        "derived_from": {"doc": "QI this one is derived from.", "type": "string"},
        "description": {"doc": "Free text for people."},
    },
    "rule": {
        "type": {"doc": "Rule type.", "required": True, "allowed": RULE_TYPES},
        "levels": {"doc": "One mapping per level.", "required": True, "type": "list"},
    },
    "rule_level_interval": {
        "width": {"doc": "Bin width.", "type": "positive"},
        "offset": {"doc": "Bin origin.", "default": 0, "type": "number"},
        "breaks": {"doc": "Increasing lower bounds (instead of width).", "type": "list"},
        "top_code": {"doc": "Values >= top_code form one bin.", "type": "number"},
        "bottom_code": {"doc": "Values < bottom_code form one bin.", "type": "number"},
        "label": {"doc": "How a bin is labelled.", "default": "range",
                  "allowed": INTERVAL_LABELS},
    },
    "rule_level_prefix": {
        "length": {"doc": "Characters kept.", "required": True, "type": "integer", "min": 0},
    },
    "rule_level_date": {
        "trunc": {"doc": "Truncation unit.", "required": True, "allowed": DATE_UNITS},
    },
    "family": {
        "levels": {"doc": "QI names, finest first (a suppressed checked level is suppressed in"
                          " every other level over its source column).", "required": True,
                   "type": "list"},
        "generalizes": {"doc": "coarser level -> finer level (total orders, checked on the data"
                               " by a full suppression and by every refresh).",
                        "type": "mapping"},
        "adversary_level": {"doc": "Q: the level an adversary knows (name or rank).",
                            "default": 0},
        "analyst_level": {"doc": "M: the level analysts need (name or rank).", "default": 0},
        "evaluate_all_levels": {"doc": "Evaluate every level.", "default": False,
                                "allowed": [True, False]},
        "description": {"doc": "Free text for people."},
    },
    "sample": {
        "fraction": {"doc": "Share of records in the sample.", "required": True, "type": "rate"},
        "slot": {"doc": "Which disjoint slot.", "default": 0, "type": "integer", "min": 0},
        "seed": {"doc": "Hash seed.", "default": 0, "type": "integer"},
        "order": {"doc": "sample_first: draw the sample, then protect it (k in the sample);"
                         " population_first: protect the whole population (k in the"
                         " population), then draw the disjoint files (El Emam et al. 2011).",
                  "default": "sample_first", "allowed": ["sample_first", "population_first"]},
    },
    "report": {
        "by": {"doc": "QIs to break suppression down by (a name or a list).", "default": []},
        "path": {"doc": "Report file (relative to the dbt project).", "type": "string"},
        "algorithm_comparison": {
            "doc": "Build deid_algorithm_comparison (the suppression algorithm of the release"
                   " next to the combinations and complete algorithms, El Emam et al. 2011"
                   " Evaluation), shown at the end of the report; false: not built, the report"
                   " says it was not requested.",
            "default": False, "type": "boolean"},
    },
    "small_areas": {
        "geography_column": {"doc": "Geography QI.", "required": True, "type": "string"},
        "areas": {"doc": "Model/seed: one row per area with its population.", "required": True,
                  "type": "string"},
        "area_column": {"doc": "Area code column.", "default": "area", "type": "string"},
        "population_column": {"doc": "Population column.", "default": "population",
                              "type": "string"},
        "threshold": {"doc": "0.05 or 0.2 (El Emam et al. 2010 equations 3-4).", "default": 0.05,
                      "allowed": [0.05, 0.2]},
        "remedy": {"doc": "What happens to flagged areas.", "default": "none",
                   "allowed": ["none", "suppress", "aggregate"]},
        "hierarchy": {"doc": "Original lookup hierarchy of the geography.", "type": "string"},
        "coarser_level": {"doc": "Level flagged areas are aggregated to (default: released"
                                 " level + 1).", "type": "integer", "min": 1},
        "maxcombs": {"doc": "Largest number of QI combinations evaluated.", "type": "integer",
                     "min": 1},
        "cutoff": {"doc": "Probability cutoff of the logistic model.", "default": 0.5,
                   "type": "fraction"},
    },
    "generalization": {
        "search": {"doc": "fixed levels or an OLA search.", "default": "fixed",
                   "allowed": ["fixed", "ola"]},
        "metric": {"doc": "Information loss metric.", "default": "entropy",
                   "allowed": ["entropy", "precision", "discernibility", "loss"]},
        "max_levels": {"doc": "QI -> maximum acceptable level.", "type": "mapping"},
        "suppression": {"doc": "records (OLA) or cells (combinations).", "default": "records",
                        "allowed": ["records", "cells"]},
        "max_nodes": {"doc": "Largest lattice the optimal search takes (above it the heuristic"
                             " search runs).",
                      "default": 16777216, "type": "integer", "min": 1},
        "max_seconds": {"doc": "Time budget of the search (an error naming it when exceeded).",
                        "type": "positive"},
        "heuristic_seconds": {"doc": "Beyond max_nodes: time budget of the heuristic search"
                                     " (Lightning), which returns its best node (as ARX:"
                                     " default 30 s).",
                              "default": 30, "type": "positive"},
        "heuristic_nodes": {"doc": "Beyond max_nodes: node budget of the heuristic search (same"
                                   " node on every machine); default no limit.",
                            "type": "integer", "min": 1},
    },
    # The longitudinal claims release (El Emam et al. 2012, the Heritage Health Prize data):
    # var deid_claims_release.
    "claims": {
        "name": {"doc": "Release name.", "default": "claims_release", "type": "string"},
        "restart": {"doc": "Start the claims line over (issue 32): the one explicit, audited way"
                           " to publish a version that differs from the published one (claims"
                           " versions cannot be combined yet); written into the history.",
                    "type": "mapping", "section": "restart"},
        "patients": {"doc": "Patients table (one row per member).", "required": True, **_REL},
        "claims": {"doc": "Claims table (one row per claim).", "required": True, **_REL},
        "member_id": {"doc": "Member id column (links the tables).", "default": "member_id",
                      "type": "string"},
        "claim_id": {"doc": "Claim id column.", "default": "claim_id", "type": "string"},
        "demographic_qis": {"doc": "Demographic QIs of the patients table.", "default": [],
                            **_COLS},
        "claim_qis": {"doc": "Claim QIs (Table 3); at least one.", "required": True, **_COLS},
        "hierarchies": {"doc": "QI -> hierarchy model/seed (level_0, level_1, ...).",
                        "default": {}, "type": "mapping"},
        "dimensions": {"doc": "Lattice dimension -> QIs generalized together (default: one per"
                              " hierarchy).", "type": "mapping"},
        "pseudonymize": {"doc": "Columns pseudonymized per table (default: the member id).",
                         "type": "mapping", "section": "claims_tables"},
        "key_env": {"doc": "Environment variable holding the pseudonym key.",
                    "default": "DBT_DEID_PSEUDONYM_KEY", "type": "env_name"},
        "stigmatized_codes": {"doc": "Model/seed of stigmatized diagnosis codes (column code).",
                              **_REL},
        "stigmatized_column": {"doc": "Claims column holding the diagnosis code.",
                               "default": "diagnosis_code", "type": "string"},
        "top_code": {"doc": "Columns top-coded per table.", "type": "mapping",
                     "section": "claims_tables"},
        "top_code_percentile": {"doc": "Top-coding percentile.", "default": 99,
                                "type": "percentile"},
        "truncate_percentile": {"doc": "Claims per patient kept (percentile).", "default": 95,
                                "type": "percentile"},
        "truncate_partition": {"doc": "Claim columns the truncation counts within (e.g. year).",
                               "default": [], **_COLS},
        "provider_ids": {"doc": "Provider id columns (rare providers are masked).",
                         "default": [], **_COLS},
        "provider_pattern": {"doc": "Claim columns of the treatment pattern.", "default": [],
                             **_COLS},
        "min_providers": {"doc": "Smallest number of providers sharing a pattern.",
                          "default": 20, "type": "integer", "min": 1},
        "release_columns": {"doc": "Non-QI columns published as they are, per table.",
                            "type": "mapping", "section": "claims_tables"},
        "tau": {"doc": "Threshold; k = sampling_fraction x ceil(1/tau).", "default": 0.05,
                "type": "rate"},
        "sampling_fraction": {"doc": "alpha, the share of the population in the release"
                                     " (equation 3).", "default": 1.0, "type": "rate"},
        "max_suppression": {"doc": "MaxSup (null: 0.0004 / tau, the Safe Harbor risk"
                                   " exposure).", "type": "fraction"},
        "gate_on": {"doc": "mean (the paper) or upper (the upper 95% limit).", "default": "mean",
                    "allowed": ["mean", "upper"]},
        "p_max": {"doc": "Adversary power: claims known.", "default": 5, "type": "integer",
                  "min": 1},
        "power_scale": {"doc": "Scale of the adversary power.", "default": 1.0,
                        "type": "positive"},
        "bootstrap": {"doc": "B, bootstrap samples.", "default": 10000, "type": "integer",
                      "min": 1},
        "iterations": {"doc": "I, adversary knowledge draws per bootstrap.", "default": 1000,
                       "type": "integer", "min": 1},
        "bootstrap_scheme": {"doc": "pooled or independent (the paper: I x B draws).",
                             "default": "pooled", "allowed": ["pooled", "independent"]},
        "pool_size": {"doc": "Knowledge draws of the pooled scheme.", "default": 100000,
                      "type": "integer", "min": 1},
        "seed": {"doc": "Random seed.", "default": 0, "type": "integer", "min": 0},
        "variant": {"doc": "values (the paper), whole_claim or ordered_pair.",
                    "default": "values", "allowed": ["values", "whole_claim", "ordered_pair"]},
        "attack_iterations": {"doc": "Simulated attack 1 draws.", "default": 10000,
                              "type": "integer", "min": 1},
        "attack_tau": {"doc": "Threshold of the attacks (null: tau).", "type": "rate"},
        "attack2_population": {"doc": "Population counts for attack 2.", **_REL},
        "attack2_qis": {"doc": "Demographic QIs of attack 2 (e.g. [age, sex]).", "default": [],
                        **_COLS},
        "attack3_population": {"doc": "Inpatient visits (one row per visit) for attack 3.",
                               **_REL},
        "attack3_qi_sets": {"doc": "QI sets of attack 3 (Table 6), each a list of demographic or"
                                   " claim QIs or number_of_visits.", "type": "list"},
        "attack3_patient_column": {"doc": "Patient key of attack3_population.",
                                   "default": "patient_id", "type": "string"},
        "attack3_year_column": {"doc": "Year column of the claims and of attack3_population.",
                                "default": "year", "type": "string"},
        "attack3_visit_column": {"doc": "Claims column set only on inpatient visits (e.g. los).",
                                 "default": "los", "type": "string"},
        "known_demographic_qis": {"doc": "Demographic QIs the adversary knows (null: age and sex"
                                         " where the release has them, else every demographic"
                                         " QI; docs/lola-adversary.md).", **_COLS},
        "power_function": {"doc": "Adversary power p_ih: reconstructed (fitted to Table 7),"
                                  " log_diversity or claims.", "default": "reconstructed",
                           "allowed": ["reconstructed", "log_diversity", "claims"]},
        "knowledge_matching": {"doc": "How known claims match: multiset, set or distinct.",
                               "default": "multiset",
                               "allowed": ["multiset", "set", "distinct"]},
    },
    "claims_tables": {
        "patients": {"doc": "Columns of the patients table.", **_COLS},
        "claims": {"doc": "Columns of the claims table.", **_COLS},
    },
    # The text release (Scaiano, El Emam et al. 2016): var deid_text_release.
    "text": {
        "name": {"doc": "Release name.", "default": "text_release", "type": "string"},
        "restart": {"doc": "Start the text line over (issue 32): the one explicit, audited way"
                           " to publish a version that differs from the published one (text"
                           " versions cannot be combined yet); written into the history.",
                    "type": "mapping", "section": "restart"},
        "documents": {"doc": "Documents table.", "required": True, **_REL},
        "annotations": {"doc": "Gold annotations table.", "required": True, **_REL},
        "detections": {"doc": "Detections table.", "required": True, **_REL},
        "types": {"doc": "Annotation type -> direct or quasi.", "type": "mapping"},
        "h": {"doc": "Re-synthesis factor (1 = redaction only).", "default": 0.1,
              "type": "fraction"},
        "tau": {"doc": "Threshold.", "default": 0.05, "type": "rate"},
        "attempt": {"doc": "[low, mode, high] of Pr(attempt); null = public release.",
                    "type": "list"},
        "iterations": {"doc": "Monte Carlo draws.", "default": 100000, "type": "integer",
                       "min": 1},
        "seed": {"doc": "Random seed.", "default": 0, "type": "integer", "min": 0},
        "direct_cutoff": {"doc": "Direct identifier recall cut-off.", "default": 0.9,
                          "type": "fraction"},
        "quasi_cutoff": {"doc": "Quasi-identifier recall cut-off.", "default": 0.7,
                         "type": "fraction"},
        "allow_unannotated": {"doc": "Accept documents with no annotation.", "default": False,
                              "type": "boolean"},
    },
}

#: The three release kinds: the var each is declared in, the section of its top level and the
#: words its errors start with ("dbt_deid <label> setting '<name>': ...").
KINDS: dict[str, dict[str, str]] = {
    "release": {"var": "deid_release", "section": "release", "label": "release"},
    "claims": {"var": "deid_claims_release", "section": "claims", "label": "claims release"},
    "text": {"var": "deid_text_release", "section": "text", "label": "text release"},
}

#: A name of an extra release (key of var ``deid_releases``): lower-case letters and digits joined
#: by single underscores, at most 30 characters (node names are ``<name>__<package model>`` within
#: PostgreSQL's 63). ``dbt_deid.dbt_side.releases`` and the Jinja ``_release_name_pattern`` read it.
RELEASE_NAME_PATTERN = "^[a-z][a-z0-9]*(_[a-z0-9]+)*$"
MAX_RELEASE_NAME = 30

#: The format of what a build of a discharge release computes and the publish step reads: the
#: release plan (deid_release_plan, the core's resolver output: combinations, released QIs,
#: propagation pairs) and the gate set of the gate table (deid_gate_results, the gates
#: release_gate_names lists). Both record it (column ``plan_format``) and the publish step refuses
#: a plan or a gate table that records another number, or none (built by an older dbt_deid):
#: what an older package checked is not published by this one (review 12, H1). Bump it whenever
#: the gate set or the resolver's output changes (docs/gate-once.md, "Upgrades";
#: tests/unit/test_gate_set.py pins the gate list and the plans to this number).
PLAN_FORMAT = 1

#: One name per concept across the kinds: old name -> new name, per section. A renamed setting
#: fails naming its new name (never silently ignored, never silently accepted).
RENAMED: dict[str, dict[str, str]] = {
    "claims": {"max_sup": "max_suppression", "max_sup_value": "max_suppression",
               "alpha": "sampling_fraction"},
}

#: The sections a rule level is checked against, by rule type.
RULE_LEVEL_SECTION = {t: f"rule_level_{t}" for t in RULE_TYPES}


def schema() -> dict[str, Any]:
    """Everything the Jinja validator needs, as JSON-compatible data."""
    return {
        "sections": SECTIONS,
        "types": TYPES,
        "kinds": KINDS,
        "renamed": RENAMED,
        "rule_level_section": RULE_LEVEL_SECTION,
        "release_name_pattern": RELEASE_NAME_PATTERN,
        "max_release_name": MAX_RELEASE_NAME,
        "plan_format": PLAN_FORMAT,
        "code_digest": CODE_DIGEST,
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


REFERENCE_PATH = MACRO_PATH.parents[2] / "docs" / "settings-reference.md"

#: Where each section's settings are written in a var, for the reference.
_SECTION_PLACE = {
    "release": "var `deid_release` (and each release of `deid_releases`)",
    "quasi_identifier": "`quasi_identifiers.<name>`", "rule": "`quasi_identifiers.<name>.rule`",
    "rule_level_interval": "each of `rule.levels` of an `interval` rule",
    "rule_level_prefix": "each of `rule.levels` of a `prefix` rule",
    "rule_level_date": "each of `rule.levels` of a `date` rule",
    "attribute_disclosure": "`attribute_disclosure`",
    "family": "`hierarchical_qis.<family>`", "sample": "`sample`", "report": "`report`",
    "small_areas": "`small_areas`", "generalization": "`generalization`",
    "restart": "`restart`",
    "claims": "var `deid_claims_release`",
    "claims_tables": "`pseudonymize`, `top_code`, `release_columns` of the claims release",
    "text": "var `deid_text_release`",
}


def _cell(spec: Mapping[str, Any]) -> str:
    kind = spec.get("type", "any")
    text = TYPES[kind] + (f" >= {spec['min']}" if "min" in spec else "")
    if spec.get("allowed"):
        text = "one of " + ", ".join(
            f"`{str(a).lower() if isinstance(a, bool) else a}`" for a in spec["allowed"])
    return text.replace("|", "/")


def render_reference() -> str:
    """The settings reference (Markdown), one table per section, from :data:`SECTIONS`."""
    out = ["<!-- GENERATED by `python -m dbt_deid.settings_schema --write` from",
           "     src/dbt_deid/settings_schema.py: do not edit. -->", "",
           "# Settings reference", "",
           "Every setting of the three release kinds: its type, default and meaning. A null",
           "value is an absent one; an unknown name is an error naming the closest known one;",
           "a renamed one is an error naming its new name (see [settings.md](settings.md)).", ""]
    for section, spec in SECTIONS.items():
        out += [f"## `{section}`", "", f"Where: {_SECTION_PLACE[section]}.", "",
                "| setting | value | default | meaning |", "|---|---|---|---|"]
        for key, s in spec.items():
            dflt = "required" if s.get("required") else (
                "" if s.get("default") is None else f"`{json.dumps(s['default'])}`")
            out.append(f"| `{key}` | {_cell(s)} | {dflt} | {s['doc'].replace('|', '/')} |")
        renamed = RENAMED.get(section, {})
        if renamed:
            out += ["", "Renamed: " + ", ".join(f"`{o}` -> `{n}`" for o, n in renamed.items())
                    + "."]
        out.append("")
    return "\n".join(out)


#: The files whose md5 is the code digest (:func:`compute_code_digest`), relative to the
#: repository: the code that resolves the plan, computes the gates and publishes (the dbt
#: package's macros, models and Python models, the core and the dbt side), with the YAML that
#: configures them (the package's ``dbt_project.yml``: its ``on-run-start`` checks and schemas;
#: the models' YAML: ``enabled`` conditions, materializations, the gate tests), not the tools
#: (CLI, report, synthetic data), tests or docs. The generated files that hold the digest are
#: left out.
DIGEST_GLOBS = ("macros/**/*.sql", "models/**/*.sql", "python_models/**/*.py",
                "src/dbt_deid/**/*.py", "dbt_project.yml", "models/**/*.yml",
                "python_models/**/*.yml")
DIGEST_EXCLUDED = ("macros/config/settings_schema.sql", "src/dbt_deid/code_digest.py")
DIGEST_EXCLUDED_DIRS = ("src/dbt_deid/tools/",)
CODE_DIGEST_PATH = Path(__file__).resolve().with_name("code_digest.py")


def digest_files(root: Path | None = None) -> list[str]:
    """The files of the code digest, relative to the repository root, sorted."""
    base = root if root is not None else MACRO_PATH.parents[2]
    found: set[str] = set()
    for pattern in DIGEST_GLOBS:
        for path in base.glob(pattern):
            rel = path.relative_to(base).as_posix()
            if path.is_file() and "__pycache__" not in rel and rel not in DIGEST_EXCLUDED \
                    and not rel.startswith(DIGEST_EXCLUDED_DIRS):
                found.add(rel)
    return sorted(found)


def compute_code_digest(root: Path | None = None) -> str:
    """The md5 of the package's code (:data:`DIGEST_GLOBS`: each file's path and bytes, line
    endings normalized). The plan and the gate table record it (column ``code_digest``) and the
    publish step refuses a plan or gate table another code computed (review 12 final, M1: a fix
    of a gate's SQL changes neither the gate set nor the plan format, so an older gate table was
    still read after an upgrade). Generated into :mod:`dbt_deid.code_digest` and the Jinja
    settings schema by ``--write``; a test fails when they are stale."""
    base = root if root is not None else MACRO_PATH.parents[2]
    h = hashlib.md5()
    for rel in digest_files(base):
        h.update(rel.encode() + b"\0")
        h.update((base / rel).read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()


def render_code_digest(digest: str) -> str:
    """The generated module :mod:`dbt_deid.code_digest`."""
    return (
        '"""GENERATED by `python -m dbt_deid.settings_schema --write`: do not edit.\n\n'
        "The md5 of the package's code (dbt_deid.settings_schema.compute_code_digest): the plan\n"
        "and the gate table record it and the publish step refuses what other code computed\n"
        '(docs/gate-once.md, "Upgrades")."""\n\n'
        f'CODE_DIGEST = "{digest}"\n'
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true",
                    help=f"write {MACRO_PATH}, {REFERENCE_PATH} and {CODE_DIGEST_PATH}")
    args = ap.parse_args(argv)
    if args.write:
        global CODE_DIGEST
        CODE_DIGEST = compute_code_digest()
        CODE_DIGEST_PATH.write_text(render_code_digest(CODE_DIGEST))
        MACRO_PATH.write_text(render_macro())
        REFERENCE_PATH.write_text(render_reference())
    else:
        print(render_macro(), end="")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
