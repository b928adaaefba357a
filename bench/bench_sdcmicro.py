"""Benchmark on sdcMicro's ``testdata``: suppressed cells and exposed records, not a test.

sdcMicro's ``testdata`` (4,580 household records; ``data/testdata.RData`` in github.com/sdcTools/
sdcMicro) with the seven categorical key variables of sdcMicro's own ``localSuppression``
example (``R/localSuppression.R``: urbrur, roof, walls, water, electcon, relat, sex) as one
combination, at k = 3 and k = 5. For each of

* ``combinations``: El Emam et al. 2011's combinations algorithm (the package default and the
  paper's reference, :mod:`dbt_deid.suppression`);
* ``mask_cover``: the greedy cover over suppression masks (:mod:`dbt_deid.mask_cover`);
* ``k wildcards``: a construction, not an algorithm: k records fully suppressed and nothing
  else. It passes the exact check alone and fails the own-category gate: why the exact count is
  not enough to judge a suppression (docs/suppression-exact.md);
* ``sdcMicro``: the figures sdcMicro 5.8.1's ``localSuppression`` published for the same input
  (constants below, with their source; R is not run here),

it prints the suppressed cells, the ratio to sdcMicro's, the records whose true values are
consistent with fewer than k released records (the exact check, :mod:`dbt_deid.verify`), the
smallest own-category class (the ``k_anonymity`` gate) and the core's CPU seconds.

    .venv/bin/python bench/bench_sdcmicro.py --testdata /path/to/testdata.csv
    DEID_SDCMICRO_TESTDATA=/path/to/testdata.RData .venv/bin/python bench/bench_sdcmicro.py

The data is never in the repository. A ``.csv`` (written from the R data frame, e.g. with the
PyPI package ``rdata``: ``rdata.conversion.convert(rdata.parser.parse_file(path))["testdata"]
.to_csv(...)``) is read as is; an ``.RData``/``.rda`` file is converted on the fly when
``rdata`` is installed. Without a path the script exits with status 2 and says how to get it.

Target (issue 36): cells at most 1.5x sdcMicro's with 0 records exposed, at k = 3 and k = 5.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from dbt_deid.patterns import SUPPRESSED, PatternTable
from dbt_deid.suppression import run_suppression
from dbt_deid.verify import check_coded

ENV = "DEID_SDCMICRO_TESTDATA"
KEYS = ["urbrur", "roof", "walls", "water", "electcon", "relat", "sex"]
"""sdcMicro's localSuppression example's key variables (R/localSuppression.R, `kv`)."""
RECORDS = 4580
SDCMICRO_CELLS = {3: 293, 5: 500}
"""sdcMicro 5.8.1 localSuppression(k) on testdata with KEYS, suppressed cells (issue 36,
measured in R by the issue's author, 2026-11; sdcMicro counts NA as matching anything)."""
SDCMICRO_EXPOSED = {3: 113}
"""Records consistent with fewer than k released records in sdcMicro's k = 3 output (issue 36,
the exact check); not published for k = 5."""
TARGET_RATIO = 1.5


def _fail(message: str) -> None:
    print(f"bench_sdcmicro: {message}", file=sys.stderr)
    raise SystemExit(2)


class _Quiet:
    def info(self, msg: str) -> None:  # the core's per-pass lines
        pass


def load_testdata(path: str | None) -> pd.DataFrame:
    """The records of ``testdata`` (KEYS as text), from a CSV or an RData file."""
    if not path:
        _fail(f"no testdata: pass --testdata PATH or set {ENV} to sdcMicro's"
                 " testdata (data/testdata.RData of github.com/sdcTools/sdcMicro, or a CSV"
                 " written from it with the PyPI package rdata); it is never in the repository")
    file = Path(path)
    if not file.is_file():
        _fail(f"testdata file {str(file)!r} does not exist")
    if file.suffix.lower() in (".rdata", ".rda"):
        try:
            import rdata
        except ImportError:
            _fail("reading an .RData file needs the PyPI package rdata"
                     " (pip install rdata), or pass a CSV written from it")
        frame = rdata.conversion.convert(rdata.parser.parse_file(file))["testdata"]
    else:
        frame = pd.read_csv(file)
    missing = [c for c in KEYS if c not in frame.columns]
    if missing:
        _fail(f"{str(file)!r} lacks the key variable(s) {missing}")
    if len(frame) != RECORDS:
        print(f"bench_sdcmicro: warning: {len(frame)} records, sdcMicro's testdata has"
              f" {RECORDS}", file=sys.stderr)
    out = pd.DataFrame({c: frame[c].astype(str) for c in KEYS})
    return out


def checks(truth: np.ndarray, pub: np.ndarray, counts: np.ndarray, cards: list[int],
           k: int) -> tuple[int, int, int]:
    """(cells suppressed, records below k under the exact check, smallest own-category
    class) of a release on one combination of every column."""
    chk = check_coded(truth, pub, cards, KEYS, [KEYS], k, counts)[0]
    cells = int(((pub == SUPPRESSED).sum(axis=1) * counts).sum())
    return cells, chk.records_below_k_exact, chk.smallest_class


def k_wildcards(table: PatternTable, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Truth, published codes and counts when k records (the first in label order) are fully
    suppressed and every other cell is released."""
    truth = np.repeat(table.codes.astype(np.int64), table.counts, axis=0)
    pub = truth.copy()
    pub[:k] = SUPPRESSED
    return truth, pub, np.ones(len(truth), dtype=np.int64)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--testdata", default=os.environ.get(ENV),
                    help=f"testdata as .csv or .RData (default: ${ENV})")
    args = ap.parse_args(argv)
    records = load_testdata(args.testdata)
    patterns = records.value_counts().reset_index(name="n")
    print(f"sdcMicro testdata: {len(records)} records, {len(patterns)} patterns, keys {KEYS}"
          " as one combination")
    print(f"{'k':>2} {'algorithm':<13} {'cells':>6} {'x sdcMicro':>10} {'exposed':>8}"
          f" {'own-cat min':>11} {'CPU s':>7}")
    failed = False
    per_column: dict[tuple[int, str], tuple[int, list[int]]] = {}
    for k in (3, 5):
        rows = []
        for algorithm in ("combinations", "mask_cover"):
            t = time.process_time()
            result = run_suppression(patterns, k, [KEYS], algorithm=algorithm, logger=_Quiet())
            cpu = time.process_time() - t
            tb = result.table
            cards = [len(x) for x in tb.labels]
            cells, exposed, own = checks(result.true_codes(), tb.codes.astype(np.int64),
                                         tb.counts.astype(np.int64), cards, k)
            rows.append((algorithm, cells, exposed, own, f"{cpu:7.3f}"))
            sup = tb.codes == SUPPRESSED
            per_column[(k, algorithm)] = (
                int((sup.any(axis=1) * tb.counts).sum()),
                [int((sup[:, j] * tb.counts).sum()) for j in range(len(KEYS))])
            if algorithm == "mask_cover":
                failed |= cells > TARGET_RATIO * SDCMICRO_CELLS[k] or exposed > 0 or own < k
        table = PatternTable.from_frame(patterns, KEYS, "n")
        truth, pub, counts = k_wildcards(table, k)
        cells, exposed, own = checks(truth, pub, counts, [len(x) for x in table.labels], k)
        rows.append(("k wildcards", cells, exposed, own, f"{'-':>7}"))
        exposed_sdc = SDCMICRO_EXPOSED.get(k)
        rows.append(("sdcMicro", SDCMICRO_CELLS[k],
                     exposed_sdc if exposed_sdc is not None else "n/p", "n/p", f"{'-':>7}"))
        for name, cells, exposed, own, cpu in rows:
            ratio = cells / SDCMICRO_CELLS[k]
            print(f"{k:>2} {name:<13} {cells:>6} {ratio:>10.2f} {exposed!s:>8} {own!s:>11} {cpu}")
    print("exposed: records consistent with fewer than k released records (exact check);"
          " own-cat min: smallest class with a suppressed cell as its own category (the"
          " k_anonymity gate needs >= k); n/p: not published")
    print("\nwhat the choice changes: records with a suppressed cell, cells per key variable")
    print(f"{'k':>2} {'algorithm':<13} {'records':>7} " + " ".join(f"{c:>8}" for c in KEYS))
    for (k, algorithm), (n_rec, cols) in per_column.items():
        print(f"{k:>2} {algorithm:<13} {n_rec:>7} " + " ".join(f"{n:>8}" for n in cols))
    verdict = "MISS" if failed else "PASS"
    print(f"{verdict}: mask_cover <= {TARGET_RATIO}x sdcMicro's cells, 0 exposed and"
          " own-category classes >= k, at k = 3 and 5")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
