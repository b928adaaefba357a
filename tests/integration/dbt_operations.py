"""Run several dbt invocations in one Python process on one parse (``run_dbt_batch``).

Usage: ``python dbt_operations.py <json>``, where the JSON holds ``common`` (arguments added to
every invocation, ``--project-dir`` among them), ``marker`` and ``invocations`` (a list of dbt
argument lists). The project is parsed once (``dbt parse`` with the common arguments, from a saved
partial parse when there is one), then every invocation runs on that manifest
(``dbtRunner(manifest=...)``): dbt is imported once and nothing is parsed again. Each
invocation's output is followed by the line ``<marker> <index> <0|1>`` (1 when it failed), the
parse's by ``<marker> parse <0|1>``.
"""

from __future__ import annotations

import json
import os
import sys

# dbt imports every top-level module named dbt_* on sys.path at each invocation (its plugin
# discovery, dbt/plugins/manager.py); this script's folder, first on the path, holds the test
# helpers dbt_runner.py and dbt_fork.py, which are no plugins: take it off the path.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

from dbt.cli.main import dbtRunner  # noqa: E402


def main(spec: dict) -> int:
    """Parse once, run every invocation on the manifest; 2 when the parse fails."""
    common, marker = list(spec["common"]), spec["marker"]
    parsed = dbtRunner().invoke(["parse", *common])
    print(f"{marker} parse {0 if parsed.success else 1}", flush=True)
    if not parsed.success:
        return 2
    runner = dbtRunner(manifest=parsed.result)
    for i, args in enumerate(spec["invocations"]):
        result = runner.invoke([*args, *common])
        sys.stdout.flush()
        print(f"{marker} {i} {0 if result.success else 1}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(json.loads(sys.argv[1])))
