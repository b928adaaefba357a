"""Build the demo releases as `make demo` does, and say what was published and what refused.

Two dbt invocations in this project (the same DuckDB file):

1. ``dbt build --exclude tag:deid_claims``: both discharge files of seed 000 Table 3 in the
   paper's order and at its public-use threshold (sample.order population_first, tau 0.05,
   k = 20; docs/seed000-order.md): each release generalizes and suppresses the whole population
   (every class at least 20 records), then draws its file, a different non-overlapping 10%
   sample, from the suppressed records; the geographic file (var ``deid_release``, the
   package's models, ``deid_published``) and the clinical file (var
   ``deid_releases.discharge_clinical``, models/deid_discharge_clinical,
   ``discharge_clinical__deid_published``); and the text release (seed 004), which must publish.
   The gates check what is published: a 10% file of classes of 20 holds classes below 20, so
   both files are expected to be refused. The demo passes when dbt failed only because the
   discharge files' gate tests failed (nothing published, a 'refused' history row each), and
   prints, per file, the file's cells suppressed next to the paper's Tables 9-10 and the
   file's classes below k.
   The same build publishes version 1 of the demo's **living line** (issue 32 item 5,
   docs/living-demo.md): the geographic file's variables at the paper's levels as seed 000's
   Analytical File (tau 0.2, the threshold the paper names for researchers under a data sharing
   agreement, k = 5; var ``deid_releases.discharge_analytical``, published as
   ``discharge_analytical__deid_published``), over ``discharge_abstracts_monthly`` at month 1;
   its gates must pass.
2. ``dbt build --select discharge_abstracts_monthly tag:deid_release_discharge_analytical
   --vars '{demo_month: 2}'``: a second month of abstracts (new records, 1% withdrawn, 0.1%
   diagnoses corrected) refreshes the line: version 2 extends version 1 (every earlier row kept
   unless the new version alone needs a cell suppressed; the combined view of both versions
   gated). The demo prints both versions' figures (``python -m dbt_deid history line``).
3. ``dbt build --select tag:deid_claims``: the claims release (seed 001, LOLA) at the paper's
   limits (MaxSup 0.8%, attack tau 0.05). On the calibrated synthetic data no node meets them,
   so the release is expected to be refused: the demo passes when dbt failed only because the
   claims gates refused (their gate table says so and nothing was published), and prints the
   gate's message with the limit to relax. Any other failure fails the demo.
   It runs right after 1., before 2.: its dbt run then starts from the parse 1. saved (the
   refresh's ``--vars`` make dbt parse the whole project again, ~20 s); the summary printed at
   the end keeps the order 1, 2, 3. It selects the release's models only (every package model
   upstream of its verdict, as the claims verdict binding requires), not their ``+`` ancestors:
   the demo's claims sources and seeds (claims_patients, claims_claims, claims_sid_visits, the
   claims hierarchies) are not tagged ``deid_claims``, so 1. built them already, with the same
   vars; building them again cost ~12 CPU s of the demo.

    python build_demo.py [extra dbt arguments, e.g. --target-path DIR --log-path DIR]

The DuckDB file is ``DBT_DEID_DUCKDB_PATH`` (profiles/profiles.yml). The demo starts from a
fresh warehouse: an existing file is removed first, so a second run builds version 1 and its
refresh again instead of refreshing month 2 back to month 1 (a living line's history is never
rewound; the store and the history go together with the file). Exit code 0 when the demo
behaved as documented.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DBT = str(Path(sys.executable).parent / "dbt")
CLAIMS_PUBLISHED = ("deid_claims_published_patients", "deid_claims_published_claims")
#: The discharge files: (release name, table prefix, the paper's table and file version).
DISCHARGE = (("discharge_geographic", "", "Table 9, PROV_REGION"),
             ("discharge_clinical", "discharge_clinical__", "Table 10, TOTAL_LOS_WEEKS"))
#: El Emam et al. 2011 Tables 9-10 at tau 0.05, combinations algorithm (the version the paper
#: chose): % of records with the QI suppressed, and % of all QI cells suppressed.
PAPER_005 = {
    "discharge_geographic": {"gender": 0.003, "age": 2.8, "province": 0.16, "mrdx": 19.4,
                             "cmg": 19.4, "diag_block": 13.5, "diag_chapter": 2.5,
                             "cci_code": 8.8, "short_cci": 8.8, "(all quasi-identifiers)": 8.4},
    "discharge_clinical": {"gender": 0.004, "age": 4.2, "los_days": 1.8, "mrdx": 19.8,
                           "cmg": 19.8, "diag_block": 15.1, "diag_chapter": 3.3,
                           "cci_code": 8.9, "short_cci": 8.9, "(all quasi-identifiers)": 9.1},
}


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


#: El Emam et al. 2012 Table 6 (share of all HHP records matched against the SID), per row: year
#: 1, 2, 3, all years. Which QIs each row used is lost from the table's layout.
PAPER_TABLE6 = ((0.001612, 0.001478, 0.001515, 0.005141), (0.007105, 0.005684, 0.005965, 0.009735),
                (0.013334, 0.010156, 0.010928, 0.013579), (0.017272, 0.012702, 0.013797, 0.015991))


def attack3_lines(database: Path) -> list[str]:
    """Attack 3 at the claims release node (deid_claims_attack3: Table 6 against the seeded
    SID-like visits), one line per QI set, beside the paper's Table 6 range; none when the
    model was not built."""
    import duckdb

    with duckdb.connect(str(database), read_only=True) as con:
        where = con.execute("select table_schema from information_schema.tables"
                            " where table_name = 'deid_claims_attack3'").fetchall()
        if not where:
            return []
        rows = con.execute(
            f'select qi_set, period, marketer_risk, patients_not_in_population from'
            f' "{where[0][0]}".deid_claims_attack3 order by qi_set, period').fetchall()
    cells: dict[str, dict[str, float]] = {}
    lost: dict[str, int] = {}
    for qi_set, period, risk, absent in rows:
        cells.setdefault(qi_set, {})[period] = risk
        if period == "all_years":
            lost[qi_set] = int(absent)
    flat = [v for row in PAPER_TABLE6 for v in row]
    out = [f"attack 3 (seed 001 Table 6, closed-form marketer risk against the synthetic SID;"
           f" paper's cells {100 * min(flat):.2f}-{100 * max(flat):.2f}%):"]
    for qi_set, by in cells.items():
        years = "  ".join(f"{p} {100 * by[p]:.3f}%" for p in sorted(by))
        out.append(f"  {qi_set}: {years} ({lost[qi_set]} released patients' visits truncated:"
                   " not matchable)")
    return out


def _target(extra: list[str]) -> Path:
    """The dbt target path of this run (``--target-path`` in ``extra``, else target/)."""
    if "--target-path" in extra:
        return Path(extra[extra.index("--target-path") + 1])
    return HERE / "target"


def discharge_failures_only(target: Path) -> bool:
    """True when every failed or errored node of the last dbt run is a gate test of one of the
    discharge files (``deid_gate_*`` or ``discharge_clinical__deid_gate_*``)."""
    path = target if target.is_absolute() else HERE / target
    results = json.loads((path / "run_results.json").read_text())["results"]
    bad = [r["unique_id"] for r in results if r["status"] in ("error", "fail", "runtime error")]
    # a test's unique id is test.<package>.<test name>[.<hash>]
    return bool(bad) and all(
        u.startswith("test.") and u.split(".")[2].removeprefix("discharge_clinical__")
        .startswith("deid_gate_") for u in bad)


def discharge_refusals(database: Path) -> list[str] | None:
    """Per discharge file: the file's suppression (deid_diagnostics' information_loss rows
    describe what is published: the file drawn from the protected population) next to the
    paper's Tables 9-10 and why the file was refused; None when a file was published, was not
    refused by its gates, or the text release did not publish."""
    import duckdb

    out: list[str] = []
    with duckdb.connect(str(database), read_only=True) as con:
        tables = {t for (t,) in con.execute(
            "select table_name from information_schema.tables").fetchall()}
        history = con.execute(
            "select release_name, release_kind, status, gates_failed from deid_release_history"
            " order by recorded_at").fetchall()
        last = {(name, kind): (status, failed) for name, kind, status, failed in history}
        if not any(kind == "text" and st == "published" for (_, kind), (st, _) in last.items()):
            return None
        for name, prefix, where in DISCHARGE:
            status, failed = last.get((name, "discharge"), (None, None))
            if f"{prefix}deid_published" in tables or status != "refused":
                return None
            params = dict(con.execute(
                f"select setting, value from main_deid_work.{prefix}deid_release_plan"
                " where kind = 'setting'").fetchall())
            k = int(params["k"])
            population = con.execute(
                f"select count(*) from main_deid_work.{prefix}deid_suppressed").fetchone()[0]
            file = con.execute(
                f"select count(*) from main_deid_work.{prefix}deid_sample_file").fetchone()[0]
            out.append(f"{name}: REFUSED (failed: {failed})")
            out.append(f"  population {population} records protected at tau"
                       f" {params['tau']} (k = {k}); the file: a 10% sample of {file} records")
            out.append(f"  cells suppressed in the file vs El Emam et al. 2011 {where},"
                       " tau 0.05, combinations (% of records with the QI suppressed; all: %"
                       " of QI cells):")
            loss = con.execute(
                f"select column_name, share_cells_suppressed from"
                f" main_deid_work.{prefix}deid_diagnostics where diagnostic = 'information_loss'"
                " order by column_order").fetchall()
            for column, share in loss:
                paper = PAPER_005[name].get(column)
                out.append(f"    {column:<26} {100 * share:6.1f}%   paper "
                           + (f"{paper:g}%" if paper is not None else "-"))
            plan = con.execute(
                f"select item, column_name from main_deid_work.{prefix}deid_release_plan"
                " where kind = 'verified' order by item, position").fetchall()
            combos: dict[int, list[str]] = {}
            for item, column in plan:
                combos.setdefault(item, []).append(column)
            worst = (0, 0, "")
            for cols in combos.values():
                group = ", ".join(f'"{c}"' for c in cols)
                below, records = con.execute(
                    f"select count(*), coalesce(sum(f), 0) from (select count(*) as f from"
                    f" main_deid_work.{prefix}deid_sample_file group by {group}) as c"
                    f" where f < {k}").fetchone()
                if records > worst[1]:
                    worst = (below, records, "+".join(cols))
            out.append(f"  the file: {worst[1]} of {file} records ({100 * worst[1] / file:.1f}%)"
                       f" in {worst[0]} classes smaller than k = {k} on {worst[2]} (the worst of"
                       f" {len(combos)} combinations): the guarantee is k in what is published")
    return out


#: The living line: its release name, its source model and month 2's dbt selection.
LIVING = "discharge_analytical"
LIVING_SELECT = ["discharge_abstracts_monthly", f"tag:deid_release_{LIVING}"]


def living_versions(database: Path) -> list[tuple[int, str]]:
    """(version, status) of the living line's history rows, in the order recorded."""
    import duckdb

    with duckdb.connect(str(database), read_only=True) as con:
        return [(int(v or 0), st) for v, st in con.execute(
            "select release_version, status from deid_release_history where release_name = ?"
            " order by recorded_at", [LIVING]).fetchall()]


