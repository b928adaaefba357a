"""``deid_report_inputs`` split back into the report's optional inputs.

The report model (a dbt Python model reads only what it refs with a literal name, and a ref to
a disabled node fails) reads one always-built relation, ``deid_report_inputs``: a long table
with one ``part`` per input (``macros/releases/report_inputs_sql.sql``, issue 33 item 3):

* ``search_nodes``: the nodes the generalization search evaluated (each QI's level in
  ``<qi>__level``), no row when the levels are set in the settings;
* ``release_versions``: the release's rows of ``deid_release_history``;
* ``small_area_inputs``: ``deid_small_area_inputs`` (El Emam et al. 2010's small-area model
  inputs), no row without ``small_areas`` (the model is then not built);
* ``population_patterns``: ``deid_population_patterns`` (each QI's value in
  ``<qi>__population``), no row without a population relation (the model is built only with
  a sampling fraction, population size or population);
* ``algorithm_comparison``: ``deid_algorithm_comparison`` (the suppression algorithms
  compared), no row unless the release declares ``report.algorithm_comparison: true`` (the
  model is built only then).

:func:`report_input_parts` gives each part as the frame its own table gave before the fold
(the same columns, in the same order, with the same types; the small-area inputs' population
and threshold as floats): the QI levels and population values under the QI names, and, on
DuckDB, each part's rows converted from Arrow on their own, so a column without null in the
part keeps its plain type.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from dbt_deid.dbt_side.glue.frames import _is_duckdb, to_pandas

#: The suffix of the search nodes' QI level columns (``<qi>__level``).
QI_LEVEL_SUFFIX = "__level"
#: The suffix of the population patterns' QI columns (``<qi>__population``).
QI_POPULATION_SUFFIX = "__population"
#: The parts whose QI columns carry a suffix, with it and the kind of their values.
QI_PARTS: dict[str, tuple[str, str]] = {
    "search_nodes": (QI_LEVEL_SUFFIX, "int"),
    "population_patterns": (QI_POPULATION_SUFFIX, "str"),
}

#: Each part's own columns (after the QI columns for ``search_nodes`` and
#: ``population_patterns``), in the order of the table it replaces, with their kind: ``int``
#: and ``bool`` columns are restored after an engine handed them back as floats or objects
#: (they are null on the other parts' rows).
PARTS: dict[str, dict[str, str]] = {
    "search_nodes": {
        "role": "str", "suppressed": "int", "suppressed_share": "float", "passes": "bool",
        "chosen": "bool", "metric": "str", "information_loss": "float",
        "max_suppression": "float", "nodes_evaluated": "int", "search": "str"},
    "release_versions": {
        "release_version": "int", "status": "str", "recorded_at": "str",
        "published_rows": "int", "package_version": "str", "gates_failed": "str",
        "records_shared": "int", "combined_min_consistent": "int", "invocation_id": "str"},
    "small_area_inputs": {
        "area_level": "int", "area": "str", "population": "float", "records": "int",
        "maxcombs": "int", "geography_column": "str", "released_level": "int",
        "threshold": "float", "source_areas_without_population": "int"},
    "population_patterns": {"n": "int"},
    "algorithm_comparison": {
        "algorithm": "str", "column_name": "str", "suppressed_cells": "int",
        "share_cells_suppressed": "float", "records_with_suppression": "int",
        "share_records_with_suppression": "float", "suppression_entropy": "float",
        "smallest_class": "int", "min_consistent_exact": "int", "selected": "bool"},
}


def _part_columns(names: list[str], part: str) -> dict[str, str]:
    """The relation's columns of ``part`` -> their names in the part's own table."""
    lower = {n.lower(): n for n in names}
    out: dict[str, str] = {}
    if part in QI_PARTS:
        suffix = QI_PARTS[part][0]
        for n in names:
            if n.lower().endswith(suffix):
                out[n] = n[: -len(suffix)]
    for c in PARTS[part]:
        out[lower[c]] = c
    return out


def _restore_types(frame: pd.DataFrame, part: str) -> pd.DataFrame:
    """Integer and boolean columns an engine handed back as floats, objects or nullable types
    (they are null on the other parts' rows) with their own type again, when the part's rows
    hold no null."""
    kinds = dict(PARTS[part])
    if part in QI_PARTS:
        kinds.update({c: QI_PARTS[part][1] for c in frame.columns if c not in PARTS[part]})
    for c, kind in kinds.items():
        col = frame[c]
        if not col.notna().all():
            continue
        if kind == "int" and col.dtype != "int64" and (
                pd.api.types.is_float_dtype(col) or pd.api.types.is_integer_dtype(col)):
            frame[c] = col.astype("int64")
        elif kind == "bool" and col.dtype != bool:
            frame[c] = col.astype(bool)
    return frame


def report_input_parts(relation: Any) -> dict[str, pd.DataFrame]:
    """``deid_report_inputs`` (any engine's relation, or pandas) as one frame per part, each
    with its own columns under the names of the table it replaces (module docstring)."""
    if _is_duckdb(relation):
        import pyarrow.compute as pc

        from dbt_deid.arrow_frames import arrow_to_pandas, read_arrow

        table = read_arrow(relation.arrow())
        names = table.column_names
        part_col = next(n for n in names if n.lower() == "part")
        out = {}
        for part in PARTS:
            cols = _part_columns(names, part)
            rows = table.filter(pc.equal(table[part_col], part)).select(list(cols))
            out[part] = arrow_to_pandas(rows.rename_columns(list(cols.values())))
        return out
    frame = to_pandas(relation)
    names = [str(c) for c in frame.columns]
    frame.columns = names
    part_col = next(n for n in names if n.lower() == "part")
    out = {}
    for part in PARTS:
        cols = _part_columns(names, part)
        rows = frame.loc[frame[part_col].astype(str) == part, list(cols)].rename(columns=cols)
        out[part] = _restore_types(rows.reset_index(drop=True), part)
    return out
