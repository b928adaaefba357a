"""Errors raised by the dbt_deid core.

Every error names the setting (or the model, column and value) that caused it, so a dbt run or
a CLI call fails with one line a user can act on.
"""


class DeidError(Exception):
    """Base class of every error the core raises on bad configuration or data."""


class ConfigError(DeidError, ValueError):
    """A release setting is invalid (named in the message)."""


class DataError(DeidError, ValueError):
    """The data cannot be processed as configured (e.g. fewer records than k)."""
