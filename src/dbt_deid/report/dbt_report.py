"""The dbt way to write the release report: called by the Python model ``deid_release_report``.

Measures the release with :func:`dbt_deid.risk.dbt_frames.release_assessments`, writes one
self-contained HTML file (:func:`dbt_deid.report.html.write_release_report`) and returns a
one-row index frame (no quasi-identifier values).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from dbt_deid.progress import Logger, get_logger
from dbt_deid.report.html import write_release_report
from dbt_deid.risk.dbt_frames import breakdown_frames, release_assessments


def report_path(
    release: Mapping[str, Any], path: str | None = None, project_dir: str | None = None
) -> Path:
    """``path`` (or ``report.path`` of the release, or ``reports/<release name>.html``),
    relative paths resolved against ``project_dir`` (default: the working directory, which is
    the dbt project directory when dbt runs there)."""
    name = str(release.get("name", "release"))
    chosen = path or (release.get("report") or {}).get("path") or f"reports/{name}.html"
    out = Path(str(chosen))
    if not out.is_absolute():
        out = Path(project_dir or ".") / out
    return out.resolve()


def write_dbt_report(
    suppressed: pd.DataFrame,
    population: pd.DataFrame | None,
    areas: pd.DataFrame | None,
    release: Mapping[str, Any],
    *,
    path: str | None = None,
    project_dir: str | None = None,
    logger: Logger | None = None,
) -> pd.DataFrame:
    """Write the report of the release and return its index row."""
    log = logger or get_logger()
    name = str(release.get("name", "release"))
    assessments = release_assessments(suppressed, population, areas, release, logger=log)
    out = report_path(release, path or None, project_dir or None)
    written = write_release_report(
        assessments, out, title=f"Re-identification risk report: {name}",
        breakdowns=breakdown_frames(suppressed, release),
    )
    data = written.read_bytes()
    log.info(f"dbt_deid: deid_release_report: wrote {len(data)} bytes,"
             f" {len(assessments)} combination section(s)")
    return pd.DataFrame({
        "release": [name],
        "path": [str(written)],
        "bytes": pd.Series([len(data)], dtype="int64"),
        "sha256": [hashlib.sha256(data).hexdigest()],
        "sections": pd.Series([len(assessments)], dtype="int64"),
        "meets_tau": [all(bool(a.prosecutor.ok) for a in assessments)],
        "generated_at": [_dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")],
    })
