"""dbt's logger for the core's progress messages inside a dbt run.

Python models on dbt-duckdb run in the dbt process, so ``AdapterLogger`` events reach the dbt log
and console; the glue (:mod:`dbt_deid.dbt_side.glue`) passes :func:`dbt_logger` to the core,
which knows only the :class:`dbt_deid.progress.Logger` protocol. Never pass quasi-identifier
values to these loggers: log counts only.
"""

from __future__ import annotations

from dbt_deid.progress import Logger, get_logger


def dbt_logger(name: str = "dbt_deid") -> Logger:
    """dbt's adapter logger when dbt is importable (inside a dbt run), else :func:`get_logger`."""
    try:
        from dbt.adapters.events.logging import AdapterLogger

        return AdapterLogger(name)
    except Exception:  # pragma: no cover - depends on the runtime
        return get_logger(name)
