"""The package's parse-time settings check (the Jinja config macros) rendered outside dbt.

:func:`jinja_config` runs ``release_config`` / ``risk_suite_config`` / ``ola_config`` (kind
``release``), ``claims_release_config`` (``claims``) or ``text_release_config`` (``text``) on a
var, as dbt does while parsing (``execute`` false: the release plan is empty), and returns the
normalized settings or raises :class:`JinjaSettingError` with the compiler error's text.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "macros" / p for p in (
    "config/settings_schema.sql", "config/check_section.sql", "config/release_config.sql",
    "longitudinal/claims_release_config.sql", "text_risk/text_release_config.sql",
    "risk_suite/risk_suite_config.sql", "ola/ola_config.sql")]


class JinjaSettingError(Exception):
    """``exceptions.raise_compiler_error`` of a rendered macro."""


def _raise(message: str) -> None:
    raise JinjaSettingError(message)


class _Namespace:
    """``dbt_deid.<macro>``: the default__ form when there is one, else the macro; a few
    execute-time macros are replaced by what they return while parsing."""

    def __init__(self, call: Any, state: dict[str, Any]) -> None:
        self._call, self._state = call, state

    def __getattr__(self, name: str) -> Any:
        stubs = {
            "release_settings": lambda: self._state.get("var", {}).get("deid_release"),
            "current_release": lambda: None,
            "release_plan": lambda kind: [],
            "release_enabled": lambda: True,
        }
        if name in stubs:
            return stubs[name]
        return self._call(name)


@cache
def _caller() -> tuple[Any, dict[str, Any]]:
    state: dict[str, Any] = {}

    def context(call: Any) -> dict[str, Any]:
        def dispatch(name: str, package: str = "dbt_deid") -> Any:
            return call("default__" + name)

        return {
            "dbt_deid": _Namespace(call, state),
            "adapter": SimpleNamespace(dispatch=dispatch),
            "exceptions": SimpleNamespace(raise_compiler_error=_raise),
            "fromjson": json.loads,
            "modules": SimpleNamespace(re=re),
            "execute": False,
            "var": lambda name, default=None: state.get("var", {}).get(name, default),
            "log": lambda *a, **k: "",
        }

    return macro_caller(FILES, context), state


MACROS = {"release": "release_config", "claims": "claims_release_config",
          "text": "text_release_config"}


def jinja_config(kind: str, raw: Any) -> Any:
    """The Jinja parse-time answer for a var of ``kind``: the normalized settings (for a
    release, the risk-suite and OLA sections too), or JinjaSettingError."""
    call, state = _caller()
    var = {"release": "deid_release", "claims": "deid_claims_release",
           "text": "deid_text_release"}[kind]
    state["var"] = {var: raw}
    out = call(MACROS[kind])()
    if kind == "release":
        return {"release": out, "risk_suite": call("risk_suite_config")(),
                "ola": call("ola_config")()}
    return out
