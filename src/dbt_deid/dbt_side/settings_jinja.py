"""The package's parse-time settings check, its Jinja config macros, rendered outside dbt.

``python -m dbt_deid check`` runs the very macros dbt runs while parsing (``release_config``,
``risk_suite_config`` and ``ola_config`` for a release, ``claims_release_config``,
``text_release_config``), with ``execute`` false as in ``dbt parse``, so it answers with dbt's
own words without a warehouse or a dbt project. Only Jinja is needed (dbt-core's dependency);
the few execute-time macros they call (the release plan) give their parse-time answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jinja2

MACROS = Path(__file__).resolve().parents[3] / "macros"
FILES = ("config/settings_schema.sql", "config/check_section.sql", "config/closest_name.sql",
         "config/release_config.sql", "config/claims_release_config.sql",
         "config/text_release_config.sql", "config/risk_suite_config.sql",
         "config/ola_config.sql", "risk/truncated_poisson_k.sql", "overrides/own.sql")
VARS = {"release": "deid_release", "claims": "deid_claims_release", "text": "deid_text_release"}
ENTRY = {"release": "release_config", "claims": "claims_release_config",
         "text": "text_release_config"}


class JinjaSettingError(Exception):
    """The compiler error a config macro raised (its text is dbt's)."""


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value


def _raise_return(value: Any) -> None:
    raise _Return(value)


def _raise_error(message: str) -> None:
    raise JinjaSettingError(message)


def available() -> bool:
    """True when the package's macros are next to this module (a source checkout or the dbt
    package directory)."""
    return all((MACROS / f).is_file() for f in FILES)


@cache
def _module() -> tuple[Callable[[str], Callable[..., Any]], dict[str, Any]]:
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    state: dict[str, Any] = {"var": {}}
    holder: dict[str, Any] = {}

    def call(name: str) -> Callable[..., Any]:
        target = "p_" + name if name.startswith("_") else name  # Jinja hides _names

        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return getattr(holder["m"], target)(*args, **kwargs)
            except _Return as r:
                return r.value
        return run

    def var(name: str, default: Any = None) -> Any:
        return state["var"].get(name, default)

    parse_time = {"release_settings": lambda: var("deid_release"), "current_release": lambda: None,
                  "release_plan": lambda kind: [], "release_enabled": lambda: True}
    env.globals.update({
        "dbt_deid": _Namespace(call, parse_time),
        "adapter": SimpleNamespace(dispatch=lambda name, package="dbt_deid": call(
            "default__" + name)),
        "exceptions": SimpleNamespace(raise_compiler_error=_raise_error),
        "fromjson": json.loads, "modules": SimpleNamespace(re=re), "execute": False,
        "var": var, "log": lambda *a, **k: "", "return": _raise_return,
    })
    text = "\n".join((MACROS / f).read_text() for f in FILES)
    holder["m"] = env.from_string(re.sub(r"{%(-?)\s*macro\s+_", r"{%\1 macro p__", text)
                                  ).make_module()
    return call, state


class _Namespace:
    """``dbt_deid.<macro>`` inside the macros."""

    def __init__(self, call: Callable[[str], Any], stubs: dict[str, Any]) -> None:
        self._call, self._stubs = call, stubs

    def __getattr__(self, name: str) -> Any:
        return self._stubs.get(name) or self._call(name)


def jinja_config(kind: str, raw: Any) -> Any:
    """What the config macros answer for a var of ``kind`` (release, claims or text): the
    normalized settings (for a release with its risk-suite and OLA sections), or
    :class:`JinjaSettingError` with dbt's message."""
    call, state = _module()
    state["var"] = {VARS[kind]: raw}
    out = call(ENTRY[kind])()
    if kind == "release":
        return {"release": out, "risk_suite": call("risk_suite_config")(),
                "ola": call("ola_config")()}
    return out
