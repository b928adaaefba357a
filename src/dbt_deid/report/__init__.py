"""The self-contained HTML release report (aggregate figures only)."""

from dbt_deid.report.html import (
    render_release_report,
    render_report,
    write_release_report,
    write_report,
)

__all__ = ["render_release_report", "render_report", "write_release_report", "write_report"]
