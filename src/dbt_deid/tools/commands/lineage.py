"""``python -m dbt_deid lineage``: the column-lineage gate over dbt's manifest.

    python -m dbt_deid lineage --manifest target/manifest.json --database FILE [--json]

Traces every column of the publish model (``deid_published``) and of every model declared as a
consumer of it (tag ``deid_consumer``, or a model an exposure depends on) to the release source
(:mod:`dbt_deid.dbt_side.lineage`) with the roles of the last release recorded in
``deid_release_history``. Exit 0 when every column derives only from released
quasi-identifiers, pass-through columns or relations other than the source; exit 1 naming each
failing model and column otherwise. The publish model's traced lineage must also equal the
lineage its manifest row stores (``lineage_json``).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import pandas as pd

from dbt_deid.dbt_side.lineage import (
    _rel_key,
    _same,
    check_manifest,
    load_manifest,
    publish_nodes,
    warehouse_schema,
)
from dbt_deid.errors import DataError
from dbt_deid.tools.commands.history import read_history


def _last_json(rows: pd.DataFrame, column: str) -> Any:
    """The parsed ``column`` of the last history row that recorded it, or None.

    Every kind of row counts: a release refused by dbt's skip (``record_skipped_releases``)
    records no lineage (NULL), a row of an older package version may lack the column."""
    if column not in rows.columns:
        return None
    texts = [v for v in rows[column] if isinstance(v, str) and v.strip()]
    return json.loads(texts[-1]) if texts else None


def _run(args: argparse.Namespace) -> int:
    manifest = load_manifest(args.manifest)
    publish = publish_nodes(manifest)
    if not publish:
        raise DataError(f"{args.manifest}: no model is materialized deid_publish")
    history = read_history(args.database, args.schema)
    schema = warehouse_schema(args.database)
    failed = 0
    report = []
    for uid in publish:
        rel = _rel_key(manifest["nodes"][uid]["relation_name"])
        rows = history[[_same(_rel_key(r), rel) for r in history["published_relation"]]]
        settings = _last_json(rows, "settings_json")
        if settings is None:
            raise DataError(f"no release of {manifest['nodes'][uid]['name']} is recorded in"
                            " deid_release_history: publish first")
        result = check_manifest(manifest, settings, schema, uid)
        name = manifest["nodes"][uid]["name"]
        recorded = {c["column"].lower(): sorted(s.lower() for s in c["sources"])
                    for c in _last_json(rows, "lineage_json") or []}
        traced = {c.column.lower() for c in result if c.model == name}
        for c in result:
            report.append(c.as_dict())
            if not c.passed:
                failed += 1
                bad = [o for o in c.origins if not o.allowed]
                print(f"FAIL {c.model}.{c.column}: derives from "
                      + "; ".join(f"{o.relation}.{o.column} ({o.role}: {o.why})" for o in bad))
        if recorded and set(recorded) != traced:
            failed += 1
            print(f"FAIL {name}: the published columns traced from its SQL"
                  f" ({', '.join(sorted(traced))}) differ from those its manifest row records"
                  f" ({', '.join(sorted(recorded))})")
    if args.json:
        print(json.dumps(report, indent=2))
    models = sorted({c["model"] for c in report})
    print(f"lineage: {len(report)} column(s) of {len(models)} model(s) ({', '.join(models)});"
          f" {failed} failure(s)")
    return 1 if failed else 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lineage", help="column-lineage gate over target/manifest.json",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--manifest", default="target/manifest.json", help="dbt's manifest.json")
    p.add_argument("--database", required=True, help="the DuckDB file of the release")
    p.add_argument("--schema", default="main", help="the published schema (default main)")
    p.add_argument("--json", action="store_true", help="print every column's lineage as JSON")
    p.set_defaults(func=_run)
