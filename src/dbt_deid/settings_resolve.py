"""The one resolver of the release settings: a var of any release kind in, resolved settings out.

:func:`resolve` runs the parse-time check (:func:`dbt_deid.settings_check.check_var`, worded as
the Jinja config macros word it), then the kind's full validator: the relations between
settings (column roles, combinations, k = ceil(1/tau) or k from the population, El Emam et al.
2011 and 2012; the lattice dimensions of the claims release; the text release's Pr(attempt)
triangle, Scaiano, El Emam et al. 2016). ``python -m dbt_deid check`` runs it without a
warehouse.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dbt_deid.settings_check import check_var, describe, is_fraction, setting_error
from dbt_deid.settings_schema import SECTIONS


def resolve(kind: str, raw: Any) -> Any:
    """The one resolver: the parse-time check, then the kind's full validator. Returns the
    resolved settings (a :class:`~dbt_deid.config.ReleaseConfig` with the risk-suite and OLA
    sections checked, or the claims / text settings with their defaults)."""
    check_var(kind, raw)
    if kind == "claims":
        from dbt_deid.longitudinal.settings import claims_settings
        return claims_settings(raw)
    if kind == "text":
        return text_settings(raw)
    from dbt_deid.config import parse_release
    from dbt_deid.ola.settings import ola_settings

    cfg = parse_release(raw)
    risk_suite_settings(cfg, raw)
    ola_settings(raw)
    return cfg


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
