"""Progress logging: through dbt's logger inside dbt, the standard logger elsewhere.

Python models on dbt-duckdb run in the dbt process, so ``AdapterLogger`` events reach the dbt log
and console; the dbt entry points (:mod:`dbt_deid.dbt_entry`) pass :func:`dbt_logger` to the core.
The core defaults to :func:`get_logger` (standard ``logging``). Never pass quasi-identifier values
to these loggers: log counts only.
"""

from __future__ import annotations

import logging
from typing import Protocol


class Logger(Protocol):
    def info(self, msg: str) -> None: ...


def get_logger(name: str = "dbt_deid") -> Logger:
    """The standard-library logger used by the core outside dbt."""
    return logging.getLogger(name)


def dbt_logger(name: str = "dbt_deid") -> Logger:
    """dbt's adapter logger when dbt is importable (inside a dbt run), else :func:`get_logger`."""
    try:
        from dbt.adapters.events.logging import AdapterLogger

        return AdapterLogger(name)
    except Exception:  # pragma: no cover - depends on the runtime
        return get_logger(name)
