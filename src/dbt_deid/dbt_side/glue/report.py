"""The dbt way to write the release report: called by the Python model ``deid_release_report``.

Measures the release with :func:`dbt_deid.dbt_side.glue.risk.release_assessments`, writes one
self-contained HTML file (:func:`dbt_deid.report.html.write_release_report`, imported
when a report is written: it imports matplotlib when it draws a figure) and returns a
one-row index frame (no quasi-identifier values). :func:`deid_release_report` is the body of
the dbt Python model.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from dbt_deid.config import parse_release
from dbt_deid.dbt_side.dbt_logger import dbt_logger
from dbt_deid.dbt_side.glue.advice import advice_rows
from dbt_deid.dbt_side.glue.frames import to_pandas, to_pandas_for_codes
from dbt_deid.dbt_side.glue.report_inputs import report_input_parts
from dbt_deid.dbt_side.glue.risk import (
    breakdown_frames,
    exact_distribution,
    release_assessments,
)
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


def _advice_rows(advice: pd.DataFrame | None, kind: str) -> pd.DataFrame:
    if advice is None or not len(advice) or "kind" not in advice.columns:
        return pd.DataFrame(columns=["kind", "item", "subject", "figure", "limit_value",
                                     "message"])
    return advice[advice["kind"].astype(str) == kind].sort_values("item")


def _pct(v: Any) -> str:
    return "-" if v is None or pd.isna(v) else f"{100.0 * float(v):.1f}%"


def release_limits(cfg: Any, advice: pd.DataFrame | None, assessments: Sequence[Any]
                   ) -> pd.DataFrame:
    """The achieved figure next to each limit: k against the smallest class (and the exact
    consistent set) over the verified combinations, tau against the maximum prosecutor risk
    (El Emam et al. 2011, equations 1-3), MaxSup against the share of records with a suppressed
    QI and each column cap against its column's suppressed cells (the advice of
    deid_suppression_map)."""
    rows: list[dict[str, Any]] = []
    if assessments:
        smallest = min(int(a.prosecutor.stats.smallest_class) for a in assessments)
        rows.append({"limit": "k: smallest class, every protected combination",
                     "setting": f"k = {cfg.k}", "achieved": f"{smallest:,}",
                     "within": smallest >= cfg.k})
        exact = [a.prosecutor.exact.smallest_class for a in assessments
                 if a.prosecutor.exact is not None]
        if exact:
            rows.append({"limit": "k: smallest exact consistent set",
                         "setting": f"k = {cfg.k}", "achieved": f"{int(min(exact)):,}",
                         "within": int(min(exact)) >= cfg.k})
        risk = max(float(a.prosecutor.stats.max_risk) for a in assessments)
        rows.append({"limit": "tau: maximum prosecutor risk", "setting": f"tau = {cfg.tau:.4g}",
                     "achieved": f"{risk:.4g}", "within": risk <= cfg.tau + 1e-12})
    status = _advice_rows(advice, "status")
    if len(status):
        share = status["figure"].iloc[0]
        rows.append({"limit": "MaxSup: records with a suppressed quasi-identifier",
                     "setting": _pct(cfg.max_suppression), "achieved": _pct(share),
                     "within": None if pd.isna(share) else float(share) <= cfg.max_suppression})
    for rec in _advice_rows(advice, "column").itertuples(index=False):
        if rec.limit_value is None or pd.isna(rec.limit_value):
            continue
        rows.append({"limit": f"column cap: {rec.subject}", "setting": _pct(rec.limit_value),
                     "achieved": _pct(rec.figure),
                     "within": float(rec.figure) <= float(rec.limit_value)})
    return pd.DataFrame(rows, columns=["limit", "setting", "achieved", "within"])


def combined_releases_row(versions: pd.DataFrame | None, k: int) -> pd.DataFrame:
    """The combined_releases gate (El Emam et al. 2011's guarantee over everything a recipient
    holds; macros/gates/combined_releases.sql) as the report shows it: the publish step decides
    it (it is not in the gate table), so the row gives the history's figures (the
    release_versions part of deid_report_inputs) and, when the latest attempt was refused by
    it, that refusal."""
    published = (versions[versions["status"].astype(str) == "published"]
                 if versions is not None and len(versions) else pd.DataFrame())
    message = ("no earlier published version: nothing to combine yet (the publish step checks"
               " the combined view of every version it publishes)")
    passed: bool | None = None
    if len(published):
        last = published.sort_values("release_version").iloc[-1]
        shared = last.get("records_shared")
        smallest = last.get("combined_min_consistent")
        message = (f"{len(published)} published version(s) so far; the publish step checks this"
                   " release combined with all of them")
        if shared is not None and not pd.isna(shared):
            message += (f"; at version {int(last['release_version'])}: {int(shared):,} records"
                        " shared with earlier versions")
            if smallest is not None and not pd.isna(smallest):
                message += (f", smallest consistent set in the combined view {int(smallest):,}"
                            f" (k = {k})")
    if versions is not None and len(versions):
        latest = versions.sort_values("recorded_at").iloc[-1]
        failed = str(latest.get("gates_failed") or "")
        if str(latest.get("status")) == "refused" and "combined_releases" in failed:
            passed = False
            message = (f"the last publish attempt ({latest.get('recorded_at')}) was refused by"
                       " combined_releases; " + message)
    return pd.DataFrame([{"gate": "combined_releases", "passed": passed, "message": message}])


def release_facts(cfg: Any, assessments: Sequence[Any], versions: pd.DataFrame | None,
                  fingerprint: Mapping[str, str] | None, refused: bool) -> dict[str, str]:
    """The status block's facts: records, version, time and package version."""
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    records = int(assessments[0].prosecutor.n_records) if assessments else None
    facts = {"Release": str(cfg.name)}
    if records is not None:
        facts["Rows"] = (f"{records:,} (none published: refused)" if refused
                         else f"{records:,} published by this build")
    published = (versions[versions["status"].astype(str) == "published"]
                 if versions is not None and len(versions) else pd.DataFrame())
    if len(published):
        last = published.sort_values("release_version").iloc[-1]
        facts["Version"] = (f"{int(last['release_version']) + 1} when published (version"
                            f" {int(last['release_version'])} was published"
                            f" {last['recorded_at']}, {int(last['published_rows']):,} rows)")
    else:
        facts["Version"] = "1 when published (no earlier version)"
    facts["Report generated"] = now
    if fingerprint and fingerprint.get("package version"):
        facts["dbt_deid version"] = fingerprint["package version"]
    return facts


