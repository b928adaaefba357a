"""Re-exporting names lazily (PEP 562), for the modules dbt Python models import.

:mod:`dbt_deid.dbt_side.entry` and :mod:`dbt_deid.tools.demo_entry` each map a name to the
module that defines it; a name is imported from its home on first use, so a model that needs one
function does not pay for importing every release kind. The homes are imported dynamically, so
this core module has no import edge to them.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


def lazy_exports(
    module: str, homes: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``module``: each name of ``homes`` resolves to the object
    its home module defines (and is then stored in ``module``, so later lookups skip this)."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[module], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[module]), *homes})

    return __getattr__, __dir__
