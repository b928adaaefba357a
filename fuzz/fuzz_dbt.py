"""Fuzz the dbt path: N random releases (fuzz/dbt_cases.py) built with `dbt build` on the
integration project, each checked independently. Slow (tens of seconds a case).

    python fuzz/fuzz_dbt.py [--cases 20] [--seed 0]

Prints one line per case (published / refused by a gate, problems) and a summary; exits 1 if
any case broke the guarantee, published a refused release or crashed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from fuzz.dbt_cases import check_run, make_release  # noqa: E402
from tests.integration.dbt_runner import (  # noqa: E402
    INTEGRATION,
    build_release,
    project_vars,
    run_dbt,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="fuzz_dbt_"))
    base = run_dbt(INTEGRATION, ["build", "--exclude", "package:dbt_deid"], tmp / "base")
    if not base.ok:
        print(base.output[-3000:])
        return 1
    bad = published = refused = 0
    for i in range(args.cases):
        seed = args.seed + i
        release = make_release(seed)
        case = tmp / f"case{seed}"
        case.mkdir()
        run = build_release(base.database, case, {**project_vars(INTEGRATION),
                                                  "deid_release": release})
        problems = check_run(run, release)
        outcome = "published" if run.ok else "refused"
        published += run.ok
        refused += not run.ok
        bad += bool(problems)
        print(f"case {seed}: {outcome}; {'; '.join(problems) or 'ok'}", flush=True)
    print(f"{args.cases} cases: {published} published, {refused} refused by a gate,"
          f" {bad} with problems")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