def ola_level(search_nodes: pd.DataFrame | None, qi: str) -> str:
    """The report's level of ``qi`` when OLA chose it: the released node's level in
    ``search_nodes`` (deid_report_inputs' search_nodes) with the search that chose it, or
    where to read it."""
    chosen = (search_nodes[search_nodes["chosen"].fillna(False).astype(bool)]
              if search_nodes is not None and len(search_nodes) and qi in search_nodes.columns
              else None)
    if chosen is None or len(chosen) != 1:
        return "chosen by OLA (deid_ola_levels: level; search says optimal or heuristic)"
    row = chosen.iloc[0]
    return f"{int(row[qi])} (chosen by the {row['search']} OLA search)"


def release_status(
    release: Mapping[str, Any], gates: pd.DataFrame, *, advice: pd.DataFrame | None = None,
    versions: pd.DataFrame | None = None, assessments: Sequence[Any] = (),
    fingerprint: Mapping[str, str] | None = None, search_nodes: pd.DataFrame | None = None,
) -> ReleaseStatus:
    """The report's status section from the release settings, deid_gate_results, the advice
    (the advice rows of deid_suppression_map: achieved figures, level meanings, what to
    change) and the history
    (deid_report_inputs' release_versions: version, combined_releases). With the OLA search,
    each QI's level is the released node's of ``search_nodes`` (deid_report_inputs'
    search_nodes), when one passes."""
    from dbt_deid.report.html import ReleaseStatus  # matplotlib only when a report is written

    cfg = parse_release(release)
    ola = (release.get("generalization") or {}).get("search") == "ola"
    meanings = {str(r.subject): str(r.message)
                for r in _advice_rows(advice, "level").itertuples(index=False)}
    released = pd.DataFrame([{
        "quasi-identifier": q,
        "source column": cfg.quasi_identifiers[q].source_column,
        "level": (ola_level(search_nodes, q) if ola
                  else str(cfg.quasi_identifiers[q].level)),
        "meaning": "" if ola else meanings.get(q, ""),
    } for q in cfg.released_qis()])
    frame = gates.sort_values("gate_order") if "gate_order" in gates.columns else gates
    gate_frame = frame[["gate", "passed", "message"]].reset_index(drop=True)
    refused = not (len(gate_frame) > 0 and bool(gate_frame["passed"].astype(bool).all()))
    lines = tuple(str(m) for m in _advice_rows(advice, "line")["message"])
    return ReleaseStatus(
        gates=gate_frame,
        released=released,
        dropped={"record id": [cfg.record_id or ""],
                 "direct identifiers": list(cfg.direct_identifiers),
                 "excluded": list(cfg.excluded)},
        pass_through=list(cfg.pass_through),
        limits=release_limits(cfg, advice, assessments),
        advice=lines,
        facts=release_facts(cfg, assessments, versions, fingerprint, refused),
        publish_gates=combined_releases_row(versions, cfg.k),
    )


