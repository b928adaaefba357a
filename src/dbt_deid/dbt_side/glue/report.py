"""The dbt way to write the release report: called by the Python model ``deid_release_report``.

Measures the release with :func:`dbt_deid.dbt_side.glue.risk.release_assessments`, writes one
self-contained HTML file (:func:`dbt_deid.report.html.write_release_report`, imported
when a report is written: it imports matplotlib) and returns a
one-row index frame (no quasi-identifier values). :func:`deid_release_report` is the body of
the dbt Python model.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from dbt_deid.config import parse_release
from dbt_deid.dbt_side.dbt_logger import dbt_logger
from dbt_deid.dbt_side.glue.frames import to_pandas, to_pandas_for_codes
from dbt_deid.dbt_side.glue.risk import breakdown_frames, release_assessments
from dbt_deid.progress import Logger, get_logger

if TYPE_CHECKING:
    from dbt_deid.report.html import ReleaseStatus


def dbt_project_dir() -> Path:
    """The dbt project directory of the running invocation (``--project-dir``, else the working
    directory, where dbt then requires dbt_project.yml)."""
    try:
        from dbt.flags import get_flags

        chosen = getattr(get_flags(), "PROJECT_DIR", None)
    except ImportError:  # the core without dbt
        chosen = None
    return Path(chosen or ".").resolve()


def report_path(
    release: Mapping[str, Any], path: str | None = None, project_dir: str | None = None,
    *, refused: bool = False,
) -> Path:
    """``path`` (or ``report.path`` of the release, or ``reports/<release name>.html``),
    relative paths resolved against ``project_dir`` (default: the dbt project directory).
    A refused release's report goes next to it as ``<name>.refused.html``, so it never
    overwrites the report of the release that is published."""
    name = str(release.get("name", "release"))
    chosen = path or (release.get("report") or {}).get("path") or f"reports/{name}.html"
    out = Path(str(chosen))
    if not out.is_absolute():
        out = (Path(project_dir) if project_dir else dbt_project_dir()) / out
    if refused:
        out = out.with_name(f"{out.stem}.refused{out.suffix or '.html'}")
    return out.resolve()


def release_status(release: Mapping[str, Any], gates: pd.DataFrame) -> ReleaseStatus:
    """The report's status section from the release settings and deid_gate_results."""
    from dbt_deid.report.html import ReleaseStatus  # matplotlib only when a report is written

    cfg = parse_release(release)
    ola = (release.get("generalization") or {}).get("search") == "ola"
    released = pd.DataFrame([{
        "quasi-identifier": q,
        "source column": cfg.quasi_identifiers[q].source_column,
        "level": ("chosen by OLA (deid_ola_levels: level; search says optimal or heuristic)" if ola
                  else str(cfg.quasi_identifiers[q].level)),
    } for q in cfg.released_qis()])
    frame = gates.sort_values("gate_order") if "gate_order" in gates.columns else gates
    return ReleaseStatus(
        gates=frame[["gate", "passed", "message"]].reset_index(drop=True),
        released=released,
        dropped={"record id": [cfg.record_id or ""],
                 "direct identifiers": list(cfg.direct_identifiers),
                 "excluded": list(cfg.excluded)},
        pass_through=list(cfg.pass_through),
    )


#: deid_input_fingerprint's columns shown in the report, with their labels.
MANIFEST_FIELDS = {
    "settings_md5": "settings hash (md5 of the settings JSON)",
    "package_version": "package version",
    "input_relation": "input",
    "input_columns": "input columns fingerprinted",
    "input_rows": "input rows",
    "input_hash": "input fingerprint",
}


def manifest_fields(row: Mapping[str, Any]) -> dict[str, str]:
    """The report's "Computed from" rows from a deid_input_fingerprint row."""
    return {label: str(row[key]) for key, label in MANIFEST_FIELDS.items() if key in row}


def empty_report_index() -> pd.DataFrame:
    """The index columns of :func:`write_dbt_report`, no row and no file written: what ``dbt
    build --empty`` gives (nothing to measure; a real build stops earlier on an empty
    source)."""
    return pd.DataFrame({
        "release": pd.Series([], dtype="string"), "published": pd.Series([], dtype="boolean"),
        "path": pd.Series([], dtype="string"), "bytes": pd.Series([], dtype="int64"),
        "sha256": pd.Series([], dtype="string"), "sections": pd.Series([], dtype="int64"),
        "meets_tau": pd.Series([], dtype="boolean"),
        "generated_at": pd.Series([], dtype="string"),
    })


