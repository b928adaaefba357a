"""Closed-form probabilities of re-identification, equations 11-19 (point estimates).

Notation of Table 4: ``w_i = s_i / n``, ``r_i`` all-or-nothing recall of direct identifier type
``i``; ``r_q`` micro-average recall over quasi-identifier instances, ``m`` instances per value,
``n_q`` distinct values per document; ``h`` the HIPS ("hiding in plain sight") factor.

All functions accept numpy arrays (broadcasting) so the Monte Carlo of
:mod:`dbt_deid.text_risk.distributions` reuses them on sampled parameters.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

DEFAULT_H = 0.1
"""The HIPS factor from re-synthesis experiments (section 2.3.5); ``h = 1`` means no HIPS."""
DIRECT_CUTOFF = 0.9
"""Strict recall: h applies to a direct identifier type only when ``r_i >= 0.9`` (eq. 16)."""
QUASI_CUTOFF = 0.7
"""Strict recall: h applies to quasi-identifiers only when ``r_q >= 0.7`` (eq. 17)."""


def _apply_h(r: NDArray[np.float64], h: float, cutoff: float | None) -> NDArray[np.float64]:
    """The factor each term gets: ``h`` when ``cutoff`` is None or ``r >= cutoff``, else 1."""
    if cutoff is None:
        return np.full_like(r, h, dtype=float)
    return np.where(r >= cutoff, h, 1.0)


def direct_leak_probability(w: ArrayLike, r: ArrayLike) -> float:
    """Probability that a document leaks at least one direct identifier, equation 11.

    ``1 - prod_i (1 - w_i (1 - r_i))``; each factor ``w_i (1 - r_i)`` is equation 10.
    """
    w_ = np.asarray(w, dtype=float)
    r_ = np.asarray(r, dtype=float)
    return float(1.0 - np.prod(1.0 - w_ * (1.0 - r_)))


def direct_reid_probability(
    w: ArrayLike,
    r: ArrayLike,
    *,
    h: float = DEFAULT_H,
    cutoff: float | None = DIRECT_CUTOFF,
    attempt: float = 1.0,
) -> float:
    """Direct-identifier probability of re-identification with re-synthesis, eqs. 14, 16, 18.

    ``attempt * (1 - prod_{r_i >= cutoff} (1 - h w_i (1 - r_i)) prod_{r_i < cutoff}
    (1 - w_i (1 - r_i)))``. ``cutoff=None`` applies ``h`` to every type (equation 14);
    ``cutoff=0.9`` is strict recall (equation 16); ``attempt = Pr(attempt)`` for non-public
    releases (equation 18; 1 for a public release). ``h = 1`` gives equation 11.
    """
    w_ = np.asarray(w, dtype=float)
    r_ = np.asarray(r, dtype=float)
    factor = _apply_h(r_, h, cutoff)
    return float(attempt * (1.0 - np.prod(1.0 - factor * w_ * (1.0 - r_))))


def prob_at_least_two(trials: ArrayLike, p: ArrayLike) -> NDArray[np.float64]:
    """``Pr(X >= 2)`` for ``X ~ B(trials, p)``: ``1 - (1-p)^t - t p (1-p)^(t-1)``.

    Exact for integer ``trials``. The paper's ``n_q`` is an average, so a real ``trials`` is
    accepted: the same expression is smooth in ``t`` for ``t >= 1`` (0 at ``t = 1``); fewer than
    one trial gives 0. Results are clipped to ``[0, 1]``.
    """
    t = np.asarray(trials, dtype=float)
    p_ = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    t_safe = np.maximum(t, 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = 1.0 - p_
        value = 1.0 - q**t_safe - t_safe * p_ * q ** (t_safe - 1.0)
    value = np.where(t >= 1.0, value, 0.0)
    return np.clip(np.nan_to_num(value, nan=0.0), 0.0, 1.0)


def quasi_instance_leak(r_q: ArrayLike, m: ArrayLike) -> NDArray[np.float64]:
    """Probability that at least one instance of a quasi-identifier value leaks: ``1 - r_q^m``.

    Section 2.3.4 (the success probability of equation 12).
    """
    return 1.0 - np.power(np.asarray(r_q, dtype=float), np.asarray(m, dtype=float))


def quasi_leak_probability(n_q: float, m: float, r_q: float) -> float:
    """``Pr(X >= 2)`` for ``X ~ B(n_q, 1 - r_q^m)``, equation 12 (two leaked values re-identify)."""
    return float(prob_at_least_two(n_q, quasi_instance_leak(r_q, m)))


def quasi_reid_probability(
    n_q: float,
    m: float,
    r_q: float,
    *,
    h: float = DEFAULT_H,
    cutoff: float | None = QUASI_CUTOFF,
    attempt: float = 1.0,
) -> float:
    """Quasi-identifier probability of re-identification with re-synthesis, eqs. 15, 17, 19.

    ``attempt * Pr(X >= 2)`` with ``X ~ B(n_q, h (1 - r_q^m))`` when ``r_q >= cutoff`` (or
    ``cutoff`` is None: equation 15), else ``Y ~ B(n_q, 1 - r_q^m)`` (equation 17); ``attempt``
    is ``Pr(attempt)`` for non-public releases (equation 19).
    """
    factor = h if cutoff is None or r_q >= cutoff else 1.0
    p = factor * quasi_instance_leak(r_q, m)
    return float(attempt * prob_at_least_two(n_q, p))