def living_figures(database: Path) -> list[str]:
    """Each published version of the living line alone (records, suppression, smallest class
    and exact consistent set per verified combination, from its history row), then the line
    as ``python -m dbt_deid history line`` tells it (what version 2 added, deleted, changed
    and newly suppressed in earlier records, and the combined view of both versions)."""
    from dbt_deid.tools.commands.history import read_history, render_line

    history = read_history(database, release=LIVING)
    out = []
    for _, row in history[history["status"] == "published"].iterrows():
        loss = json.loads(row["information_loss_json"])
        out.append(f"version {row['release_version']} alone: {row['published_rows']} records,"
                   f" {100 * loss['share_cells_suppressed']:.1f}% of QI cells suppressed,"
                   f" {100 * loss['share_records_with_suppression']:.1f}% of records with a"
                   " suppressed QI")
        for c in json.loads(row["achieved_json"]):
            out.append(f"  {c['combination']}: smallest class {c['smallest_class']}, smallest"
                       f" consistent set {c['min_consistent_exact']}")
    return out + render_line(history).splitlines()


def fresh_warehouse(database: Path) -> None:
    """Remove the demo's DuckDB file (and its write-ahead log) so the demo starts over."""
    for path in (database, database.with_name(database.name + ".wal")):
        if path.exists():
            print(f"demo: removing {path} (the demo builds a fresh warehouse)", flush=True)
            path.unlink()


