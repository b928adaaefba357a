"""Closed forms (eqs. 11-19), Monte Carlo (eqs. 20-21) and thresholds (section 2.3.9)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dbt_deid.errors import ConfigError
from dbt_deid.text_risk import (
    Interval,
    QuasiMeasures,
    Settings,
    Triangular,
    assess,
    benchmark_direct,
    direct_leak_probability,
    direct_reid_probability,
    direct_verdict,
    prob_at_least_two,
    quasi_leak_probability,
    quasi_reid_probability,
    quasi_verdict,
    simulate_direct,
    simulate_quasi,
    tau_from_cell_size,
)


def _binom_at_least_two(n: int, p: float) -> float:
    return 1.0 - sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in (0, 1))


def test_section_236_hips_example() -> None:
    # h = 0.1, w = 1, r = 0.4: equation 14 gives 0.06 ...
    assert direct_reid_probability([1.0], [0.4], h=0.1, cutoff=None) == pytest.approx(0.06)
    # ... but strict recall (equation 16) refuses h below r = 0.9
    assert direct_reid_probability([1.0], [0.4], h=0.1, cutoff=0.9) == pytest.approx(0.6)
    assert direct_reid_probability([1.0], [0.95], h=0.1) == pytest.approx(0.005)


def test_equation_16_mixes_terms_and_18_scales_by_attempt() -> None:
    w, r = [1.0, 0.5], [0.95, 0.8]
    expected = 1 - (1 - 0.1 * 1.0 * 0.05) * (1 - 0.5 * 0.2)
    assert direct_reid_probability(w, r, h=0.1) == pytest.approx(expected)
    assert direct_reid_probability(w, r, h=0.1, attempt=0.3) == pytest.approx(0.3 * expected)
    # h = 1 is equation 11
    assert direct_reid_probability(w, r, h=1.0) == pytest.approx(direct_leak_probability(w, r))


@pytest.mark.parametrize(("n", "p"), [(2, 0.5), (3, 0.19), (5, 0.01), (10, 0.3), (1, 0.9)])
def test_prob_at_least_two_is_binomial(n: int, p: float) -> None:
    assert float(prob_at_least_two(n, p)) == pytest.approx(_binom_at_least_two(n, p))


def test_prob_at_least_two_real_trials() -> None:
    assert float(prob_at_least_two(0.5, 0.9)) == 0.0
    assert float(prob_at_least_two(1.0, 0.9)) == pytest.approx(0.0)
    lo, mid, hi = (float(prob_at_least_two(t, 0.3)) for t in (2.0, 2.5, 3.0))
    assert lo < mid < hi


def test_equations_12_15_17() -> None:
    # equation 12: n_q = 3, m = 2, r_q = 0.9 -> p = 1 - 0.81 = 0.19
    assert quasi_leak_probability(3, 2, 0.9) == pytest.approx(_binom_at_least_two(3, 0.19))
    # equation 17 with r_q >= 0.7 uses h
    assert quasi_reid_probability(3, 2, 0.9, h=0.1) == pytest.approx(
        _binom_at_least_two(3, 0.019))
    # r_q < 0.7 drops h; equation 15 (cutoff None) keeps it
    assert quasi_reid_probability(4, 1, 0.6, h=0.1) == pytest.approx(_binom_at_least_two(4, 0.4))
    assert quasi_reid_probability(4, 1, 0.6, h=0.1, cutoff=None) == pytest.approx(
        _binom_at_least_two(4, 0.04))
    assert quasi_reid_probability(4, 1, 0.6, attempt=0.5) == pytest.approx(
        0.5 * _binom_at_least_two(4, 0.4))


def test_triangular_validation_and_degenerate() -> None:
    with pytest.raises(ConfigError):
        Triangular(0.5, 0.2, 0.9)
    rng = np.random.default_rng(0)
    assert np.all(Triangular(0.3, 0.3, 0.3).sample(rng, 5) == 0.3)
    assert Triangular(0.1, 0.2, 0.6).mean == pytest.approx(0.3)


def _direct(rows: list[tuple[str, int, int]], n: int) -> pd.DataFrame:
    f = pd.DataFrame(rows, columns=["type", "s", "s_caught"])
    return f.assign(w=f["s"] / n, r=f["s_caught"] / f["s"])


def test_direct_monte_carlo_converges_to_closed_form_without_variance() -> None:
    n = 10**9  # variances w(1-w)/n and r(1-r)/s vanish
    m = _direct([("NAME", n, int(0.97 * n)), ("PHONE", n // 2, int(0.8 * (n // 2)))], n)
    closed = direct_reid_probability(m["w"], m["r"], h=0.1)
    draws = simulate_direct(m, n, h=0.1, iterations=2000, rng=np.random.default_rng(1))
    assert draws.mean() == pytest.approx(closed, rel=1e-4)
    assert draws.std() < 1e-4
    a = Triangular(0.1, 0.2, 0.6)
    draws = simulate_direct(m, n, h=0.1, attempt=a, iterations=50_000,
                            rng=np.random.default_rng(2))
    assert draws.mean() == pytest.approx(closed * a.mean, rel=0.01)


def test_quasi_monte_carlo_fixed_counts_equals_closed_form() -> None:
    q = QuasiMeasures(r_q=0.9, m=1.5, n_q=4.2, s_q=10**12, present=True)
    draws = simulate_quasi(q, h=0.1, iterations=1000, rng=np.random.default_rng(3),
                           poisson_counts=False)
    assert draws.mean() == pytest.approx(quasi_reid_probability(4.2, 1.5, 0.9, h=0.1), rel=1e-4)


def test_quasi_monte_carlo_poisson_matches_exact_expectation() -> None:
    # E over N ~ Pois(n_q), M ~ Pois(m) of Pr(B(N, h (1 - r^M)) >= 2), recall variance ~ 0
    r, m, n_q, h = 0.6, 1.5, 3.0, 1.0
    q = QuasiMeasures(r_q=r, m=m, n_q=n_q, s_q=10**12, present=True)
    draws = simulate_quasi(q, h=h, iterations=200_000, rng=np.random.default_rng(4))

    def pois(lam: float, k: int) -> float:
        return math.exp(-lam) * lam**k / math.factorial(k)

    exact = sum(
        pois(n_q, nn) * pois(m, mm) * _binom_at_least_two(nn, 1 - r**mm)
        for nn in range(2, 40) for mm in range(0, 40)
    )
    se = draws.std() / math.sqrt(len(draws))
    assert abs(draws.mean() - exact) < 4 * se


def test_benchmark_distribution_by_hand() -> None:
    b = benchmark_direct(iterations=100_000, rng=np.random.default_rng(5))
    sd = math.sqrt(0.95 * 0.05 / 220)
    assert b.mean == pytest.approx(0.005, abs=1e-4)  # h * w * (1 - 0.95)
    assert b.upper == pytest.approx(0.1 * (0.05 + 1.96 * sd), abs=2e-4)
    assert b.lower == pytest.approx(0.1 * (0.05 - 1.96 * sd), abs=2e-4)


def test_verdicts() -> None:
    bench = Interval(0.005, 0.002, 0.0079)
    assert direct_verdict(Interval(0.004, 0.001, 0.0079), bench).passed  # equal passes
    assert not direct_verdict(Interval(0.004, 0.001, 0.008), bench).passed
    assert quasi_verdict(Interval(0.01, 0.0, 0.05), 0.05).passed
    assert not quasi_verdict(Interval(0.01, 0.0, 0.051), 0.05).passed
    assert tau_from_cell_size(5) == pytest.approx(0.2)
    with pytest.raises(ConfigError):
        quasi_verdict(Interval(0, 0, 0), 0.0)


def _aggregates() -> tuple[pd.DataFrame, pd.DataFrame, int]:
    direct = pd.DataFrame([{"type": "NAME", "s": 120, "s_caught": 118},
                           {"type": "ID", "s": 100, "s_caught": 99}])
    quasi = pd.DataFrame([{"instances": 900, "caught": 880, "values": 600, "s_q": 118}])
    return direct, quasi, 120


def test_assess_is_reproducible_from_the_seed() -> None:
    direct, quasi, n = _aggregates()
    st = Settings(iterations=5000, seed=7, attempt=Triangular(0.2, 0.3, 0.5))
    a = assess(direct, quasi, n, st).frame()
    b = assess(direct, quasi, n, st).frame()
    pd.testing.assert_frame_equal(a, b)
    c = assess(direct, quasi, n, Settings(iterations=5000, seed=8,
                                          attempt=Triangular(0.2, 0.3, 0.5))).frame()
    assert not np.allclose(a["upper"], c["upper"])


def test_assess_frame_shape_and_points() -> None:
    direct, quasi, n = _aggregates()
    res = assess(direct, quasi, n, Settings(iterations=5000, seed=1, tau=0.2))
    f = res.frame()
    assert f["measure"].tolist() == ["direct", "direct_benchmark", "quasi"]
    assert list(f.columns) == ["measure", "point", "mean", "lower", "upper", "limit", "passed"]
    assert f.loc[0, "point"] == pytest.approx(
        1 - (1 - 0.1 * (2 / 120)) * (1 - 0.1 * (100 / 120) * (1 / 100)))
    assert f.loc[2, "point"] == pytest.approx(
        quasi_reid_probability(600 / 120, 900 / 600, 880 / 900, h=0.1))
    assert f.loc[2, "limit"] == 0.2
    assert pd.isna(f.loc[1, "passed"])
    assert bool(f.loc[0, "passed"]) == res.direct_gate.passed
    assert res.passed == (res.direct_gate.passed and res.quasi_gate.passed)


def test_settings_validation() -> None:
    with pytest.raises(ConfigError, match="tau"):
        Settings(tau=1.5)
    with pytest.raises(ConfigError, match="h"):
        Settings(h=-0.1)
    with pytest.raises(ConfigError, match="iterations"):
        Settings(iterations=0)


def test_assess_frame_plain_settings_match_assess() -> None:
    from dbt_deid.text_risk import assess_frame

    direct, quasi, n = _aggregates()
    f = assess_frame(direct, quasi, n, tau=0.2, attempt=[0.2, 0.3, 0.5], iterations=3000, seed=4)
    g = assess(direct, quasi, n, Settings(tau=0.2, attempt=Triangular(0.2, 0.3, 0.5),
                                          iterations=3000, seed=4)).frame()
    pd.testing.assert_frame_equal(f, g)
    with pytest.raises(ConfigError, match="attempt"):
        assess_frame(direct, quasi, n, attempt=[0.1, 0.2])