def write_dbt_report(
    suppressed: pd.DataFrame,
    population: pd.DataFrame | None,
    areas: pd.DataFrame | None,
    release: Mapping[str, Any],
    *,
    gates: pd.DataFrame | None = None,
    fingerprint: pd.DataFrame | None = None,
    comparison: pd.DataFrame | None = None,
    exact: pd.DataFrame | None = None,
    path: str | None = None,
    project_dir: str | None = None,
    logger: Logger | None = None,
) -> pd.DataFrame:
    """Write the report of the release and return its index row. ``gates`` is
    deid_gate_results: the report states every gate's verdict and whether the release is
    published; a refused release's report is written to ``<name>.refused.html``. ``exact`` is
    deid_exact_consistent (the exact check's distribution, computed once in the warehouse);
    without it the exact counts are computed here from the true values."""
    from dbt_deid.report.html import write_release_report  # imports matplotlib

    log = logger or get_logger()
    name = str(release.get("name", "release"))
    assessments = release_assessments(suppressed, population, areas, release, exact=exact,
                                      logger=log)
    status = release_status(release, gates) if gates is not None else None
    if status is not None and fingerprint is not None and len(fingerprint) == 1:
        fields = manifest_fields(fingerprint.iloc[0].to_dict())
        status = dataclasses.replace(status, manifest=fields)
    refused = status is not None and not status.passed
    out = report_path(release, path or None, project_dir or None, refused=refused)
    written = write_release_report(
        assessments, out, title=f"Re-identification risk report: {name}",
        breakdowns=breakdown_frames(suppressed, release), status=status, comparison=comparison,
    )
    data = written.read_bytes()
    verdict = ("REFUSED (nothing published)" if refused
               else "every gate passes" if status is not None else "gates not given")
    log.info(f"dbt_deid: deid_release_report: {verdict}; wrote {len(data)} bytes,"
             f" {len(assessments)} combination section(s) to {written}")
    return pd.DataFrame({
        "release": [name],
        "published": [None if status is None else not refused],
        "path": [str(written)],
        "bytes": pd.Series([len(data)], dtype="int64"),
        "sha256": [hashlib.sha256(data).hexdigest()],
        "sections": pd.Series([len(assessments)], dtype="int64"),
        "meets_tau": [all(bool(a.prosecutor.ok) for a in assessments)],
        "generated_at": [_dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")],
    })


def deid_release_report(
    release_json: str,
    suppressed_patterns: Any,
    population_patterns: Any,
    small_area_inputs: Any,
    gate_results: Any,
    input_fingerprint: Any,
    algorithm_comparison: Any,
    exact_consistent: Any,
    *,
    path: str | None = None,
    project_dir: str | None = None,
) -> pd.DataFrame:
    """The dbt Python model ``deid_release_report``: writes the release's self-contained HTML
    report and returns its index.

    Reads the suppressed patterns (released values and the true values at the released level,
    with their record counts: the GROUP BY runs in the warehouse, ``deid_suppressed_patterns``),
    the population patterns and the small-area inputs; measures every protected combination
    with the core (:func:`dbt_deid.dbt_side.glue.risk.release_assessments`: prosecutor risk and its
    exact
    variant, El Emam et al. 2011 (discharge PUMF) equations 2-3 when population information is
    configured, Zayatz/Pitman uniqueness, El Emam et al. 2009 (CJHP) diagnostics, El Emam et al.
    2010 small areas) and writes one HTML file to the configured ``path`` (config
    ``report_path``; default ``reports/<release name>.html`` relative to ``project_dir``, config
    ``report_project_dir``, else the dbt project directory). The report opens with the release
    status from ``gate_results`` (``deid_gate_results``): every gate's verdict and whether the
    release is published; a refused release's report is written to ``<name>.refused.html`` and
    never overwrites the published release's. It shows the settings hash and the input
    fingerprint it was computed from (``input_fingerprint``, ``deid_input_fingerprint``), as the
    release manifest in ``deid_release_history`` records them, and ends with the comparison of
    the suppression algorithms (``algorithm_comparison``, ``deid_algorithm_comparison``; read
    after that model is built, so the two pattern-table models never hold their frames in
    memory at the same time). The exact variant's figures come from ``exact_consistent``
    (``deid_exact_consistent``: the distribution of consistent-set sizes the warehouse computed
    for the risk summary, so the build counts them once; its totals are checked against the
    released patterns). The returned frame has one row:
    release, published, path, bytes, sha256, sections (:func:`write_dbt_report`). An empty
    pattern table (only under ``dbt build --empty``: a real build stops upstream) writes no
    file and returns the empty index.
    """
    release = json.loads(release_json)
    # Its text columns stay in their Arrow buffers until each combination's collapsed table
    # is built (dbt_deid.dbt_side.glue.risk.combination_patterns).
    suppressed = to_pandas_for_codes(suppressed_patterns)
    if len(suppressed) == 0:
        return empty_report_index()
    return write_dbt_report(
        suppressed, to_pandas(population_patterns), to_pandas(small_area_inputs), release,
        gates=to_pandas(gate_results), fingerprint=to_pandas(input_fingerprint),
        comparison=to_pandas(algorithm_comparison),
        exact=to_pandas(exact_consistent), path=path,
        project_dir=project_dir, logger=dbt_logger(),
    )
