"""The one resolver of the release settings: a var of any release kind in, resolved settings out.

:func:`resolve` runs the parse-time check (:func:`dbt_deid.settings_check.check_var`, worded as
the Jinja config macros word it), then the kind's full validator: the relations between
settings (column roles, combinations, k = ceil(1/tau) or k from the population, El Emam et al.
2011 and 2012; the lattice dimensions of the claims release; the text release's Pr(attempt)
triangle, Scaiano, El Emam et al. 2016). These value rules live here only (issue 33): the plan
nodes run it once per build (``deid_release_plan``, ``deid_claims_plan``, ``deid_text_plan``),
before any model reads an input, and ``python -m dbt_deid check`` runs it without a warehouse.
The release validators' messages are worded as the parse-time check words its own,
"dbt_deid release setting '<name>': <what>" (docs/settings-once.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from dbt_deid.errors import ConfigError
from dbt_deid.settings_check import (
    check_var,
    describe,
    is_fraction,
    setting_error,
    value_error,
)
from dbt_deid.settings_schema import SECTIONS


def resolve(kind: str, raw: Any) -> Any:
    """The one resolver: the parse-time check, then the kind's full validator. Returns the
    resolved settings (a :class:`~dbt_deid.config.ReleaseConfig` with the risk-suite and OLA
    sections checked, or the claims / text settings with their defaults)."""
    check_var(kind, raw)
    if kind == "claims":
        from dbt_deid.longitudinal.settings import claims_settings
        claims_relations(raw)
        return claims_settings(raw)
    if kind == "text":
        return text_settings(raw)
    try:
        return _release(raw)
    except ConfigError as exc:
        raise _named(str(exc)) from None


def _release(raw: Mapping[str, Any]) -> Any:
    from dbt_deid.config import parse_release
    from dbt_deid.ola.settings import ola_settings

    cfg = parse_release(raw)
    risk_suite_settings(cfg, raw)
    ola_settings(raw)
    return cfg


def _named(message: str) -> ConfigError:
    """A release validator's message ("<setting> <what>" or "<setting>: <what>") worded as every
    setting error is, "dbt_deid release setting '<setting>': <what>" (the plan node's message,
    and ``python -m dbt_deid check``'s)."""
    if message.startswith("dbt_deid "):
        return ConfigError(message)
    if message.startswith("give the threshold"):
        return setting_error("release", "tau", message)
    head, _, rest = message.partition(" ")
    if head.endswith(":"):
        head = head[:-1]
    elif not re.fullmatch(r"[A-Za-z_][\w.\[\]]*", head) or head in ("give", "release"):
        return setting_error("release", "deid_release", message)
    return setting_error("release", head, rest)


def text_settings(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The text release with its defaults; the relations between its settings checked
    (``attempt`` is [low, mode, high] with low <= mode <= high; every type is direct or
    quasi)."""
    spec = SECTIONS["text"]
    out = {k: raw.get(k) if raw.get(k) is not None else s.get("default")
           for k, s in spec.items()}
    for t, role in (out["types"] or {}).items():
        if role not in ("direct", "quasi"):
            raise setting_error("text", f"types.{t}", f"must be direct or quasi, got"
                                f" {describe(role)}")
    attempt = out["attempt"]
    if attempt is not None:
        if len(attempt) != 3 or not all(is_fraction(a) for a in attempt):
            raise setting_error("text", "attempt", "must be [low, mode, high] of Pr(attempt),"
                                " numbers in [0, 1], or null (public release)")
        if not attempt[0] <= attempt[1] <= attempt[2]:
            raise setting_error("text", "attempt", "needs low <= mode <= high, got"
                                f" {', '.join(map(str, attempt))}")
    return out


def risk_suite_settings(cfg: Any, raw: Mapping[str, Any]) -> None:
    """The risk suite's sections related to the release's QIs (the Python twin of the Jinja
    ``risk_suite_config``): ``report.by`` names QIs; ``small_areas`` (El Emam et al. 2010) names
    a QI with an original lookup hierarchy, a coarser level above the released one, and a
    remedy only on the remedied hierarchy at level >= 1."""
    qis = cfg.quasi_identifiers
    by = (raw.get("report") or {}).get("by") or []
    by = [by] if isinstance(by, str) else by
    if isinstance(by, Mapping) or not isinstance(by, (list, tuple)):
        raise setting_error("release", "report.by", "must be a list of quasi-identifier names")
    for b in by:
        if b not in qis:
            raise setting_error("release", "report.by", f"names {b}, not a quasi-identifier;"
                                f" declared: {', '.join(qis)}")
    sa = raw.get("small_areas")
    if sa is None:
        return
    geo = sa.get("geography_column")
    if geo not in qis:
        raise setting_error("release", "small_areas.geography_column", "must name a"
                            f" quasi-identifier, got {describe(geo)}")
    q = qis[geo]
    hierarchy = sa.get("hierarchy") or q.hierarchy
    remedied = "deid_small_area_hierarchy"
    if hierarchy is None or hierarchy == remedied:
        raise setting_error("release", "small_areas.hierarchy", "name the original lookup"
                            f" hierarchy of {geo} (first column the area code, next columns the"
                            " coarser levels)")
    coarser = sa.get("coarser_level") or q.level + 1
    if coarser <= q.level:
        raise setting_error("release", "small_areas.coarser_level", "must be an integer above"
                            f" the released level {q.level}, got {coarser}")
    remedy = sa.get("remedy") or "none"
    if remedy != "none" and q.hierarchy != remedied:
        raise setting_error("release", "small_areas.remedy", f"is {remedy}: set"
                            f" quasi_identifiers.{geo}.hierarchy to {remedied} (the remedied copy"
                            f" of {hierarchy})")
    if remedy != "none" and q.level < 1:
        raise setting_error("release", "small_areas.remedy", f"needs {geo} released at level"
                            " >= 1 of its hierarchy (level 0 is the key)")


def claims_relations(raw: Mapping[str, Any]) -> None:
    """The relations between the claims release's settings (El Emam et al. 2012; the Python twin
    of the Jinja ``claims_release_config``, worded the same): QIs are neither ids nor in both
    tables, every hierarchy belongs to a QI and to one lattice dimension, the member id is
    pseudonymized in both tables and no QI is, provider ids are pseudonymized and have a
    treatment pattern, published columns are not already published, attack 2 has its QIs and
    population."""
    s = {k: raw.get(k) if raw.get(k) is not None else spec.get("default")
         for k, spec in SECTIONS["claims"].items()}

    def fail(setting: str, message: str) -> None:
        raise setting_error("claims", setting, message)

    demo, claim = list(s["demographic_qis"]), list(s["claim_qis"])
    if not claim:
        fail("claim_qis", "must list at least one claim quasi-identifier (El Emam et al. 2012,"
             " Table 3)")
    for q in demo + claim:
        if q in (s["member_id"], s["claim_id"]):
            fail("demographic_qis" if q in demo else "claim_qis",
                 f"{q} is the member or claim id, not a quasi-identifier")
        if q in demo and q in claim:
            fail("claim_qis", f"{q} is also a demographic quasi-identifier")
    hier = s["hierarchies"]
    for q, rel in hier.items():
        if q not in demo + claim:
            fail(f"hierarchies.{q}", "is not a demographic or claim quasi-identifier")
        message = value_error(rel, {"type": "relation"})
        if message is not None:
            fail(f"hierarchies.{q}", message)
    _claims_dimensions(s, demo + claim, fail)
    tables = {key: {t: list((s[key] or {}).get(t) or ([s["member_id"]] if key == "pseudonymize"
                                                       else [])) for t in ("patients", "claims")}
              for key in ("pseudonymize", "release_columns")}
    pseudo = tables["pseudonymize"]
    for t in ("patients", "claims"):
        if s["member_id"] not in pseudo[t]:
            fail(f"pseudonymize.{t}", f"must include the member id {s['member_id']} (it links"
                 " the two tables)")
        for c in pseudo[t]:
            if c.lower() in {q.lower() for q in demo + claim}:
                fail(f"pseudonymize.{t}", f"{c} is a quasi-identifier")
    for c in s["truncate_partition"]:
        if c in [s["member_id"], s["claim_id"], *claim]:
            fail("truncate_partition", f"{c} is the member id, the claim id or a claim"
                 " quasi-identifier; name a column such as the claim year")
    if s["provider_ids"] and not s["provider_pattern"]:
        fail("provider_pattern", "must list the claim columns of the treatment pattern (El Emam"
             " et al. 2012: place of service, specialty, procedure, diagnosis)")
    for c in s["provider_ids"]:
        if c not in pseudo["claims"]:
            fail("provider_ids", f"{c} must also be pseudonymized (add it to pseudonymize.claims)")
    for t, qis in (("patients", demo), ("claims", claim)):
        published = {c.lower() for c in [*qis, *pseudo[t]]}  # column names are case-blind
        for c in tables["release_columns"][t]:
            if c.lower() in published:
                fail(f"release_columns.{t}", f"{c} is already published (quasi-identifier or"
                     " pseudonymized id)")
    for q in s["attack2_qis"]:
        if q not in demo:
            fail("attack2_qis", f"{q} is not a demographic quasi-identifier (attack 2 matches the"
                 " patients table to a voter list or census)")
    if s["attack2_population"] is not None and not s["attack2_qis"]:
        fail("attack2_qis", "must list the demographic quasi-identifiers of attack2_population"
             " (e.g. [age, sex])")
    if s["attack2_population"] is None and s["attack2_qis"]:
        fail("attack2_population", "must name the population table when attack2_qis is set")
    _claims_attack3(s, demo, claim, fail)


def _claims_attack3(s: Mapping[str, Any], demo: list[str], claim: list[str], fail: Any) -> None:
    """Attack 3 (El Emam et al. 2012, Table 6): a population of inpatient visits and the QI sets
    matched against it go together; each set names demographic or claim QIs or
    number_of_visits."""
    sets = s["attack3_qi_sets"]
    if (s["attack3_population"] is None) != (not sets):
        fail("attack3_qi_sets" if s["attack3_population"] is not None else "attack3_population",
             "attack3_population and attack3_qi_sets go together")
    for qis in sets or []:
        if isinstance(qis, str) or not isinstance(qis, list) or not qis:
            fail("attack3_qi_sets", f"each QI set must be a non-empty list, got {qis!r}")
        for q in qis:
            if q not in [*demo, *claim, "number_of_visits"]:
                fail("attack3_qi_sets", f"{q} is not a demographic or claim quasi-identifier"
                     " (or number_of_visits)")
    if sets and s["attack3_visit_column"] not in claim:
        fail("attack3_visit_column", f"{s['attack3_visit_column']} is not a claim"
             " quasi-identifier (the column set only on inpatient visits, e.g. los)")


def _claims_dimensions(s: Mapping[str, Any], qis: list[str], fail: Any) -> None:
    """The lattice dimensions: each a non-empty list of hierarchical QIs, every hierarchical QI
    in exactly one; at least one dimension."""
    hier, dims = s["hierarchies"], s["dimensions"]
    if dims is None:
        if not any(q in hier for q in qis):
            fail("hierarchies", "declare at least one hierarchy: the lattice needs a dimension")
        return
    seen: list[str] = []
    for d, cols in dims.items():
        if isinstance(cols, (str, Mapping)) or not isinstance(cols, (list, tuple)) or not cols:
            fail(f"dimensions.{d}", "must be a non-empty list of quasi-identifiers")
        for c in cols:
            if c not in hier:
                fail(f"dimensions.{d}", f"{c} has no hierarchy (declare it under hierarchies)")
            if c in seen:
                fail(f"dimensions.{d}", f"{c} is in two dimensions")
            seen.append(c)
    for q in hier:
        if q not in seen:
            fail("dimensions", f"{q} has a hierarchy but is in no dimension")
    if not dims:
        fail("hierarchies", "declare at least one hierarchy: the lattice needs a dimension")
