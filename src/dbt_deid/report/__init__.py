"""The self-contained HTML release report (aggregate figures only)."""

from dbt_deid.report.html import render_report, write_report

__all__ = ["render_report", "write_report"]
