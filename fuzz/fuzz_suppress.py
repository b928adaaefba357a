"""Fuzz the suppression: N random cases through the core and the CLI, checked independently.

    python fuzz/fuzz_suppress.py [--cases 2000] [--seed 0] [--max-rows 24] [--show 3]
                                 [--algorithm combinations|complete|mask_cover]

Each case (``fuzz/suppress_cases.py``) is a small random table with missing cells, unicode,
quotes, delimiters and line breaks in values and names, columns named like internal columns,
overlapping combinations, weights and k. It runs through ``run_suppression`` (record mode and
the pattern table's suppression map) and ``python -m dbt_deid suppress`` (in process), and the
outputs are checked by ``tests/independent_check.py`` (class sizes with the fully suppressed
class, exact consistent sets, row counts, pass-through columns, missing vs suppressed) and
against the same rows shuffled. Prints a summary; exits 1 if any case found a violation, a
false refusal or a crash. The same seed gives the same cases.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script from anywhere: import fuzz.* and tests.*
    sys.path.insert(0, str(REPO))

from fuzz.suppress_cases import RandomChooser, check_case, make_case  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000, help="number of cases (2000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument("--max-rows", type=int, default=24, help="rows per table at most (24)")
    parser.add_argument("--show", type=int, default=3, help="failing cases to print (3)")
    parser.add_argument("--algorithm", choices=["combinations", "complete", "mask_cover"],
                        default=None, help="run every case with this algorithm (default: each"
                        " case's own draw, combinations or complete)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    totals = {"violations": 0, "false refusals": 0, "crashes": 0}
    failing = []
    refused = 0
    t0 = time.perf_counter()
    for i in range(args.cases):
        case = make_case(RandomChooser(rng), args.max_rows)
        if args.algorithm is not None:  # the same draws, another algorithm
            case.algorithm, case.complete = args.algorithm, args.algorithm == "complete"
        refused += len(case.rows) < case.k
        outcome = check_case(case)
        totals["violations"] += len(outcome.violations)
        totals["false refusals"] += len(outcome.false_refusals)
        totals["crashes"] += len(outcome.crashes)
        if not outcome.ok:
            failing.append((i, case, outcome))
    seconds = time.perf_counter() - t0
    print(f"fuzz_suppress: seed {args.seed}, {args.cases} cases ({refused} with fewer records"
          f" than k, refused as they must be), {seconds:.1f} s")
    for name, n in totals.items():
        print(f"  {name}: {n}")
    print(f"  failing cases: {len(failing)}")
    for i, case, outcome in failing[: args.show]:
        print(f"\ncase {i}: {case.describe()}")
        for line in outcome.violations + outcome.false_refusals + outcome.crashes:
            print(f"  {line}")
    return 1 if failing else 0


if __name__ == "__main__":
    raise SystemExit(main())