#: The input fingerprint's columns shown in the report, with their labels (the gate table's,
#: :func:`gate_table_manifest`; the table deid_input_fingerprint's before 0.3.0).
MANIFEST_FIELDS = {
    "settings_md5": "settings hash (md5 of the settings JSON)",
    "package_version": "package version",
    "input_relation": "input",
    "input_columns": "input columns fingerprinted",
    "input_rows": "input rows",
    "input_hash": "input fingerprint",
}


def manifest_fields(row: Mapping[str, Any]) -> dict[str, str]:
    """The report's "Computed from" rows from a row of :data:`MANIFEST_FIELDS`' columns."""
    return {label: str(row[key]) for key, label in MANIFEST_FIELDS.items() if key in row}


def gate_table_manifest(gates: pd.DataFrame | None) -> pd.DataFrame | None:
    """What the report shows of the release input, from the gate table (``deid_gate_results``,
    which fingerprints the input snapshot once per build; issue 33, item 3: the node
    ``deid_input_fingerprint`` before 0.3.0, folded there): one row of
    :data:`MANIFEST_FIELDS`' columns, ``input_hash`` being the snapshot's fingerprint
    (``snapshot_hash``; the gate table's own ``input_hash`` is the source's, taken by the gate
    input_unchanged, which refuses when the two differ). None when the table has no verdict or
    no such column (built by an earlier dbt_deid)."""
    if gates is None or len(gates) == 0 or "snapshot_hash" not in gates.columns:
        return None
    first = gates.sort_values("gate_order").iloc[[0]] if "gate_order" in gates else gates.iloc[[0]]
    row = first.drop(columns=["input_hash"]).rename(columns={"snapshot_hash": "input_hash"})
    return row[[c for c in MANIFEST_FIELDS if c in row.columns]].reset_index(drop=True)


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


def algorithm_comparison_requested(release: Mapping[str, Any]) -> bool:
    """True when the release declares ``report.algorithm_comparison: true`` (then
    ``deid_algorithm_comparison`` is built and the report shows it)."""
    return (release.get("report") or {}).get("algorithm_comparison") is True


