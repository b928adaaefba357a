"""The power of the adversary, p_ih, per patient i and claim quasi-identifier h (El Emam et al.
2012, "Adversary Knowledge and Power").

What the paper fixes: p_ih is the number of claims whose value of QI h the adversary knows; it
increases monotonically with the patient's number of claims n_i, decreases monotonically with the
diversity of h's values across the patient's claims, never exceeds p_m = max(p_ih) (5, with 10
and 15 as sensitivity analyses, Table 7), and cannot exceed n_i ("many patients had 5 claims or
fewer. Therefore, increasing the power did not necessarily mean that the adversary would have
more background information about them"). Its formula is in Multimedia Appendix 1, which we do
not have. Our former formula ``log_diversity`` (tested for monotonicity and for p_m mattering
above 10):

    D_ih = H_ih / ln(n_i)      normalized Shannon entropy of h's values over i's claims
                               (0 when n_i = 1 or all values are equal, 1 when all differ)
    g(n) = min(1, ln(1 + n) / ln(1 + N_FULL))           with N_FULL = 100
    p_ih = min(n_i, p_m, max(1, ceil(scale * p_m * g(n_i) * (1 - D_ih / 2))))

Why each constant:

* ``N_FULL = 100``: the adversary reaches the full power p_m on a patient with 100 claims - the
  paper's own example of a patient whose knowledge is "5 values from, say, 100 claims" - and the
  share of p_m grows with the logarithm of the number of claims below that (knowing a few claims
  of a patient with many is plausible, knowing a fixed share of them is not). 100 is also close
  to the most claims a patient has after truncation (136 in El Emam et al. 2012).
* ``1 - D / 2``: a patient whose claims all repeat one value (D = 0) gets twice the power of one
  whose claims all differ (D = 1): knowing one repeated value predicts the others, while every
  distinct value must be learned on its own. The factor stays above 0 so that a diverse patient
  with many claims still has power above 1.
* ``ceil`` and ``max(1, .)``: every patient with claims is known by at least one value of each
  QI (the demographics plus one claim is the weakest adversary of the paper's attack 1).
* ``scale`` (setting ``power_scale``, default 1): a multiplier for sensitivity analyses.

Three functions (setting ``power_function``, :mod:`dbt_deid.longitudinal.adversary`):

* ``reconstructed`` (default): p_ih = min(n_i, p_m, max(1, ceil(scale * c(p_m) * g(n_i) *
  (1 - D_ih / 2)))) with c(p_m) = C (p_m / C) ** GAMMA, C = 5, GAMMA = 0.13, in place of p_m.
  At the paper's p_m = 5 it is the former formula. The paper defines p_m as max(p_ih) - a cap -
  and explains Table 7's small growth (attack 1 0.84% -> 0.94% -> 1.17% at p_m 5 / 10 / 15) by
  patients whose power does not grow ("many patients had 5 claims or fewer. Therefore,
  increasing the power did not necessarily mean that the adversary would have more background
  information about them"): the power a patient's claims give barely depends on p_m, p_m
  bounds it. GAMMA is fitted to Table 7's growth (GAMMA = 0: p_m only caps, and attack 1 does
  not grow at all on the calibrated claims; 1: the former formula); docs/lola-adversary.md has
  the fit and what each reading gives.
* ``log_diversity`` (our former formula, below): p_m multiplies the whole expression, so p_m =
  10 and 15 give patients with many claims twice and three times the power of p_m = 5 (capped
  by n_i); on the calibrated claims attack 1 grows 0.84% -> 3.1% -> 5.2%, far faster than
  Table 7.
* ``claims``: p_ih = min(n_i, p_m), the fixed power of the literature the paper cites (every
  patient known by p_m claims, or all of them): the strictest.

Examples of ``log_diversity`` with p_m = 5: n = 1 -> 1; n = 11, D = 0.5 -> 3; n = 30, D = 0.2
-> 4; n = 100, D = 0 -> 5; with p_m = 15 the last is 15 (``reconstructed`` keeps it at C).

The diversity is computed on the values as given (normally the original, ungeneralized values),
so the power does not change from one lattice node to another. A user may instead pass their
own p_ih table (:func:`check_power`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError, DataError

DEFAULT_P_MAX = 5
N_FULL = 100
POWER_FUNCTIONS = ("reconstructed", "log_diversity", "claims")
#: The reconstruction's power at full claims and no diversity at the paper's p_m = 5, and how it
#: grows with p_m: C (p_m / C) ** GAMMA, fitted to Table 7's growth (see the module docstring).
RECONSTRUCTED_C = 5
RECONSTRUCTED_GAMMA = 0.13


def power_formula(
    n_claims: np.ndarray | float,
    diversity: np.ndarray | float,
    p_max: int = DEFAULT_P_MAX,
    scale: float = 1.0,
    function: str = "log_diversity",
) -> np.ndarray:
    """p_ih element-wise by ``function`` (setting ``power_function``, see the module docstring):
    ``log_diversity`` min(n, p_max, max(1, ceil(scale * p_max * g(n) * (1 - D / 2)))) with
    g(n) = min(1, ln(1 + n) / ln(1 + N_FULL)); ``reconstructed`` the same with the constant
    RECONSTRUCTED_C in place of p_max (p_max only caps); ``claims`` min(n, ceil(scale * p_max)),
    the fixed power of the literature."""
    n = np.asarray(n_claims, dtype=np.float64)
    d = np.clip(np.asarray(diversity, dtype=np.float64), 0.0, 1.0)
    g = np.minimum(1.0, np.log1p(n) / np.log1p(N_FULL))
    if function == "log_diversity":
        s = scale * p_max * g * (1.0 - d / 2.0)
    elif function == "reconstructed":
        c = RECONSTRUCTED_C * (p_max / RECONSTRUCTED_C) ** RECONSTRUCTED_GAMMA
        s = scale * c * g * (1.0 - d / 2.0)
    elif function == "claims":
        s = np.full_like(n, scale * p_max)
    else:
        raise ConfigError(f"power_function must be one of {list(POWER_FUNCTIONS)}, got"
                          f" {function!r}")
    p = np.maximum(1.0, np.ceil(s - 1e-9))
    return np.minimum(np.minimum(p, p_max), np.maximum(n, 1)).astype(np.int64)


def _check_p_max(p_max: object) -> int:
    if isinstance(p_max, bool) or not isinstance(p_max, (int, np.integer)) or p_max < 1:
        raise ConfigError(f"p_max must be a positive integer, got {p_max!r}")
    return int(p_max)


def diversity(claims: pd.DataFrame, qi: str, member: str = "member_id") -> pd.Series:
    """D_ih for one QI: normalized entropy of the QI's values over each patient's claims
    (missing is a value of its own)."""
    codes, _ = pd.factorize(claims[qi], use_na_sentinel=False)
    frame = pd.DataFrame({"m": claims[member].to_numpy(), "v": codes})
    cnt = frame.groupby(["m", "v"], sort=False).size()
    c = cnt.to_numpy(dtype=np.float64)
    members = cnt.index.get_level_values(0)
    clogc = pd.Series(c * np.log(c)).groupby(members.to_numpy(), sort=False).sum()
    n = pd.Series(c).groupby(members.to_numpy(), sort=False).sum()
    n = n.reindex(clogc.index)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.log(n.to_numpy()) - clogc.to_numpy() / n.to_numpy()
        d = np.where(n.to_numpy() > 1, h / np.log(np.maximum(n.to_numpy(), 2)), 0.0)
    return pd.Series(np.clip(d, 0.0, 1.0), index=clogc.index, name=qi)


def adversary_power(
    claims: pd.DataFrame,
    qis: Sequence[str],
    *,
    p_max: int = DEFAULT_P_MAX,
    scale: float = 1.0,
    member: str = "member_id",
    function: str = "log_diversity",
) -> pd.DataFrame:
    """p_ih for every patient with claims (index: member id) and claim QI h (one int column per
    QI), by :func:`power_formula`. Also returns ``n_claims``."""
    p_max = _check_p_max(p_max)
    if not scale > 0:
        raise ConfigError(f"power scale must be positive, got {scale!r}")
    missing = [c for c in [member, *qis] if c not in claims.columns]
    if missing:
        raise DataError(f"adversary_power: column(s) {missing} not in the claims")
    n = claims.groupby(member, sort=False).size()
    out = pd.DataFrame(index=n.index)
    out.index.name = member
    out["n_claims"] = n.to_numpy()
    for q in qis:
        d = diversity(claims, q, member).reindex(n.index)
        out[q] = power_formula(n.to_numpy(), d.to_numpy(), p_max, scale, function)
    return out


def check_power(power: pd.DataFrame, qis: Sequence[str], members: pd.Index) -> pd.DataFrame:
    """Validate a user-supplied p_ih table: indexed by member id, one column of integers >= 0
    per claim QI, a row for every patient in ``members``. Values above a patient's number of
    claims are allowed (the draw takes at most n_i values)."""
    missing = [q for q in qis if q not in power.columns]
    if missing:
        raise DataError(f"power table lacks column(s) {missing} (one per claim QI)")
    absent = int((~members.isin(power.index)).sum())
    if absent:
        raise DataError(f"power table has no row for {absent} patient(s)")
    sub = power.loc[members, list(qis)]
    for q in qis:
        col = pd.to_numeric(sub[q], errors="coerce")
        if col.isna().any() or (col < 0).any() or (col != np.floor(col)).any():
            raise DataError(f"power column {q!r} must hold integers >= 0")
    return sub.astype(np.int64)
