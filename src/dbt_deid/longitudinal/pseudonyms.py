"""Irreversible pseudonyms for direct identifiers (El Emam et al. 2012, "Creating Pseudonyms").

MemberID, ProviderID, Vendor and PCP are replaced by keyed HMAC-SHA256 digests: the same id
gives the same pseudonym under the same key (so tables stay linked through ``member_id``), and
without the key the pseudonym cannot be reversed by hashing candidate ids (ids are short and
enumerable, so an unkeyed hash would be reversible by brute force).

The key is read from an environment variable (default ``DBT_DEID_PSEUDONYM_KEY``), never from
code, configuration or logs; a missing or empty key is a :class:`ConfigError` naming the
variable, not the key. This step runs as a Python model in dbt: computing the HMAC in SQL would
put the key in compiled SQL under ``target/``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.longitudinal.report import StepReport

DEFAULT_KEY_ENV = "DBT_DEID_PSEUDONYM_KEY"
MIN_KEY_BYTES = 16
DEFAULT_ID_COLUMNS = ("member_id", "provider_id", "vendor_id", "pcp_id")


def read_key(env_var: str = DEFAULT_KEY_ENV, environ: Mapping[str, str] | None = None) -> bytes:
    """The HMAC key from environment variable ``env_var``; ConfigError when unset, empty or
    shorter than 16 bytes (the message names the variable, never the key)."""
    env = os.environ if environ is None else environ
    raw = env.get(env_var)
    if not raw:
        raise ConfigError(
            f"environment variable {env_var} (the pseudonym key) is not set; set it to a secret"
            f" of at least {MIN_KEY_BYTES} bytes"
        )
    key = raw.encode("utf-8")
    if len(key) < MIN_KEY_BYTES:
        raise ConfigError(
            f"environment variable {env_var} (the pseudonym key) is shorter than"
            f" {MIN_KEY_BYTES} bytes"
        )
    return key


def canonical_id(value: object) -> str:
    """The text an id is hashed as: integral floats (ids in a column with missing values) and
    numpy integers are written as integers, so 11, 11.0 and "11" get the same pseudonym."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, np.integer):
        return str(int(value))
    return str(value)


def _digest(key: bytes, domain: str, length: int):
    def f(value: object) -> str:
        msg = f"{domain}\x1f{canonical_id(value)}".encode()
        return hmac.new(key, msg, hashlib.sha256).hexdigest()[:length]

    return f


def pseudonymize(
    frame: pd.DataFrame,
    columns: Sequence[str] = DEFAULT_ID_COLUMNS,
    *,
    key_env: str = DEFAULT_KEY_ENV,
    domains: Mapping[str, str] | None = None,
    length: int = 32,
    environ: Mapping[str, str] | None = None,
) -> tuple[pd.DataFrame, StepReport]:
    """Replace each id in ``columns`` (those present in ``frame``) by
    ``hex(HMAC-SHA256(key, domain || 0x1f || str(id)))[:length]``.

    ``domains`` maps a column to its id domain (default: the column name; ``pcp_id`` and
    ``provider_id`` could share "provider" when they are the same id space); equal ids in the
    same domain get equal pseudonyms in every table. Missing ids stay missing. Returns the new
    frame and counts per column. The key never leaves this function.
    """
    if not 8 <= length <= 64:
        raise ConfigError(f"pseudonym length must be in [8, 64] hex digits, got {length!r}")
    present = [c for c in columns if c in frame.columns]
    if not present:
        raise DataError(f"none of the id columns {list(columns)} is in the frame")
    key = read_key(key_env, environ)
    out = frame.copy()
    cells, distinct, missing = {}, {}, {}
    for col in present:
        domain = (domains or {}).get(col, col)
        values = out[col]
        uniques = pd.unique(values.dropna())
        f = _digest(key, domain, length)
        mapping = {v: f(v) for v in uniques}
        out[col] = values.map(mapping).astype("string")
        n_missing = int(values.isna().sum())
        cells[col] = int(len(values) - n_missing)
        distinct[col] = len(uniques)
        missing[col] = n_missing
    del key
    changed = {f"{c}_pseudonymized": n for c, n in cells.items()}
    details = {**{f"{c}_distinct": n for c, n in distinct.items()},
               **{f"{c}_missing": n for c, n in missing.items()}}
    return out, StepReport("pseudonymize", len(frame), len(out), changed, details)
