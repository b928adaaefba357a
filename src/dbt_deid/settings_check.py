"""The parse-time check of every release kind, from the one settings definition.

:mod:`dbt_deid.settings_schema` defines every setting of the three release kinds (the discharge
release of El Emam et al. 2011 with its risk suite and OLA sections, the claims release of
El Emam et al. 2012, the text release of Scaiano, El Emam et al. 2016): its name, type, default
and allowed values. :func:`check_section` checks a var against it: unknown names (with the
closest known one), renamed names (naming the new one), required settings and each value's type.
Its Jinja twin ``dbt_deid._check_section`` (``macros/config/check_section.sql``) reads the same
definition through the generated ``dbt_deid.settings_schema()`` and words every error the same
way, "dbt_deid <kind> setting '<name>': <message>"; a test feeds both the same values.

:func:`dbt_deid.settings_resolve.resolve` runs this check, then the kind's full validator.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from dbt_deid.errors import ConfigError
from dbt_deid.settings_schema import (
    KINDS,
    RENAMED,
    RULE_LEVEL_SECTION,
    SECTIONS,
    TYPES,
    closest_name,
)

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def describe(value: Any) -> str:
    """How an error shows a value: a string quoted and called one (``'5' (a string)``, so a
    quoted YAML number is not mistaken for a number), ``true``/``false``/``null`` as in YAML,
    a list or mapping by its kind only. The Jinja twin is ``dbt_deid._describe``."""
    if isinstance(value, str):
        return f"'{value}' (a string)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, Sequence):
        return "a list"
    return str(value)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_list(v: Any) -> bool:
    return isinstance(v, Sequence) and not isinstance(v, str)


def _type_ok(kind: str, v: Any, spec: Mapping[str, Any]) -> bool:
    """Written with positive comparisons only, so NaN fails every numeric type."""
    num = _is_number(v)
    checks = {
        "fraction": lambda: num and 0 <= v <= 1,
        "rate": lambda: num and 0 < v <= 1,
        "positive": lambda: num and v > 0 and math.isfinite(v),
        "number": lambda: num and math.isfinite(v),
        "integer": lambda: isinstance(v, int) and not isinstance(v, bool)
        and v >= spec.get("min", v),
        "percentile": lambda: num and 0 < v <= 100,
        "boolean": lambda: isinstance(v, bool),
        "string": lambda: isinstance(v, str) and v.strip() != "",
        "relation": lambda: (isinstance(v, str) and v != "") or (
            isinstance(v, Mapping) and isinstance(v.get("source_name"), str)
            and isinstance(v.get("table"), str)),
        "columns": lambda: _is_list(v) and all(isinstance(c, str) and c for c in v)
        and len({c.lower() for c in v}) == len(v),
        "mapping": lambda: isinstance(v, Mapping),
        "list": lambda: _is_list(v),
        "env_name": lambda: isinstance(v, str) and _ENV_NAME.fullmatch(v) is not None,
        "any": lambda: True,
    }
    return bool(checks[kind]())


def value_error(value: Any, spec: Mapping[str, Any]) -> str | None:
    """The message for a non-null ``value`` that ``spec`` does not accept, else None. The Jinja
    twin is ``dbt_deid._value_error``."""
    kind = spec.get("type", "any")
    if not _type_ok(kind, value, spec):
        phrase = TYPES[kind] + (f" >= {spec['min']}" if "min" in spec else "")
        return f"must be {phrase}" + ("" if kind == "env_name" else f", got {describe(value)}")
    allowed = spec.get("allowed")
    if allowed is not None and (
        value not in allowed or isinstance(value, bool) != isinstance(allowed[0], bool)
    ):
        return f"must be one of {', '.join(_text(a) for a in allowed)}, got {describe(value)}"
    return None


def _text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def setting_error(kind: str, where: str, message: str) -> ConfigError:
    """One error naming the setting, worded as the Jinja check words it."""
    return ConfigError(f"dbt_deid {KINDS[kind]['label']} setting '{where}': {message}")


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def check_section(
    kind: str, where: str, raw: Mapping[str, Any], section: str, *, require: bool = True
) -> None:
    """Check ``raw`` against ``section``: every name known (a renamed one names its new name,
    an unknown one its closest known name), the required ones present, every non-null value of
    its type, and the sub-sections the same way. Raises the first error."""
    spec = SECTIONS[section]
    renamed = RENAMED.get(section, {})
    for key in raw:
        if key in spec:
            continue
        if key in renamed:
            raise setting_error(kind, _join(where, key), f"'{_join(where, key)}' was renamed to"
                                f" '{_join(where, renamed[key])}'")
        hint = closest_name(str(key), spec)
        suggestion = f"; did you mean '{_join(where, hint)}'?" if hint else ""
        raise setting_error(kind, _join(where, str(key)), f"unknown setting{suggestion} (known"
                            f" here: {', '.join(sorted(spec))})")
    for key, s in spec.items():
        if require and s.get("required") and raw.get(key) is None:
            raise setting_error(kind, _join(where, key), f"is required: {s['doc']}")
    for key, value in raw.items():
        if value is not None:
            check_value(kind, _join(where, key), value, spec[key], require=require)


def check_value(
    kind: str, path: str, value: Any, spec: Mapping[str, Any], *, require: bool = True
) -> None:
    """Check one non-null setting at ``path`` against its ``spec``, its sub-section included."""
    message = value_error(value, spec)
    if message is not None:
        raise setting_error(kind, path, message)
    if spec.get("section"):
        items = value.items() if spec.get("each") else [(None, value)]
        for name, item in items:
            sub = path if name is None else f"{path}.{name}"
            item = {} if item is None and spec.get("each") else item
            if not isinstance(item, Mapping):
                raise setting_error(kind, sub, f"must be a mapping, got {describe(item)}")
            check_section(kind, sub, item, spec["section"], require=require)


def check_var(kind: str, raw: Any) -> None:
    """The parse-time check of a whole var of ``kind`` (what the Jinja config macros run)."""
    var = KINDS[kind]["var"]
    if not isinstance(raw, Mapping):
        raise setting_error(kind, var, f"declare the {KINDS[kind]['label']} as a mapping in var"
                            f" {var}")
    check_section(kind, "", raw, KINDS[kind]["section"])
    if kind == "release":
        rule_levels(raw)


def rule_levels(raw: Mapping[str, Any]) -> None:
    """The names and types of every level of every rule (the sections by rule type, El Emam
    et al. 2011 Table 2), worded as the Jinja ``_validate_rule`` words them."""
    for name, spec in raw["quasi_identifiers"].items():
        rule = (spec or {}).get("rule")
        for i, lv in enumerate((rule or {}).get("levels") or [], start=1):
            where = f"quasi_identifiers.{name}.rule.levels[{i}]"
            if not isinstance(lv, Mapping):
                raise setting_error("release", where, f"must be a mapping, got {describe(lv)}")
            check_section("release", where, lv, RULE_LEVEL_SECTION[rule["type"]])


def is_fraction(value: Any) -> bool:
    """A number in [0, 1] (NaN is not)."""
    return _type_ok("fraction", value, {})
