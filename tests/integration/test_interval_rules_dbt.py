"""Interval rules in exact arithmetic (issue 13 item 2) and clear errors for values a rule cannot
read (item 7), on DuckDB through dbt.

``dbt_deid.interval_sql`` runs on edge values (large integers, values on a break and just below
it, negative values, offsets, top and bottom coding, fractional widths, every label kind, with
integer, float, decimal and text inputs) and is compared with an independent oracle in exact
rational arithmetic.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest

from tests.integration.dbt_runner import INTEGRATION, build_release, project_vars, run_dbt

pytestmark = pytest.mark.dbt

SPECS: list[dict[str, Any]] = [
    {"width": 1},
    {"width": 1, "label": "index"},
    {"width": 10, "top_code": 90, "bottom_code": 0},
    {"width": 5, "offset": 2},
    {"width": 5, "offset": -3, "label": "index"},
    {"width": 5, "offset": 2, "label": "lower"},
    {"breaks": [0, 3, 6]},
    {"breaks": [0, 3, 6], "label": "index"},
    {"breaks": [0.5, 1.25, 3], "top_code": 10, "label": "lower"},
    {"breaks": [-5, 0, 2.5, 3]},
    {"width": 0.1},
    {"width": 2.5, "label": "lower"},
    {"width": 1, "offset": 0.5},
    {"width": 7, "top_code": 182, "label": "index"},
    {"width": 0.25, "offset": -0.5, "bottom_code": -10},
    {"width": 1e-05, "label": "lower"},
    {"width": 100000, "top_code": 1e7, "bottom_code": -1.5e3},
]

VALUES: list[str | None] = [
    "16777217", "20240131", "9007199254740993", "2.9999999", "3", "-0.0000001", "-1", "-7.5",
    "0", "5", "4.9999999", "89.9999999", "90", "182", "-10.25", None,
]


def _exact(text: str) -> Fraction:
    return Fraction(text)


def _setting(x: int | float) -> Fraction:
    """A number from the settings as written (YAML 0.1 is the decimal 0.1)."""
    return Fraction(repr(x)) if isinstance(x, float) else Fraction(x)


def _fits(text: str | None, sql_type: str) -> bool:
    if text is None:
        return True
    value = _exact(text)
    if sql_type == "bigint":
        return value.denominator == 1
    if sql_type == "double":
        return Fraction(float(text)) == value or repr(float(text)) in (text, text + ".0")
    return True


INPUTS = [
    {"type": t, "values": [[i, v] for i, v in enumerate(VALUES) if _fits(v, t)]}
    for t in ("bigint", "double", "decimal(30, 7)", "varchar")
]


def _fmt(x: Fraction) -> str:
    """Exact decimal text of a fraction with a finite expansion, no trailing zeros."""
    sign = "-" if x < 0 else ""
    x = abs(x)
    whole, rest = divmod(x.numerator, x.denominator)
    digits = ""
    while rest:
        rest *= 10
        d, rest = divmod(rest, x.denominator)
        digits += str(d)
        assert len(digits) < 40
    return sign + str(whole) + ("." + digits if digits else "") if (whole or digits) else "0"


def expected_label(spec: dict[str, Any], text: str | None) -> str | None:
    """The label of El Emam et al. 2011 Table 2's interval levels, in exact rational arithmetic."""
    if text is None:
        return None
    v = _exact(text)
    num = _setting
    label = spec.get("label", "range")
    top, bottom = spec.get("top_code"), spec.get("bottom_code")
    if top is not None and v >= num(top):
        return _fmt(num(top)) + "+"
    if bottom is not None and v < num(bottom):
        return "<" + _fmt(num(bottom))
    if "breaks" in spec:
        b = [num(x) for x in spec["breaks"]]
        for i in range(len(b) - 1, -1, -1):
            if v >= b[i]:
                if label == "index":
                    return str(i)
                if label == "lower" or i == len(b) - 1:
                    return _fmt(b[i]) + ("+" if label == "range" and top is None
                                         and i == len(b) - 1 else "")
                lo, hi = b[i], b[i + 1]
                if lo.denominator == 1 and hi.denominator == 1:
                    return _fmt(lo) if hi - lo == 1 else f"{_fmt(lo)}-{_fmt(hi - 1)}"
                return f"{_fmt(lo)}-{_fmt(hi)}"
        return "<" + _fmt(b[0])
    w, off = num(spec["width"]), num(spec.get("offset", 0))
    idx = math.floor((v - off) / w)
    lower = idx * w + off
    if label == "index":
        return str(idx)
    whole = w.denominator == 1 and off.denominator == 1
    if label == "lower" or (whole and w == 1):
        return _fmt(lower)
    if whole:
        return f"{_fmt(lower)}-{_fmt(lower + w - 1)}"
    return f"{_fmt(lower)}-{_fmt(lower + w)}"


def test_oracle_examples() -> None:
    """The oracle itself on the figures of issue 13."""
    assert expected_label({"width": 1}, "16777217") == "16777217"
    assert expected_label({"width": 1}, "20240131") == "20240131"
    assert expected_label({"breaks": [0, 3, 6]}, "2.9999999") == "0-2"
    assert expected_label({"width": 5, "offset": 2}, "-1") == "-3-1"
    assert expected_label({"width": 0.1}, "2.9999999") == "2.9-3"
    assert expected_label({"width": 1e-05, "label": "lower"}, "2.9999999") == "2.99999"


def test_interval_labels_are_exact_at_the_edges(tmp_path) -> None:
    variables = {**project_vars(INTEGRATION), "interval_edge_specs": SPECS,
                 "interval_edge_inputs": INPUTS}
    run = run_dbt(INTEGRATION, ["run", "--select", "interval_edge_labels"], tmp_path, variables)
    assert run.ok, run.output[-3000:]
    got = run.query("select spec_no, value_type, value_no, label from interval_edge_labels")
    assert len(got) == len(SPECS) * sum(len(i["values"]) for i in INPUTS)
    wrong = []
    for row in got.itertuples(index=False):
        want = expected_label(SPECS[row.spec_no], VALUES[row.value_no])
        label = None if row.label is None or row.label != row.label else row.label
        if label != want:
            wrong.append((SPECS[row.spec_no], row.value_type, VALUES[row.value_no], label, want))
    assert not wrong, "\n".join(map(str, wrong[:40])) + f"\n({len(wrong)} wrong)"


def _release(**qis) -> dict:
    variables = project_vars(INTEGRATION)
    release = dict(variables["deid_release"])
    release["quasi_identifiers"] = {**release["quasi_identifiers"], **qis}
    release.pop("combinations", None)
    release["combinations"] = [list(release["quasi_identifiers"])]
    return {**variables, "deid_release": release}


@pytest.mark.parametrize(
    ("qi", "message"),
    [
        ({"gender": {"rule": {"type": "interval", "levels": [{"width": 5}]}, "level": 1}},
         "model deid_hierarchy: column 'gender' value 'F' is not a number"),
        ({"province": {"rule": {"type": "date", "levels": [{"trunc": "year"}]}, "level": 1}},
         "model deid_hierarchy: column 'province' value 'AB' is not a date"),
    ],
)
def test_a_value_a_rule_cannot_read_is_one_clear_error(it_database, tmp_path, qi, message) -> None:
    """Item 7: not a raw conversion error from the warehouse, but the model, column and value."""
    run = build_release(it_database, tmp_path, _release(**qi))
    assert not run.ok
    assert message in run.output, run.output[-3000:]
    assert "Conversion Error" not in run.output
    assert "deid_hierarchy" not in run.tables()
