"""The suite's Jinja compile cache (``tests/integration/jinja_cache.py``) in every Python
process started with this folder on ``PYTHONPATH`` and ``DBT_DEID_TEST_JINJA_CACHE`` set.

For the dbt processes the fork server cannot serve: ``demo/build_demo.py`` (what ``make demo``
runs) starts each of its dbt invocations as a plain subprocess, and the suite's demo build
(``dbt_runner.build_demo``) puts this folder first on its ``PYTHONPATH``. What is cached is what
Jinja would compute from the same sources (see jinja_cache.py); rendering is untouched.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

if os.environ.get("DBT_DEID_TEST_JINJA_CACHE"):
    _spec = importlib.util.spec_from_file_location(
        "_dbt_deid_test_jinja_cache", Path(__file__).resolve().parent.parent / "jinja_cache.py")
    if _spec is not None and _spec.loader is not None:
        _module = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(_module)
        _module.install(os.environ["DBT_DEID_TEST_JINJA_CACHE"])
