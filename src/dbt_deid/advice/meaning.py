"""What a generalization level means, read from the hierarchy itself (not hard-coded).

El Emam et al. 2011 (discharge PUMF), Table 4 and "Generalization hierarchies": a level is a
recoding of the original values into coarser groups. A custodian reads "age in bands of 10,
top-coded at 90", not "age 2". The description is derived from the hierarchy's labels and its
mapping from original values: the band widths of range labels ("40-49", "[40, 50)"), the top
and bottom codes ("90+", "<18"), a prefix of fixed length (codes truncated to their first
characters), or the number of groups. It names no value a record holds, only the hierarchy's
structure (widths, codes, lengths, counts).
"""

from __future__ import annotations

import re
from collections import Counter

import pandas as pd

_NUM = r"-?\d+(?:\.\d+)?"
_DASH = re.compile(rf"^\s*({_NUM})\s*-\s*({_NUM})\s*$")
_BRACKET = re.compile(rf"^\s*\[\s*({_NUM})\s*,\s*({_NUM})\s*\)\s*$")
_TOP = re.compile(
    rf"^\s*(?:>=\s*|\[\s*)?({_NUM})\s*(?:\+|,\s*(?:inf|\+inf|∞)\s*\)|\s*and over)\s*$")
_BOTTOM = re.compile(rf"^\s*(?:<\s*({_NUM})|\(\s*-inf\s*,\s*({_NUM})\s*\))\s*$")


def _num(text: str) -> float:
    v = float(text)
    return v


def _show(v: float) -> str:
    return str(int(v)) if v == int(v) else f"{v:g}"


def describe_level(hierarchy: pd.DataFrame, level: int, *, missing_label: str | None = None
                   ) -> str:
    """A one-line meaning of ``level`` of one QI's hierarchy (``hierarchy``: its rows of
    ``deid_hierarchy``, columns level, original_value, generalized_value)."""
    if level == 0:
        return "original values"
    rows = hierarchy[hierarchy["level"].astype(int) == int(level)]
    if len(rows) == 0:
        return f"level {level}"
    pairs = rows[["original_value", "generalized_value"]].astype(str)
    if missing_label is not None:
        pairs = pairs[pairs["original_value"] != missing_label]
    labels = pairs["generalized_value"].drop_duplicates()
    originals = pairs["original_value"].drop_duplicates()
    if len(labels) <= 1:
        return "fully generalized (one value for every record)"
    widths: Counter[float] = Counter()
    top: list[float] = []
    bottom: list[float] = []
    other = 0
    for label in labels:
        if m := _DASH.match(label):
            lo, hi = _num(m.group(1)), _num(m.group(2))
            whole = lo == int(lo) and hi == int(hi)
            widths[hi - lo + (1 if whole else 0)] += 1
        elif m := _BRACKET.match(label):
            widths[_num(m.group(2)) - _num(m.group(1))] += 1
        elif m := _TOP.match(label):
            top.append(_num(m.group(1)))
        elif m := _BOTTOM.match(label):
            bottom.append(_num(m.group(1) or m.group(2)))
        else:
            other += 1
    if widths and other == 0:
        width, _ = sorted(widths.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        text = f"in bands of {_show(width)}" if len(widths) == 1 else (
            f"in bands (mostly of {_show(width)})")
        if top:
            text += f", top-coded at {_show(min(top))}"
        if bottom:
            text += f", bottom-coded below {_show(max(bottom))}"
        return text
    lengths = {len(v) for v in labels}
    if len(pairs) and len(lengths) == 1:
        n = next(iter(lengths))
        prefix = (pairs["original_value"].str.slice(0, n) == pairs["generalized_value"]).all()
    else:
        prefix = False
    if prefix:
        return f"first {lengths.pop()} characters of the code ({len(labels)} groups)"
    return f"{len(labels)} groups of the {len(originals)} original values"
