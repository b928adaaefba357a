"""``dbt`` with the package's on-run-start hook ``prepare_release_tables`` taken out (tests only).

Usage: ``python dbt_without_release_tables_hook.py <dbt arguments>``, as the ``dbt`` console
script. The hook creates the release history, the per-record store and the line locks before any
node of a ``dbt run``/``build``/``retry`` of a release, so a publish model can no longer run
without them through dbt; this runs an invocation as a project of before the hook would (or as
one whose tables were dropped after the hook ran), so a test can check that the publish step
still refuses without the line lock (``tests/integration/test_several_releases_dbt.py``).
"""

from __future__ import annotations

import os
import sys

# as dbt_operations.py: this folder holds test helpers named dbt_*, which dbt's plugin
# discovery would import
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

from dbt.cli.main import cli  # noqa: E402
from dbt.task.run import RunTask  # noqa: E402

_hooks = RunTask.get_hooks_by_type


def _without_release_tables_hook(self, hook_type):  # noqa: ANN001, ANN202
    return [h for h in _hooks(self, hook_type) if "prepare_release_tables" not in h.raw_code]


RunTask.get_hooks_by_type = _without_release_tables_hook

if __name__ == "__main__":
    sys.exit(cli())
