"""Accuracy of the population class-size estimators on simulated populations: not a test, no time.

The truncated-Poisson estimator (El Emam and Dankar 2008, as cited by El Emam et al. 2012;
:mod:`dbt_deid.truncated_poisson`) against the scaling estimate f_j / alpha (El Emam et al.
2011, E(f_j) = alpha F_j), on populations whose class sizes are known: class means drawn from a
gamma distribution (shape 0.3: heavy tail, many small classes; shape 1.0: exponential), sizes
Poisson around them, and a Bernoulli sample of fraction alpha. Per setting: the mean absolute
error of F_j over the classes seen, the mean |log(estimate / F_j)|, and for the journalist risk
at k = 20 (tau 0.05) the share of sample records in classes with F_j < k, as it is and as each
estimator has it, and the share of sample records at risk that the estimator misses.

    .venv/bin/python bench/bench_population_estimation.py [--classes 20000] [--seed 34]
"""

from __future__ import annotations

import argparse

import numpy as np

from dbt_deid.truncated_poisson import estimate_population_sizes, k_for_population_threshold


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--classes", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--k", type=int, default=20)
    args = ap.parse_args()
    k = args.k
    print(f"k from F_j = {k}: alpha, scaling k, truncated-Poisson k")
    for alpha in (0.05, 0.1, 0.1614, 0.2, 0.5):
        print(f"  {alpha:<7} {k_for_population_threshold(k, alpha):>3}"
              f" {k_for_population_threshold(k, alpha, 'truncated_poisson'):>3}")
    print()
    print("| shape | alpha | estimator | MAE F_j | mean abs log | share at risk (true) |"
          " share at risk (estimated) | missed at-risk share |")
    print("|---|---|---|---|---|---|---|---|")
    for shape in (0.3, 1.0):
        for alpha in (0.05, 0.1, 0.2, 0.5):
            rng = np.random.default_rng(args.seed)
            big_f = rng.poisson(rng.gamma(shape, 30.0 / shape, args.classes))
            big_f = big_f[big_f > 0]
            f = rng.binomial(big_f, alpha)
            seen = f > 0
            big_f, f = big_f[seen], f[seen]
            truth = big_f < k
            true_share = f[truth].sum() / f.sum()
            for estimator in ("scaling", "truncated_poisson"):
                est = estimate_population_sizes(f, alpha, estimator)
                flag = est < k
                print(f"| {shape} | {alpha} | {estimator} | {np.abs(est - big_f).mean():.2f} |"
                      f" {np.abs(np.log(est / big_f)).mean():.3f} | {100 * true_share:.2f}% |"
                      f" {100 * f[flag].sum() / f.sum():.2f}% |"
                      f" {100 * f[truth & ~flag].sum() / f.sum():.2f}% |")


if __name__ == "__main__":
    main()
