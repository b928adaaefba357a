"""Jinja and Python agree on every setting (issue 33): for every setting of every section of the
three release kinds, valid and invalid values go through both parse-time checks, the Jinja config
macros rendered outside dbt (:mod:`tests.settings_render`) and their Python twin
(:func:`dbt_deid.settings_check.check_var`): both accept or both reject with the same message.
A var both accept then goes through the one resolver the plan node runs
(:func:`dbt_deid.settings_resolve.resolve`); when it resolves, every setting the Jinja macros
hand the SQL equals the resolved one (k, tau, MaxSup and the defaults)."""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator
from typing import Any

import pytest

from dbt_deid.errors import DeidError
from dbt_deid.settings_check import check_var, value_error
from dbt_deid.settings_resolve import resolve
from dbt_deid.settings_schema import KINDS, RENAMED, SECTIONS
from tests.settings_render import JinjaSettingError, jinja_config

_RULES = {
    "age": {"rule": {"type": "interval", "levels": [{"width": 5}]}, "level": 1},
    "code": {"rule": {"type": "prefix", "levels": [{"length": 2}]}},
    "when": {"rule": {"type": "date", "levels": [{"trunc": "month"}]}},
}
RELEASE = {
    "name": "r", "source": "src", "record_id": "id", "max_suppression": 0.1, "tau": 0.2,
    "quasi_identifiers": {**_RULES, "sex": {}, "zip": {"hierarchy": "zip_h", "level": 1}},
    "combinations": [["age", "sex", "zip", "code", "when"]],
}
FAMILY = {
    "name": "f", "source": "src", "record_id": "id", "max_suppression": 0.1, "tau": 0.2,
    "quasi_identifiers": {"age": {}, "dx": {}, "dx_block": {}},
    "hierarchical_qis": {"diagnosis": {"levels": ["dx", "dx_block"]}}, "demographics": ["age"],
}
CLAIMS = {"patients": "p", "claims": "c", "demographic_qis": ["age", "sex"],
          "claim_qis": ["los"], "hierarchies": {"age": "age_h"}}
TEXT = {"documents": "d", "annotations": "a", "detections": "x"}

#: Section -> (kind, a valid var, the path of a mapping of that section in it).
WHERE: dict[str, tuple[str, dict[str, Any], list[Any]]] = {
    "release": ("release", RELEASE, []),
    "quasi_identifier": ("release", RELEASE, ["quasi_identifiers", "sex"]),
    "rule": ("release", RELEASE, ["quasi_identifiers", "age", "rule"]),
    "rule_level_interval": ("release", RELEASE,
                            ["quasi_identifiers", "age", "rule", "levels", 0]),
    "rule_level_prefix": ("release", RELEASE,
                          ["quasi_identifiers", "code", "rule", "levels", 0]),
    "rule_level_date": ("release", RELEASE, ["quasi_identifiers", "when", "rule", "levels", 0]),
    "family": ("release", FAMILY, ["hierarchical_qis", "diagnosis"]),
    "sample": ("release", {**RELEASE, "sample": {"fraction": 0.5}}, ["sample"]),
    "report": ("release", {**RELEASE, "report": {"by": ["age"]}}, ["report"]),
    "restart": ("release", {**RELEASE, "restart": {"reason": "re-keyed"}}, ["restart"]),
    "small_areas": ("release", {**RELEASE, "small_areas": {"geography_column": "zip",
                                                           "areas": "areas"}}, ["small_areas"]),
    "generalization": ("release", {**RELEASE, "generalization": {"search": "ola"}},
                       ["generalization"]),
    "attribute_disclosure": ("release", {**RELEASE, "sensitive": ["dx"],
                                         "attribute_disclosure": {"t": 0.2, "distinct_l": 2}},
                             ["attribute_disclosure"]),
    "claims": ("claims", CLAIMS, []),
    "claims_tables": ("claims", {**CLAIMS, "pseudonymize": {"patients": ["member_id"]}},
                      ["pseudonymize"]),
    "text": ("text", TEXT, []),
}

_BAD_NUMBERS = ["5", True, math.nan, -1, 2, 1e300, math.inf, [0.5]]
_INVALID: dict[str, list[Any]] = {
    "fraction": _BAD_NUMBERS, "rate": [*_BAD_NUMBERS, 0], "positive": [*_BAD_NUMBERS, 0],
    "number": ["5", True, math.nan], "percentile": [*_BAD_NUMBERS, 0, 101],
    "integer": ["3", True, 2.5, math.nan, -1, 0], "boolean": [1, "true", None],
    "string": ["", " ", 5, ["a"]], "relation": ["", 5, {"table": "t"}, ["a"]],
    "columns": ["age", ["a", "a"], ["a", "A"], [1], [""], {"a": 1}],
    "mapping": [[1], "x", 3], "list": ["x", {"a": 1}, 3],
    "env_name": ["1BAD", "a-b", "", 5], "any": [],
}
_VALID: dict[str, list[Any]] = {
    "fraction": [0, 0.5, 1], "rate": [0.5, 1], "positive": [0.5, 3], "number": [0, -2.5],
    "percentile": [50, 100], "integer": [0, 1, 2, 3], "boolean": [True, False],
    "string": ["age", "x"], "relation": ["m", {"source_name": "s", "table": "t"}],
    "columns": [[], ["age"], ["year", "pay_delay"]], "mapping": [{}], "list": [[], ["age"]],
    "env_name": ["KEY_1"], "any": ["x", 1],
}


