"""Fuzz the refresh: N random release lines, every published version checked independently.

    python fuzz/fuzz_refresh.py [--cases 500] [--seed 0] [--max-rows 16] [--show 3]

Each case (``fuzz/refresh_cases.py``) publishes a small random table and refreshes it one to
three times with records added, deleted and changed; ``tests/combined_view_check.py`` checks
each version alone, the combined view of all versions and the changed records linked across
versions. Prints a summary (refused refreshes are counted: refusing is allowed, publishing an
unsafe version is not); exits 1 on a violation or a crash. The same seed gives the same cases.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script from anywhere: import fuzz.* and tests.*
    sys.path.insert(0, str(REPO))

from fuzz.refresh_cases import RandomChooser, check_line, make_line_case  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=500, help="number of lines (500)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument("--max-rows", type=int, default=16, help="day-1 rows at most (16)")
    parser.add_argument("--show", type=int, default=3, help="failing cases to print (3)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    failing, refused, crashes, refreshes = [], 0, 0, 0
    t0 = time.perf_counter()
    for i in range(args.cases):
        case = make_line_case(RandomChooser(rng), args.max_rows)
        try:
            problems, n_refused = check_line(case)
        except Exception:  # noqa: BLE001 - a crash is a finding, reported with the case
            problems, n_refused = [traceback.format_exc()], 0
            crashes += 1
        refused += n_refused
        refreshes += len(case.tables) - 1
        if problems:
            failing.append((i, case, problems))
    print(f"fuzz_refresh: seed {args.seed}, {args.cases} lines, {refreshes} refreshes,"
          f" {refused} refused,"
          f" {len(failing)} failing ({crashes} crashes), {time.perf_counter() - t0:.1f} s")
    for i, case, problems in failing[: args.show]:
        print(f"\ncase {i}: {case.describe()}")
        for line in problems:
            print(f"  {line}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
