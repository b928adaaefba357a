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
