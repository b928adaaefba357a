"""The suite's Jinja compile cache (``tests/integration/jinja_cache.py``) in every Python
process started with this folder on ``PYTHONPATH`` and ``DBT_DEID_TEST_JINJA_CACHE`` set, and in
the dbt processes among them (the ``dbt`` console script) the cache of dbt's parse of macro
files (``tests/integration/parse_cache.py``, the same folder).

For the dbt processes the fork server cannot serve: ``demo/build_demo.py`` (what ``make demo``
runs) starts each of its dbt invocations as a plain subprocess, and the suite's demo build
(``dbt_runner.build_demo``) puts this folder first on its ``PYTHONPATH``. What is cached is what
Jinja and dbt would compute from the same sources (see jinja_cache.py and parse_cache.py);
rendering is untouched.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path


def _install(name: str) -> None:
    spec = importlib.util.spec_from_file_location(
        f"_dbt_deid_test_{name}", Path(__file__).resolve().parent.parent / f"{name}.py")
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.install(os.environ["DBT_DEID_TEST_JINJA_CACHE"])


if os.environ.get("DBT_DEID_TEST_JINJA_CACHE"):
    _install("jinja_cache")
    # dbt itself only (build_demo.py, the script that starts it, never imports dbt)
    if sys.argv and Path(sys.argv[0]).name == "dbt":
        _install("parse_cache")