def write_dbt_report(
    suppressed: pd.DataFrame,
    population: pd.DataFrame | None,
    areas: pd.DataFrame | None,
    release: Mapping[str, Any],
    *,
    gates: pd.DataFrame | None = None,
    fingerprint: pd.DataFrame | None = None,
    comparison: pd.DataFrame | None = None,
    comparison_requested: bool = True,
    exact: pd.DataFrame | None = None,
    advice: pd.DataFrame | None = None,
    versions: pd.DataFrame | None = None,
    search_nodes: pd.DataFrame | None = None,
    path: str | None = None,
    project_dir: str | None = None,
    logger: Logger | None = None,
) -> pd.DataFrame:
    """Write the report of the release and return its index row. ``gates`` is
    deid_gate_results: the report states every gate's verdict and whether the release is
    published; a refused release's report is written to ``<name>.refused.html``. ``exact`` is
    the exact check's distribution (computed once in the warehouse as columns of
    deid_suppressed_patterns, :func:`dbt_deid.dbt_side.glue.risk.exact_distribution`);
    without it the exact counts are computed here from the true values. ``search_nodes`` is
    the search_nodes part of deid_report_inputs: when the release's levels were chosen by the
    OLA search (generalization.search ola) the report plots the nodes it evaluated (the risk-utility
    picture), else it says the levels were set in the settings and no search ran.
    ``comparison`` is deid_algorithm_comparison; ``comparison_requested`` False (the release
    does not declare ``report.algorithm_comparison: true``) makes the report say the comparison
    was not requested."""
    from dbt_deid.report.html import write_release_report  # matplotlib when drawing

    log = logger or get_logger()
    name = str(release.get("name", "release"))
    assessments = release_assessments(suppressed, population, areas, release, exact=exact,
                                      logger=log)
    fields = (manifest_fields(fingerprint.iloc[0].to_dict())
              if fingerprint is not None and len(fingerprint) == 1 else None)
    status = (release_status(release, gates, advice=advice, versions=versions,
                             assessments=assessments, fingerprint=fields,
                             search_nodes=search_nodes)
              if gates is not None else None)
    if status is not None and fields is not None:
        status = dataclasses.replace(status, manifest=fields)
    refused = status is not None and not status.passed
    out = report_path(release, path or None, project_dir or None, refused=refused)
    written = write_release_report(
        assessments, out, title=f"Re-identification risk report: {name}",
        breakdowns=breakdown_frames(suppressed, release), status=status, comparison=comparison,
        comparison_requested=comparison_requested,
        search_nodes=search_nodes,
        searched=(release.get("generalization") or {}).get("search") == "ola",
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
    gate_results: Any,
    suppression_map: Any = None,
    report_inputs: Any = None,
    *,
    path: str | None = None,
    project_dir: str | None = None,
) -> pd.DataFrame:
    """The dbt Python model ``deid_release_report``: writes the release's self-contained HTML
    report and returns its index.

    Reads the suppressed patterns (released values and the true values at the released level,
    with their record counts: the GROUP BY runs in the warehouse, ``deid_suppressed_patterns``)
    and the report's optional inputs (``report_inputs``, ``deid_report_inputs``, one part each:
    the history's versions, the nodes the search evaluated, the small-area inputs and the
    population patterns, whose models are built only when their setting is declared;
    :func:`dbt_deid.dbt_side.glue.report_inputs.report_input_parts`);
    measures every protected combination
    with the core (:func:`dbt_deid.dbt_side.glue.risk.release_assessments`: prosecutor risk and its
    exact
    variant, El Emam et al. 2011 (discharge PUMF) equations 2-3 when population information is
    configured, Zayatz/Pitman uniqueness, El Emam et al. 2009 (CJHP) diagnostics, El Emam et al.
    2010 small areas) and writes one HTML file to the configured ``path`` (config
    ``report_path``; default ``reports/<release name>.html`` relative to ``project_dir``, config
    ``report_project_dir``, else the dbt project directory). The report opens with the release
    status from ``gate_results`` (``deid_gate_results``): every gate's verdict and whether the
    release is published; a refused release's report is written to ``<name>.refused.html`` and
    never overwrites the published release's. The status block gives the achieved figure next
    to each limit, the rows, the version and the time; each quasi-identifier's level comes with
    its meaning and, on a refusal, the advice says what to change (the advice rows of
    ``suppression_map``, ``deid_suppression_map``, read without its map rows where the
    engine can filter: :func:`~dbt_deid.dbt_side.glue.advice.advice_rows`);
    combined_releases, decided by the publish step, is read from the
    history (the ``release_versions`` part of ``deid_report_inputs``). It shows the settings
    hash and the input fingerprint it was computed from (the gate table's, which fingerprints
    the input snapshot: :func:`gate_table_manifest`), as the release manifest in
    ``deid_release_history`` records them, and ends with the comparison of
    the suppression algorithms (the ``algorithm_comparison`` part of ``deid_report_inputs``,
    ``deid_algorithm_comparison``, built only when the release declares
    ``report.algorithm_comparison: true``, and read after that model is built, so the two
    pattern-table models never hold their frames in memory at the same time; otherwise the
    report says the comparison was not requested). The exact variant's figures come from the
    exact check's columns of ``suppressed_patterns`` (``deid_consistent_<i>``: the
    consistent-set sizes the warehouse computed once for the build, the risk summary and the
    gate reading the same; their totals are checked against the released patterns;
    ``deid_exact_consistent`` until session 13). The returned frame has one row:
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
    parts = report_input_parts(report_inputs) if report_inputs is not None else {}
    gates = to_pandas(gate_results)
    return write_dbt_report(
        suppressed, parts.get("population_patterns"), parts.get("small_area_inputs"), release,
        gates=gates, fingerprint=gate_table_manifest(gates),
        comparison=parts.get("algorithm_comparison"),
        comparison_requested=algorithm_comparison_requested(release),
        exact=exact_distribution(suppressed, parse_release(release)),
        advice=advice_rows(suppression_map) if suppression_map is not None else None,
        versions=parts.get("release_versions"),
        search_nodes=parts.get("search_nodes"),
        path=path,
        project_dir=project_dir, logger=dbt_logger(),
    )