def _values(spec: dict[str, Any]) -> Iterator[Any]:
    kind = spec.get("type", "any")
    yield None
    if spec.get("default") is not None:
        yield spec["default"]
    yield from spec.get("allowed") or _VALID[kind]
    yield from _INVALID[kind]
    if spec.get("allowed"):
        yield from ("zzz", 1 if isinstance(spec["allowed"][0], bool) else True)


def _put(var: dict[str, Any], path: list[Any], key: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(var)
    node: Any = out
    for p in path:
        node = node[p]
    if value is None:
        node.pop(key, None)
    else:
        node[key] = value
    return out


def _answer(kind: str, raw: Any) -> tuple[str | None, str | None]:
    """(Jinja's parse-time error or None, Python's parse-time error or None); when both accept
    and the resolver accepts too, the values the Jinja macros normalize agree with it."""
    try:
        out = jinja_config(kind, raw)
        j = None
    except JinjaSettingError as exc:
        out, j = None, str(exc)
    try:
        check_var(kind, raw)
        p = None
    except DeidError as exc:
        p = str(exc)
    if j is None and p is None:
        _same_values(kind, raw, out)
    return j, p


def _same_values(kind: str, raw: Any, jinja: Any) -> None:
    """The resolver's answer (an error naming a setting, the plan node's message) or, when it
    resolves, the same values as the Jinja macros hand the SQL."""
    try:
        resolved = resolve(kind, raw)
    except DeidError as exc:
        assert str(exc)  # one message (the plan node fails with it)
        return
    if kind == "release":
        jr = jinja["release"]
        assert (jr["k"], jr["tau"]) == (resolved.k, pytest.approx(resolved.tau))
        assert jr["max_suppression"] == resolved.max_suppression
        assert jr["qi_names"] == list(resolved.quasi_identifiers)
        return
    for key, value in resolved.items():
        if key in jinja and isinstance(value, (int, float, str)):  # scalars: lists are shaped
            assert jinja[key] == (pytest.approx(value) if isinstance(value, float) else value), key


def _path_text(path: list[Any], key: str) -> str:
    out = ""
    for p in [*path, key]:
        out += f"[{p + 1}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


CASES = [(section, key, value) for section, spec in SECTIONS.items()
         for key, s in spec.items() for value in _values(s)]


@pytest.mark.parametrize(("section", "key", "value"), CASES,
                         ids=[f"{s}.{k}={v!r}" for s, k, v in CASES])
def test_jinja_and_python_agree(section: str, key: str, value: Any) -> None:
    kind, base, path = WHERE[section]
    raw = _put(base, path, key, value)
    j, p = _answer(kind, raw)
    assert (j is None) == (p is None), f"Jinja: {j}\nPython: {p}"
    spec = SECTIONS[section][key]
    expected = value_error(value, spec) if value is not None else None
    if expected is not None:
        where = _path_text(path, key)
        message = f"dbt_deid {KINDS[kind]['label']} setting '{where}': {expected}"
        assert j == p == message


def test_every_base_var_is_valid() -> None:
    for kind, base, _ in WHERE.values():
        assert _answer(kind, base) == (None, None)


@pytest.mark.parametrize(("section", "old"), [(s, o) for s, m in RENAMED.items() for o in m])
def test_a_renamed_setting_fails_naming_its_new_name(section: str, old: str) -> None:
    kind, base, path = WHERE[section]
    new = RENAMED[section][old]
    raw = _put(base, path, old, 0.5)
    j, p = _answer(kind, raw)
    assert j == p and p is not None and f"'{old}' was renamed to '{new}'" in p
    with pytest.raises(DeidError, match=f"was renamed to '{new}'"):
        resolve(kind, raw)  # the plan node and `python -m dbt_deid check` say the same


def test_every_section_is_exercised() -> None:
    assert set(WHERE) == set(SECTIONS)


TYPOS = [(section, key) for section, spec in SECTIONS.items() for key in spec
         if section not in RENAMED or key not in RENAMED[section].values()]


@pytest.mark.parametrize(("section", "key"), TYPOS, ids=[f"{s}.{k}" for s, k in TYPOS])
def test_a_misspelt_name_gets_the_same_suggestion(section: str, key: str) -> None:
    """The edit distance and the "did you mean" exist in both languages: same answer."""
    kind, base, path = WHERE[section]
    typo = key[:-1] if len(key) > 3 else key + "x"
    raw = _put(_put(base, path, key, None), path, typo, 1)
    j, p = _answer(kind, raw)
    assert j == p and p is not None and "unknown setting" in p


@pytest.mark.parametrize("tau", [0.05, 0.1, 0.2, 1 / 3, 0.333, 0.25, 0.0001, 0.3, 0.7, 0.07])
def test_k_from_tau_is_the_same(tau: float) -> None:
    """k = ceil(1/tau) (El Emam et al. 2011) in both languages, rounding included."""
    raw = {**RELEASE, "tau": tau}
    assert jinja_config("release", raw)["release"]["k"] == resolve("release", raw).k


@pytest.mark.parametrize("reason", [" ", "\t\n"])
def test_a_blank_restart_reason_is_refused(reason: str) -> None:
    """Review 19 (low): `restart: {reason: ' '}` was accepted, so a blank "audited" reason
    started a new epoch of the line; a string setting must hold a character that is not
    blank, in Jinja and in Python alike (on ec04311 both accepted it)."""
    raw = {**RELEASE, "restart": {"reason": reason}}
    j, p = _answer("release", raw)
    message = ("dbt_deid release setting 'restart.reason': must be a string that is not blank,"
               f" got {reason!r}")
    assert j is not None and p is not None, (j, p)
    assert "restart.reason" in j and "restart.reason" in p and "not blank" in p, (j, p)
    assert message.split(", got")[0] in p
