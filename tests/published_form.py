"""The published form of checked cells, written independently of the package's SQL
(macros/publish/published_value.sql; docs/published-types.md), for tests that compare the
published table with the checked release (deid_suppressed).

A truncated date's first day ('2024-10-01') becomes its period ('2024-10', '2024-Q4', '2024',
'week of 2024-09-30'); an interval bin's label becomes the half-open interval '[lo, hi)'
(top- and bottom-coded bins '90+' and '<20' stay); the missing label and NULL stay. Numbers at
level 0 are compared as text by the callers (``str``).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pandas as pd


def _num(x: Any) -> str:
    text = format(Decimal(str(x)).normalize(), "f")
    return "0" if text in ("-0", "") else text


def _date(value: str, unit: str) -> str:
    if unit == "year":
        return value[:4]
    if unit == "month":
        return value[:7]
    if unit == "quarter":
        return f"{value[:4]}-Q{(int(value[5:7]) - 1) // 3 + 1}"
    return f"week of {value}"


def _interval(value: str, spec: dict[str, Any]) -> str:
    if value.endswith("+") or value.startswith("<"):
        return value
    label = spec.get("label", "range")
    if spec.get("breaks") is not None:
        breaks = [Decimal(str(b)) for b in spec["breaks"]]
        i = (int(value) if label == "index"
             else next(j for j, b in enumerate(breaks) if _num(b) == value.split("-")[0]
                       or (value.startswith("-") and _num(b) == "-" + value[1:].split("-")[0])))
        return f"{_num(breaks[i])}+" if i == len(breaks) - 1 else \
            f"[{_num(breaks[i])}, {_num(breaks[i + 1])})"
    width = Decimal(str(spec["width"]))
    if label == "index":
        lower = Decimal(value) * width + Decimal(str(spec.get("offset", 0)))
    elif label == "lower":
        lower = Decimal(value)
    else:
        head, rest = value[0], value[1:].split("-")[0]
        lower = Decimal(head + rest)
    return f"[{_num(lower)}, {_num(lower + width)})"


def published_cell(value: Any, rule: dict[str, Any] | None, level: int,
                   missing_label: str = "<missing>") -> Any:
    """The published form of one checked cell of a QI with ``rule`` released at ``level``."""
    if value is None or (not isinstance(value, str) and pd.isna(value)) \
            or value == missing_label or rule is None or level == 0:
        return value
    spec = rule["levels"][level - 1]
    if rule["type"] == "date":
        return _date(value, spec["trunc"])
    if rule["type"] == "interval":
        return _interval(value, spec)
    return value


def published_frame(frame: pd.DataFrame, release: dict[str, Any],
                    levels: dict[str, int] | None = None) -> pd.DataFrame:
    """``frame``'s QI columns (checked cells) in published form, per ``release`` (the
    ``deid_release`` settings) at its levels or ``levels``."""
    out = frame.copy()
    qis = release["quasi_identifiers"]
    for col in out.columns:
        if col in qis:
            level = (levels or {}).get(col, qis[col].get("level", 0))
            out[col] = [published_cell(v, qis[col].get("rule"), int(level),
                                       release.get("missing_label", "<missing>"))
                        for v in out[col]]
    return out