def main(argv: list[str]) -> int:
    extra = list(argv)
    database = Path(os.environ.get("DBT_DEID_DUCKDB_PATH", "demo.duckdb"))
    if not database.is_absolute():
        database = HERE / database
    fresh_warehouse(database)
    if dbt(["build", "--exclude", "tag:deid_claims"], extra) == 0:
        print("demo FAILED: the discharge files at tau 0.05 in the paper's order were expected"
              " to be refused by their gates (docs/seed000-order.md), and published")
        return 1
    refused = (discharge_refusals(database)
               if discharge_failures_only(_target(extra)) else None)
    if refused is None:
        print("demo FAILED: the discharge or text build failed for a reason other than the"
              " discharge files' gates")
        return 1
    print("discharge files (seed 000) in the paper's order at tau 0.05: REFUSED, nothing"
          " published:")
    for line in refused:
        print(f"  {line}")
    if living_versions(database) != [(1, "published")]:
        print(f"demo FAILED: version 1 of the living line {LIVING} (month 1) was not published")
        return 1
    # the claims build (3.) before the refresh (2.), on the first build's saved parse (the
    # refresh's --vars make dbt parse the whole project again); the summary keeps the order 1-3
    claims_ok = dbt(["build", "--select", "tag:deid_claims"], extra) == 0
    if dbt(["build", "--select", *LIVING_SELECT, "--vars", "{demo_month: 2}"], extra) != 0:
        print(f"demo FAILED: the refresh of {LIVING} with month 2 failed")
        return 1
    if living_versions(database) != [(1, "published"), (2, "published")]:
        print(f"demo FAILED: month 2 did not publish version 2 of {LIVING}")
        return 1
    print(f"living line {LIVING} (seed 000's Analytical File, tau 0.2, k = 5): month 1"
          " published as version 1, month 2 refreshed it as version 2:")
    for line in living_figures(database):
        print(f"  {line}")
    for line in attack3_lines(database):
        print(line)
    if claims_ok:
        print("claims release: every gate passed; published")
        return 0
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
