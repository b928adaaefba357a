"""The whole assessment: aggregate tables in, point estimates, 95% intervals and verdicts out.

:func:`assess` takes only the two small aggregate tables of :mod:`dbt_deid.text_risk.counting`
(``direct_counts``: ``type, s, s_caught``; ``quasi_counts``: ``instances, caught, values, s_q``)
and ``n``; this is what a dbt Python model calls after SQL models did the counting.
:func:`assess_corpus` runs validation, matching and counting in pandas first (CLI, tests).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError
from dbt_deid.progress import Logger, get_logger
from dbt_deid.tau import check_tau
from dbt_deid.text_risk.counting import (
    QuasiMeasures,
    all_or_nothing_recall,
    direct_counts,
    direct_measures,
    masking_recall,
    micro_recall,
    quasi_counts,
    quasi_measures,
)
from dbt_deid.text_risk.distributions import (
    DEFAULT_ITERATIONS,
    Interval,
    Triangular,
    attempt_mean,
    interval,
    simulate_direct,
    simulate_quasi,
)
from dbt_deid.text_risk.inputs import validate_inputs
from dbt_deid.text_risk.matching import annotation_outcomes
from dbt_deid.text_risk.probabilities import (
    DEFAULT_H,
    DIRECT_CUTOFF,
    QUASI_CUTOFF,
    direct_leak_probability,
    direct_reid_probability,
    quasi_leak_probability,
    quasi_reid_probability,
)
from dbt_deid.text_risk.thresholds import (
    BENCHMARK_RECALL,
    BENCHMARK_W,
    DEFAULT_TAU,
    Verdict,
    benchmark_direct,
    direct_verdict,
    quasi_verdict,
)

RESULT_COLUMNS: tuple[str, ...] = (
    "measure", "point", "mean", "lower", "upper", "limit", "passed",
)


@dataclass(frozen=True)
class Settings:
    """Release context: HIPS factor, strict-recall cut-offs, ``Pr(attempt)``, ``tau``, MC size.

    ``h = 1`` disables the re-synthesis adjustment (redaction instead of re-synthesis);
    ``attempt = None`` is a public release (``Pr(attempt) = 1``, equations 16-17).
    """

    h: float = DEFAULT_H
    tau: float = DEFAULT_TAU
    direct_cutoff: float = DIRECT_CUTOFF
    quasi_cutoff: float = QUASI_CUTOFF
    attempt: Triangular | None = None
    iterations: int = DEFAULT_ITERATIONS
    seed: int = 0
    level: float = 0.95

    def __post_init__(self) -> None:
        if not 0.0 <= self.h <= 1.0:
            raise ConfigError(f"h must be in [0, 1], got {self.h}")
        check_tau(self.tau)
        for name in ("direct_cutoff", "quasi_cutoff"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ConfigError(f"{name} must be in [0, 1], got {v}")
        if self.iterations < 1:
            raise ConfigError(f"iterations must be at least 1, got {self.iterations}")

    def as_dict(self) -> dict[str, object]:
        a = self.attempt
        return {
            "h": self.h, "tau": self.tau, "direct_cutoff": self.direct_cutoff,
            "quasi_cutoff": self.quasi_cutoff,
            "attempt": None if a is None else [a.low, a.mode, a.high],
            "iterations": self.iterations, "seed": self.seed, "level": self.level,
        }


@dataclass(frozen=True)
class Assessment:
    """Measures, closed-form points, Monte Carlo intervals and the two gates."""

    n: int
    direct: pd.DataFrame
    quasi: QuasiMeasures
    points: dict[str, float]
    direct_interval: Interval
    benchmark_interval: Interval
    quasi_interval: Interval
    direct_gate: Verdict
    quasi_gate: Verdict
    settings: Settings
    recalls: dict[str, float] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """Both gates pass."""
        return self.direct_gate.passed and self.quasi_gate.passed

    def frame(self) -> pd.DataFrame:
        """One row per distribution: ``measure, point, mean, lower, upper, limit, passed``.

        Rows ``direct`` (equation 20), ``direct_benchmark`` (section 2.3.9.1; limit/passed
        empty) and ``quasi`` (equation 21 against ``tau``). This is what a dbt model returns.
        """
        rows = [
            ("direct", self.points["direct"], self.direct_interval, self.direct_gate),
            ("direct_benchmark", self.points["direct_benchmark"], self.benchmark_interval, None),
            ("quasi", self.points["quasi"], self.quasi_interval, self.quasi_gate),
        ]
        out = pd.DataFrame([
            {"measure": m, "point": p, "mean": i.mean, "lower": i.lower, "upper": i.upper,
             "limit": (np.nan if g is None else g.limit),
             "passed": (pd.NA if g is None else g.passed)}
            for m, p, i, g in rows
        ], columns=list(RESULT_COLUMNS))
        out["passed"] = out["passed"].astype("boolean")
        return out

    def as_dict(self) -> dict[str, object]:
        """JSON-ready summary (what the CLI prints)."""
        q = self.quasi
        return {
            "documents": self.n,
            "recall": self.recalls,
            "direct_types": [
                {"type": str(r.type), "s": int(r.s), "s_caught": int(r.s_caught),
                 "w": float(r.w), "all_or_nothing_recall": float(r.r)}
                for r in self.direct.itertuples(index=False)
            ],
            "quasi": {"r_q": q.r_q if q.present else None, "m": q.m, "n_q": q.n_q,
                      "s_q": q.s_q},
            "point": self.points,
            "intervals": {
                "direct": self.direct_interval.as_dict(),
                "direct_benchmark": self.benchmark_interval.as_dict(),
                "quasi": self.quasi_interval.as_dict(),
            },
            "verdicts": {
                "direct": self.direct_gate.as_dict(),
                "quasi": self.quasi_gate.as_dict(),
                "passed": self.passed,
            },
            "settings": self.settings.as_dict(),
        }


def assess(
    direct: pd.DataFrame,
    quasi: pd.DataFrame,
    n: int,
    settings: Settings | None = None,
    *,
    logger: Logger | None = None,
) -> Assessment:
    """Risk assessment from the aggregate tables (equations 11-22, section 2.3.9).

    Args:
        direct: ``type, s, s_caught`` per direct identifier type (:func:`direct_counts`).
        quasi: one row ``instances, caught, values, s_q`` (:func:`quasi_counts`).
        n: number of documents.
        settings: release context; defaults to a public release, ``h = 0.1``, ``tau = 0.05``.

    The seeded generator is split into independent streams for the data's direct distribution,
    the benchmark and the quasi distribution, so each is reproducible on its own.
    """
    st = settings or Settings()
    log = logger or get_logger()
    dm = direct_measures(direct, n)
    qm = quasi_measures(quasi, n)
    log.info(f"text risk: {n} documents, {len(dm)} direct types, quasi present={qm.present}")
    rng_direct, rng_bench, rng_quasi = np.random.default_rng(st.seed).spawn(3)
    a_mean = attempt_mean(st.attempt)
    w, r = dm["w"].to_numpy(), dm["r"].to_numpy()
    points = {
        "direct_leak_eq11": direct_leak_probability(w, r),
        "direct": direct_reid_probability(w, r, h=st.h, cutoff=st.direct_cutoff,
                                          attempt=a_mean),
        "direct_benchmark": direct_reid_probability(
            [BENCHMARK_W], [BENCHMARK_RECALL], h=st.h, cutoff=st.direct_cutoff, attempt=a_mean),
        "quasi_leak_eq12": (quasi_leak_probability(qm.n_q, qm.m, qm.r_q) if qm.present
                            else 0.0),
        "quasi": (quasi_reid_probability(qm.n_q, qm.m, qm.r_q, h=st.h, cutoff=st.quasi_cutoff,
                                         attempt=a_mean) if qm.present else 0.0),
    }
    kw = {"attempt": st.attempt, "iterations": st.iterations}
    d_int = interval(
        simulate_direct(dm, n, h=st.h, cutoff=st.direct_cutoff, rng=rng_direct, **kw), st.level
    )
    b_int = benchmark_direct(h=st.h, cutoff=st.direct_cutoff, rng=rng_bench, **kw)
    q_int = interval(
        simulate_quasi(qm, h=st.h, cutoff=st.quasi_cutoff, rng=rng_quasi, **kw), st.level
    )
    result = Assessment(
        n=n, direct=dm, quasi=qm, points=points, direct_interval=d_int,
        benchmark_interval=b_int, quasi_interval=q_int,
        direct_gate=direct_verdict(d_int, b_int), quasi_gate=quasi_verdict(q_int, st.tau),
        settings=st,
    )
    log.info(
        f"text risk: direct gate passed={result.direct_gate.passed},"
        f" quasi gate passed={result.quasi_gate.passed}"
    )
    return result


def recall_summary(outcomes: pd.DataFrame) -> dict[str, float]:
    """Baseline measures (Table 6 style): conventional micro, masking and all-or-nothing recall."""
    out: dict[str, float] = {}
    for kind in (None, "direct", "quasi"):
        suffix = "" if kind is None else f"_{kind}"
        out[f"micro{suffix}"] = micro_recall(outcomes, kind=kind)
        out[f"masking{suffix}"] = masking_recall(outcomes, kind=kind)
    out["all_or_nothing_direct"] = all_or_nothing_recall(outcomes, kind="direct")
    return {k: (None if v != v else float(v)) for k, v in out.items()}  # NaN -> None (JSON)


def assess_corpus(
    documents: pd.DataFrame,
    annotations: pd.DataFrame,
    detections: pd.DataFrame,
    settings: Settings | None = None,
    *,
    types: Mapping[str, str] | None = None,
    allow_unannotated: bool = False,
    logger: Logger | None = None,
) -> Assessment:
    """Validate, match, count and :func:`assess` the three input tables in pandas."""
    inputs = validate_inputs(
        documents, annotations, detections, types=types, allow_unannotated=allow_unannotated
    )
    outcomes = annotation_outcomes(inputs.documents, inputs.annotations, inputs.detections)
    result = assess(
        direct_counts(outcomes), quasi_counts(outcomes), inputs.n_documents, settings,
        logger=logger,
    )
    return replace(result, recalls=recall_summary(outcomes))


def assess_frame(
    direct: pd.DataFrame,
    quasi: pd.DataFrame,
    n: int,
    *,
    h: float = DEFAULT_H,
    tau: float = DEFAULT_TAU,
    attempt: tuple[float, float, float] | list[float] | None = None,
    iterations: int = DEFAULT_ITERATIONS,
    seed: int = 0,
    direct_cutoff: float = DIRECT_CUTOFF,
    quasi_cutoff: float = QUASI_CUTOFF,
    logger: Logger | None = None,
) -> pd.DataFrame:
    """:func:`assess` with plain settings (as read from a dbt model's config), returning
    :meth:`Assessment.frame` (``measure, point, mean, lower, upper, limit, passed``).

    ``attempt`` is ``[low, mode, high]`` of ``Pr(attempt)`` (equations 18-21) or None (public).
    """
    if attempt is not None and len(attempt) != 3:
        raise ConfigError(f"attempt must be [low, mode, high], got {list(attempt)}")
    settings = Settings(
        h=float(h), tau=float(tau), direct_cutoff=float(direct_cutoff),
        quasi_cutoff=float(quasi_cutoff),
        attempt=None if attempt is None else Triangular(*(float(x) for x in attempt)),
        iterations=int(iterations), seed=int(seed),
    )
    return assess(direct, quasi, int(n), settings, logger=logger).frame()
