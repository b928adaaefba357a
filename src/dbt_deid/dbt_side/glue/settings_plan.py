"""The plan node of the claims and text releases: their settings resolved once, before anything
is built (issue 33).

:func:`deid_settings_plan` is the body of the dbt Python models ``deid_claims_plan`` and
``deid_text_plan``. It runs the one resolver (:func:`dbt_deid.settings_resolve.resolve`: the
relations between settings, El Emam et al. 2012 for the claims release, Scaiano, El Emam et
al. 2016 for the text release) and writes the resolved settings, one row each. Every model that
reads a claims or text input depends on it, so a bad setting fails the build there, with one
message naming the setting, and nothing is published.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from dbt_deid.settings_resolve import resolve


def deid_settings_plan(kind: str, release_json: str) -> pd.DataFrame:
    """The resolved settings of the ``kind`` release (``claims`` or ``text``) as rows
    ``setting, value`` (the value as JSON), in the order of the definition."""
    resolved = resolve(kind, json.loads(release_json))
    rows = [(k, json.dumps(v, sort_keys=True, default=str)) for k, v in _plain(resolved).items()]
    return pd.DataFrame(rows, columns=["setting", "value"]).astype(
        {"setting": "string", "value": "string"})


def _plain(resolved: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON-able settings (the claims release's adversary model is written as its three
    settings, which are already rows)."""
    return {k: v for k, v in resolved.items() if k != "adversary"}


def deid_claims_plan(release_json: str) -> pd.DataFrame:
    """The dbt Python model ``deid_claims_plan``: the claims release resolved once
    (:func:`deid_settings_plan`)."""
    return deid_settings_plan("claims", release_json)


def deid_text_plan(release_json: str) -> pd.DataFrame:
    """The dbt Python model ``deid_text_plan``: the text release resolved once
    (:func:`deid_settings_plan`)."""
    return deid_settings_plan("text", release_json)
