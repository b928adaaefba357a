"""Progress logging: the :class:`Logger` protocol the core's long steps log to.

The core defaults to :func:`get_logger` (standard ``logging``); inside dbt the glue passes dbt's
logger instead (:func:`dbt_deid.dbt_side.dbt_logger.dbt_logger`: the core imports no dbt).
Never pass quasi-identifier values to these loggers: log counts only.
"""

from __future__ import annotations

import logging
from typing import Protocol


class Logger(Protocol):
    def info(self, msg: str) -> None: ...


def get_logger(name: str = "dbt_deid") -> Logger:
    """The standard-library logger used by the core outside dbt."""
    return logging.getLogger(name)

