"""Build the demo releases as `make demo` does, and say what was published and what refused.

Two dbt invocations in this project (the same DuckDB file):

1. ``dbt build --exclude tag:deid_claims``: both discharge files of seed 000 Table 3, each a
   disjoint sample of the same population, built and gated independently in one build (docs,
   "Several releases in one project"): the geographic file (var ``deid_release``, the package's
   models, published as ``deid_published``) and the clinical file (var
   ``deid_releases.discharge_clinical``, the models in models/deid_discharge_clinical, published
   as ``discharge_clinical__deid_published``); and the text release (seed 004). Every gate must
   pass.
2. ``dbt build --select +tag:deid_claims``: the claims release (seed 001, LOLA) at the paper's
   limits (MaxSup 0.8%, attack tau 0.05). On the calibrated synthetic data no node meets them,
   so the release is expected to be refused: the demo passes when dbt failed only because the
   claims gates refused (their gate table says so and nothing was published), and prints the
   gate's message with the limit to relax. Any other failure fails the demo.

    python build_demo.py [extra dbt arguments, e.g. --target-path DIR --log-path DIR]

The DuckDB file is ``DBT_DEID_DUCKDB_PATH`` (profiles/profiles.yml). Exit code 0 when the demo
behaved as documented.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DBT = str(Path(sys.executable).parent / "dbt")
CLAIMS_PUBLISHED = ("deid_claims_published_patients", "deid_claims_published_claims")


def dbt(args: list[str], extra: list[str]) -> int:
    cmd = [DBT, *args, "--profiles-dir", "profiles", *extra]
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=HERE).returncode


def claims_refusal(database: Path) -> list[str] | None:
    """The claims gate's failed measures and messages when the claims release was refused with
    nothing published; None when that is not what happened."""
    import duckdb

    with duckdb.connect(str(database), read_only=True) as con:
        tables = {(s, t) for s, t in con.execute(
            "select table_schema, table_name from information_schema.tables").fetchall()}
        if any(t in CLAIMS_PUBLISHED for _, t in tables):
            return None
        gate = [(s, t) for s, t in tables if t == "deid_claims_release_gate"]
        if not gate:
            return None
        schema, name = gate[0]
        columns = {r[0] for r in con.execute(
            "select column_name from information_schema.columns"
            " where table_schema = ? and table_name = ?", [schema, name]).fetchall()}
        text = "message" if "message" in columns else "null"
        rows = con.execute(
            f'select measure, {text}, value, "limit" from "{schema}"."{name}"'
            " where measure in ('node_risk', 'attack1') and (passed is null or not passed)"
            " order by measure").fetchall()
    return [f"{m}: {msg}" if msg else f"{m}: {value} > limit {limit}"
            for m, msg, value, limit in rows] or None


def main(argv: list[str]) -> int:
    extra = list(argv)
    if dbt(["build", "--exclude", "tag:deid_claims"], extra) != 0:
        print("demo FAILED: the geographic or clinical discharge file or the text release did"
              " not build and pass its gates")
        return 1
    if dbt(["build", "--select", "+tag:deid_claims"], extra) == 0:
        print("claims release: every gate passed; published")
        return 0
    database = Path(os.environ.get("DBT_DEID_DUCKDB_PATH", "demo.duckdb"))
    if not database.is_absolute():
        database = HERE / database
    refusal = claims_refusal(database)
    if refusal is None:
        print("demo FAILED: the claims build failed for a reason other than its gates")
        return 1
    print("claims release REFUSED at the paper's limits (MaxSup 0.8%, attack tau 0.05);"
          " nothing published:")
    for line in refusal:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
