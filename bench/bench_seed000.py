"""Benchmark of the seed-000 release (El Emam et al. 2011, DAD PUMF): not a test.

Reproduces, on the synthetic discharge abstracts of :mod:`dbt_deid.tools.synthetic.discharge`
(Table 2
shape, 2,375,331 records by default), the paper's evaluation ("Evaluation", "Results"):

1. Generate the records once into a DuckDB file (a child process) and generalize them in SQL:
   province / region, LOS days (days up to a week, then weeks, top-coded at 6 months) and LOS
   weeks (top-coded), 5-year age groups top-coded at 90, gender, MRDx / CMG / DIAG_BLOCK /
   DIAG_CHAPTER (``diagnosis_hierarchy()``), CCI and short CCI (7-character prefix), a missing
   CCI being its own ``<missing>`` category.
2. Headline, the paper's recommended setting as one release (region, LOS weeks, age group and
   gender as demographics; adversary at CMG and short CCI, all levels released; k = 20, tau =
   0.05): the DuckDB GROUP BY baseline for every verified combination, the suppression core
   (``run_suppression`` with the arguments ``dbt_entry.suppression_map`` passes), their ratio,
   peak memory; the whole ``dbt build`` of ``demo/`` at that scale (source models, then
   ``package:dbt_deid``) and an independent ``check_release`` of the published table; Tables
   11-13 analogues (CMG missingness by region, age group and LOS weeks).
3. Figures 8-10: core time per phase for k = 3, 5, 10, 20, 25, 40, combinations and complete.
4. Figure 11: core time against records for sampling fractions 0.1 ... 1.0 at k = 5, with the
   log-log least-squares scaling exponent.
5. Tables 9 and 10 analogues: the geographic file (PROV_ALL / PROV_REGION, age, gender,
   diagnosis, intervention) and the clinical file (LOS_DAYS / LOS_WEEKS instead of the
   province), tau 0.2 / 0.05 / 0.04, combinations vs complete: % of records suppressed per
   column, % of cells, and entropy (%).

Entropy (%) is the non-uniform entropy of a file relative to a baseline (= 100): the
combinations PROV_REGION file at tau 0.05 for Table 9, the combinations LOS_WEEKS file at tau
0.05 for Table 10. Non-uniform entropy (de Waal & Willenborg; Gionis & Tassa) sums, over records
and released QI columns, -log2 Pr(original value | released cell), with the probabilities taken
from the records before suppression: for a cell released as value r it is f(o) / f(r) (f(r) =
records whose original value generalizes to r), for a suppressed cell f(o) / N (it covers every
record). The "original" value is the province for PROV_XXX, the LOS-days level for LOS_XXX
(so the coarser files pay for their generalization) and, for every other column, the value at
its released level before suppression.

    .venv/bin/python bench/bench_seed000.py [--rows 2375331] [--quick] [--skip-dbt]

``--quick`` uses 200,000 records. Progress goes to stderr, the figures to stdout.

Targets (PASS / MISS): core <= 10x the DuckDB baseline at full scale and k = 20; whole dbt build
<= 60 s; peak memory <= 4 GiB; scaling exponent <= 1.1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from dbt_deid.config import parse_release
from dbt_deid.patterns import SUPPRESSED
from dbt_deid.suppression import SuppressionResult, run_suppression
from dbt_deid.tools.synthetic.discharge import PAPER_ROWS
from dbt_deid.verify import check_release

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "demo"
DBT = str(Path(sys.executable).parent / "dbt")
QUICK_ROWS = 200_000
SEED = 42
GIB = 1024**3
K_VALUES = (3, 5, 10, 20, 25, 40)
FRACTIONS = tuple(round(0.1 * i, 1) for i in range(1, 11))
TAUS = (0.2, 0.05, 0.04)

DIAGNOSIS = ["mrdx", "cmg", "diag_block", "diag_chapter"]
INTERVENTION = ["cci_code", "short_cci"]
FAMILIES: dict[str, Any] = {
    "diagnosis": {"levels": DIAGNOSIS, "generalizes": {"diag_block": "mrdx",
                                                      "diag_chapter": "diag_block"},
                  "adversary_level": "cmg"},
    "intervention": {"levels": INTERVENTION, "generalizes": {"short_cci": "cci_code"},
                     "adversary_level": "short_cci"},
}
HEADLINE_DEMOGRAPHICS = ["region", "los_weeks", "age_group", "gender"]
# Paper figures for the recommended files (Tables 9 and 10, combinations, tau 0.05).
PAPER_T9 = {"cells": 8.4, "cmg": 19.4, "complete_cells": 9.5}
PAPER_T10 = {"cells": 9.1, "cmg": 19.8, "complete_cells": 9.6}

LOS_DAYS_SQL = """case when los_days >= 182 then '182+'
       when los_days < 7 then cast(los_days as varchar)
       else cast(cast(floor(los_days / 7) * 7 as bigint) as varchar) || '-'
            || cast(cast(floor(los_days / 7) * 7 + 6 as bigint) as varchar) end"""
LOS_WEEKS_SQL = """case when los_days >= 182 then '182+'
       else cast(cast(floor(los_days / 7) as bigint) as varchar) end"""
AGE_SQL = """case when age >= 90 then '90+'
       else cast(cast(floor(age / 5) * 5 as bigint) as varchar) || '-'
            || cast(cast(floor(age / 5) * 5 + 4 as bigint) as varchar) end"""


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class _Quiet:
    def info(self, msg: str) -> None:  # the core's per-pass lines would drown the progress
        pass


def maxrss_bytes(who: int = resource.RUSAGE_SELF) -> int:
    return resource.getrusage(who).ru_maxrss * 1024  # Linux: KiB


def gib(n: float) -> str:
    return f"{n / GIB:.2f} GiB"


# --------------------------------------------------------------------------------------------
# 1. Data


def generate_into(db: Path, rows: int) -> None:
    """Child process: generate the records and the generalized table ``gen`` in ``db``."""
    from dbt_deid.tools.synthetic.discharge import diagnosis_hierarchy, generate_discharges

    t = time.perf_counter()
    frame = generate_discharges(rows, seed=SEED)
    hier = diagnosis_hierarchy()
    t_gen = time.perf_counter() - t
    t = time.perf_counter()
    con = duckdb.connect(str(db))
    con.register("frame", frame)
    con.register("hier", hier)
    con.execute("create table discharge_abstracts as select * from frame")
    con.execute("create table diagnosis_hierarchy as select * from hier")
    del frame
    t_load = time.perf_counter() - t
    t = time.perf_counter()
    con.execute(f"""
        create table gen as
        select d.abstract_id,
               d.province as prov_all,
               case when d.province = 'ON' then 'Central' when d.province = 'TERR' then 'North'
                    when d.province in ('NS', 'NB', 'NL', 'PE') then 'East' else 'West' end
                 as region,
               {LOS_DAYS_SQL} as los_days,
               {LOS_WEEKS_SQL} as los_weeks,
               {AGE_SQL} as age_group,
               d.gender,
               d.mrdx, d.cmg, h.diag_block, h.diag_chapter,
               coalesce(d.cci_code, '<missing>') as cci_code,
               coalesce(substr(d.cci_code, 1, 7), '<missing>') as short_cci
        from discharge_abstracts d
        left join diagnosis_hierarchy h on h.mrdx = d.mrdx
    """)
    t_sql = time.perf_counter() - t
    con.close()
    print(json.dumps({"generate": t_gen, "load": t_load, "generalize": t_sql,
                      "maxrss": maxrss_bytes()}))


def run_child(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None,
              out: Path | None = None) -> tuple[int, float, int, str]:
    """Run a command; return (exit code, seconds, the child's peak RSS in bytes, output)."""
    out = out or Path(tempfile.mkstemp(suffix=".log")[1])
    t = time.perf_counter()
    with out.open("w") as fh:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT)
        _pid, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, seconds, usage.ru_maxrss * 1024, out.read_text()


# --------------------------------------------------------------------------------------------
# Core helpers


def core_release(demographics: Sequence[str], tau: float) -> dict[str, Any]:
    """The release as the core sees it (QI names = the bench's generalized columns)."""
    qis = [*demographics, *DIAGNOSIS, *INTERVENTION]
    return {"name": "seed000_bench", "quasi_identifiers": {q: {} for q in qis},
            "hierarchical_qis": FAMILIES, "demographics": list(demographics), "tau": tau}


def run_core(frame: pd.DataFrame, release: dict[str, Any], algorithm: str = "combinations",
             k: int | None = None) -> tuple[SuppressionResult, float]:
    """``run_suppression`` with the arguments of ``dbt_entry.suppression_map``; wall seconds."""
    cfg = parse_release(release, partial=True)
    t = time.perf_counter()
    result = run_suppression(
        frame, k or cfg.k, cfg.combinations, cfg.weights, algorithm=algorithm, count_column="n",
        logger=_Quiet(), propagation=cfg.propagation(), columns=cfg.qi_names,
        verify_combinations=cfg.verified_combinations(), families=cfg.families,
    )
    return result, time.perf_counter() - t


def patterns(con: duckdb.DuckDBPyConnection, cols: Sequence[str], where: str = "") -> pd.DataFrame:
    sel = ", ".join(cols)
    return con.execute(f"select {sel}, count(*) as n from gen {where} group by {sel}").df()


def best_of(fn: Callable[[], object], repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def suppressed_share(result: SuppressionResult, col: str) -> float:
    t = result.table
    sup = t.codes[:, t.col(col)] == SUPPRESSED
    return float(t.counts[sup].sum()) / t.n_records


def entropy_inputs(frame: pd.DataFrame, cols: Sequence[str], original: dict[str, str]
                   ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per column, per input pattern: f(original value) and f(released value) before
    suppression (computed once per pattern table)."""
    out = {}
    for c in cols:
        oc = original.get(c, c)
        out[c] = (frame.groupby(oc, dropna=False)["n"].transform("sum").to_numpy(float),
                  frame.groupby(c, dropna=False)["n"].transform("sum").to_numpy(float))
    return out


def entropy(result: SuppressionResult, freqs: dict[str, tuple[np.ndarray, np.ndarray]]
            ) -> float:
    """Non-uniform entropy (bits) of the released columns (see the module docstring)."""
    t = result.table
    n_all = float(t.n_records)
    total = 0.0
    for c, (f_o, f_r) in freqs.items():
        f_o, f_r = f_o[t.origin], f_r[t.origin]
        sup = t.codes[:, t.col(c)] == SUPPRESSED
        p = np.where(sup, f_o / n_all, f_o / f_r)
        total += float(-(t.counts * np.log2(p)).sum())
    return total


def _label_key(label: str) -> tuple[float, str]:
    """Sort '5-9' after '0-4' and '182+' last: by the leading number, then the text."""
    head = label.split("-")[0].rstrip("+")
    return (float(head) if head.isdigit() else math.inf, label)


def fmt_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers]] + [[str(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(v.rjust(w) if i else v.ljust(w) for i, (v, w) in
                       enumerate(zip(r, widths, strict=True))) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def md_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    out = ["| " + " | ".join(map(str, headers)) + " |",
           "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(map(str, r)) + " |" for r in rows]
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# 2. Headline


def headline(con: duckdb.DuckDBPyConnection, repeat: int, trace: bool) -> dict[str, Any]:
    release = core_release(HEADLINE_DEMOGRAPHICS, 0.05)
    cfg = parse_release(release, partial=True)
    qcols = cfg.qi_names
    verified = cfg.verified_combinations()

    def group_all() -> None:
        for b in verified:
            sel = ", ".join(b)
            con.execute(f"create or replace temp table _ec as"
                        f" select {sel}, count(*) as n from gen group by {sel}")

    log(f"headline: DuckDB GROUP BY baseline over {len(verified)} verified combinations")
    baseline = best_of(group_all, repeat)
    t = time.perf_counter()
    frame = patterns(con, qcols)
    t_patterns = time.perf_counter() - t
    log(f"headline: pattern table {len(frame)} rows in {t_patterns:.2f}s; running the core")
    times = []
    result = None
    for _ in range(repeat):
        result, sec = run_core(frame, release)
        times.append(sec)
    assert result is not None
    core = min(times)
    t = time.perf_counter()
    smap = result.suppression_map()
    t_map = time.perf_counter() - t
    rss_core = maxrss_bytes()
    traced = None
    if trace:
        log("headline: one more core run under tracemalloc")
        tracemalloc.start()
        run_core(frame, release)
        traced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    s = result.stats
    n = result.table.n_records
    cells = sum(suppressed_share(result, c) for c in qcols) / len(qcols) * 100
    # Tables 11-13 analogues: % of records with CMG suppressed by region, age group, LOS weeks.
    t_ = result.table
    pub = pd.DataFrame({c: frame[c].to_numpy()[t_.origin] for c in
                        ("region", "age_group", "los_weeks")})
    pub["n"] = t_.counts
    pub["cmg_sup"] = np.where(t_.codes[:, t_.col("cmg")] == SUPPRESSED, t_.counts, 0)
    by = {}
    for c in ("region", "age_group", "los_weeks"):
        g = pub.groupby(c)[["n", "cmg_sup"]].sum()
        g["share"] = g["n"] / n * 100
        g["missing"] = g["cmg_sup"] / g["n"] * 100
        by[c] = g
    return {
        "release": release, "k": cfg.k, "records": n, "patterns": len(frame),
        "protected": cfg.combinations, "verified": verified, "baseline": baseline,
        "pattern_groupby": t_patterns, "core": core, "core_times": times, "map": t_map,
        "map_rows": len(smap), "phase1": s.phase1_seconds, "phase2": s.phase2_seconds,
        "passes": s.passes, "cells": s.cells, "cells_pct": cells,
        "cols": {c: suppressed_share(result, c) * 100 for c in qcols},
        "rss_core": rss_core, "traced": traced, "by": by,
    }


def dbt_release(tau: float) -> dict[str, Any]:
    """The headline release for ``demo/`` (QI names = source columns or extra levels)."""
    days = [0, 1, 2, 3, 4, 5, 6, 7, *range(14, 176, 7)]
    return {
        "name": "seed000_bench",
        "source": "discharge_abstracts",
        "record_id": "abstract_id",
        "direct_identifiers": ["health_card_number", "patient_name"],
        "pass_through": ["discharge_disposition"],
        "excluded": ["admission_date", "total_cost_cad"],
        "max_suppression": 1.0,
        "missing_label": "<missing>",
        "quasi_identifiers": {
            "province": {"hierarchy": "province_hierarchy", "level": 1},
            "los_days": {"rule": {"type": "interval", "levels": [
                {"breaks": days, "top_code": 182},
                {"width": 7, "top_code": 182, "label": "index"}]}, "level": 2},
            "age": {"rule": {"type": "interval", "levels": [{"width": 5, "top_code": 90}]},
                    "level": 1},
            "gender": {"hierarchy": "gender_hierarchy", "level": 0},
            "mrdx": {},
            "cmg": {},
            "diag_block": {"column": "mrdx", "hierarchy": "diagnosis_hierarchy", "level": 2},
            "diag_chapter": {"column": "mrdx", "hierarchy": "diagnosis_hierarchy", "level": 3},
            "cci_code": {},
            "short_cci": {"column": "cci_code", "rule": {"type": "prefix",
                                                         "levels": [{"length": 7}]}, "level": 1},
        },
        "hierarchical_qis": FAMILIES,
        "demographics": ["province", "los_days", "age", "gender"],
        "tau": tau,
    }


#: One `dbt build`, as a user runs it: the source models (generator, hierarchies, seeds) and
#: the release. The package's other features (longitudinal claims, text risk, the OLA search)
#: are not part of this release and need their own configuration: excluded (the OLA folder's
#: models by name; the search nodes the report reads are a part of ``deid_report_inputs``,
#: built for every release, with no row when the levels are set, as here).
RELEASE_SELECTION = ["--select", "discharge_abstracts", "diagnosis_hierarchy",
                     "province_hierarchy", "gender_hierarchy", "package:dbt_deid",
                     "--exclude", "tag:deid_claims", "tag:deid_text",
                     "dbt_deid.ola.deid_ola_levels", "dbt_deid.ola.deid_ola_patterns",
                     "dbt_deid.ola.deid_ola_search"]


def dbt_bench(rows: int, workdir: Path) -> dict[str, Any]:
    """Build ``demo/`` at ``rows`` records: source models, then the release; verify it."""
    release = dbt_release(0.05)
    cfg = parse_release(release)
    db = workdir / "dbt.duckdb"
    variables = json.dumps({"demo_rows": rows, "demo_seed": SEED, "deid_release": release})
    env = {**os.environ, "DBT_DEID_DUCKDB_PATH": str(db), "DBT_SEND_ANONYMOUS_USAGE_STATS": "0"}
    common = ["--profiles-dir", "profiles", "--target-path", str(workdir / "target"),
              "--log-path", str(workdir / "logs"), "--vars", variables]
    cmd = [DBT, "build", *RELEASE_SELECTION, *common]
    out: dict[str, Any] = {"commands": [], "db": db}
    log("dbt: build (source models and release)")
    code, sec, rss, text = run_child(cmd, cwd=DEMO, env=env, out=workdir / "dbt_build.log")
    shown = " ".join(shlex.quote(c) for c in cmd[1:]).replace(shlex.quote(variables), "'<vars>'")
    out["commands"].append(f"cd demo && DBT_DEID_DUCKDB_PATH=... dbt {shown}")
    out["whole"] = (sec, rss, code)
    if code != 0:
        print(text[-4000:])
        raise SystemExit(f"dbt build failed, log: {workdir / 'dbt_build.log'}")
    log(f"dbt: build took {sec:.1f}s (peak RSS {gib(rss)})")
    run = json.loads((workdir / "target" / "run_results.json").read_text())
    nodes = sorted(((r["unique_id"].split(".")[-1], r["unique_id"].split(".")[1],
                     float(r["execution_time"])) for r in run["results"]), key=lambda x: -x[2])
    out["dbt_elapsed"] = float(run["elapsed_time"])
    out["release_nodes"] = [(n, t) for n, pkg, t in nodes if pkg == "dbt_deid"]
    out["source_nodes"] = [(n, t) for n, pkg, t in nodes if pkg != "dbt_deid"]
    out["vars"] = variables
    # Independent verification of the published table (seed 000: every verified combination).
    log("dbt: verifying the published table with check_release")
    t = time.perf_counter()
    checks = []
    with duckdb.connect(str(db), read_only=True) as con:
        # published, working and raw (the demo's sources) schemas
        con.execute("set search_path = 'main,main_deid_work,main_raw'")
        released = cfg.released_qis()
        pub_cols = [c for c in con.execute("select * from deid_published limit 0").df().columns]
        missing = [q for q in released if q not in pub_cols]
        sel = ", ".join(released)
        diff = con.execute(
            f"select (select count(*) from (select {sel} from deid_published except all"
            f" select {sel} from deid_suppressed)) + (select count(*) from (select {sel} from"
            f" deid_suppressed except all select {sel} from deid_published))").fetchone()
        n_pub, n_src = con.execute("select (select count(*) from deid_published),"
                                   " (select count(*) from discharge_abstracts)").fetchone()
        leaks = {}
        for src, dst in cfg.propagation():
            leaks[f"{src}->{dst}"] = con.execute(
                f"select count(*) from deid_published where {src} is null"
                f" and {dst} is not null").fetchone()[0]
        for b in cfg.verified_combinations():
            truth_sel = ", ".join(f"{q}__generalized as t__{q}" for q in b)
            pub_sel = ", ".join(f"{q} as p__{q}" for q in b)
            agg = con.execute(f"select {truth_sel}, {pub_sel}, count(*) as n from deid_suppressed"
                              " group by all").df()
            truth = agg[[f"t__{q}" for q in b]].set_axis(list(b), axis=1)
            pub = agg[[f"p__{q}" for q in b]].set_axis(list(b), axis=1)
            checks += check_release(truth, pub, [b], cfg.k, agg["n"].to_numpy())
    out["verify_seconds"] = time.perf_counter() - t
    out["checks"] = checks
    out["missing_columns"] = missing
    out["published_vs_suppressed_diff"] = diff[0]
    out["rows"] = (n_pub, n_src)
    out["leaks"] = leaks
    return out


# --------------------------------------------------------------------------------------------
# 3-5


def k_sweep(frame: pd.DataFrame) -> list[tuple[int, str, float, float, float, int]]:
    rows = []
    for k in K_VALUES:
        for algo in ("combinations", "complete"):
            log(f"figures 8-10: k = {k}, {algo}")
            res, sec = run_core(frame, core_release(HEADLINE_DEMOGRAPHICS, 0.05), algo, k=k)
            s = res.stats
            rows.append((k, algo, s.phase1_seconds, s.phase2_seconds, sec, s.cells))
    return rows


def sampling(con: duckdb.DuckDBPyConnection, cols: Sequence[str]
             ) -> tuple[list[tuple[float, int, int, float, float]], dict[str, float]]:
    rows = []
    release = core_release(HEADLINE_DEMOGRAPHICS, 0.2)  # k = 5
    for f in FRACTIONS:
        where = "" if f >= 1 else f"where hash(abstract_id) % 1000000 < {int(f * 1_000_000)}"
        frame = patterns(con, cols, where)
        n = int(frame["n"].sum())
        secs = []
        for algo in ("combinations", "complete"):
            log(f"figure 11: fraction {f:.1f} ({n} records), {algo}")
            secs.append(run_core(frame, release, algo)[1])
        rows.append((f, n, len(frame), secs[0], secs[1]))
    x = np.log([r[1] for r in rows])
    slopes = {algo: float(np.polyfit(x, np.log([r[3 + i] for r in rows]), 1)[0])
              for i, algo in enumerate(("combinations", "complete"))}
    return rows, slopes


def info_loss(con: duckdb.DuckDBPyConnection, table: str
              ) -> tuple[list[str], list[tuple[str, float, str]], dict[tuple, dict[str, float]]]:
    """Table 9 (geographic) or Table 10 (clinical) analogue."""
    if table == "9":
        variants = [("PROV_ALL", "prov_all"), ("PROV_REGION", "region")]
        original = "prov_all"
    else:
        variants = [("LOS_DAYS", "los_days"), ("LOS_WEEKS", "los_weeks")]
        original = "los_days"
    results: dict[tuple, dict[str, float]] = {}
    col_names: list[str] = []
    for vname, vcol in variants:
        demo = ["gender", "age_group", vcol]
        qcols = [*demo, *DIAGNOSIS, *INTERVENTION]
        cols = qcols + ([original] if original != vcol else [])
        frame = patterns(con, cols)
        col_names = ["gender", "age_group", "XXX", *DIAGNOSIS, *INTERVENTION]
        freqs = entropy_inputs(frame, qcols, {vcol: original})
        for tau in TAUS:
            for algo in ("combinations", "complete"):
                log(f"table {table}: {vname}, tau {tau}, {algo}")
                res, sec = run_core(frame, core_release(demo, tau), algo)
                shares = {("XXX" if c == vcol else c): suppressed_share(res, c) * 100
                          for c in qcols}
                shares["cells"] = sum(shares.values()) / len(qcols)
                shares["entropy"] = entropy(res, freqs)
                shares["seconds"] = sec
                results[(vname, tau, algo)] = shares
    base = results[(variants[1][0], 0.05, "combinations")]["entropy"]
    for r in results.values():
        r["entropy_pct"] = r["entropy"] / base * 100
    return col_names, [(v, t, a) for v, _ in variants for t in TAUS
                       for a in ("combinations", "complete")], results


# --------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=PAPER_ROWS)
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_ROWS} records")
    ap.add_argument("--repeat", type=int, default=None, help="repetitions of the headline")
    ap.add_argument("--skip-dbt", action="store_true")
    ap.add_argument("--skip-tables", action="store_true")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--generate-into", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    rows = QUICK_ROWS if args.quick else args.rows
    if args.generate_into is not None:
        generate_into(args.generate_into, rows)
        return
    command = "python bench/bench_seed000.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    repeat = args.repeat or (3 if rows <= 500_000 else 2)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_seed000_"))
    workdir.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    db = workdir / "bench.duckdb"
    if db.exists():
        db.unlink()

    log(f"generating {rows} records into {db}")
    code, sec, gen_rss, text = run_child(
        [sys.executable, __file__, "--rows", str(rows), "--generate-into", str(db)])
    if code != 0:
        raise SystemExit(text)
    gen = json.loads(text.strip().splitlines()[-1])
    log(f"generated in {sec:.1f}s ({gen})")
    con = duckdb.connect(str(db))
    con.execute("set threads = 2")

    print(f"# seed 000 benchmark: {rows} synthetic discharge abstracts (seed {SEED})")
    print(f"workdir {workdir}; command: {command}")
    print(f"generate_discharges {gen['generate']:.1f}s, load into DuckDB {gen['load']:.1f}s,"
          f" SQL generalization {gen['generalize']:.1f}s; child peak RSS {gib(gen_rss)}")
    for c in ("prov_all", "region", "los_days", "los_weeks", "age_group", "gender", "mrdx",
              "cmg", "diag_block", "diag_chapter", "cci_code", "short_cci"):
        n = con.execute(f"select count(distinct {c}) from gen").fetchone()[0]
        print(f"  {c:<13} {n:>6} categories")

    h = headline(con, repeat, trace=rows <= 500_000)
    ratio = h["core"] / h["baseline"]
    print("\n## Headline: recommended setting (region, LOS weeks, age group, gender;"
          f" adversary at CMG and short CCI; k = {h['k']})")
    print(f"records {h['records']}, pattern table {h['patterns']} rows"
          f" (GROUP BY {h['pattern_groupby']:.2f}s)")
    print(f"protected combinations: {[list(b) for b in h['protected']]}")
    print(f"verified combinations:  {[list(b) for b in h['verified']]}")
    print(f"DuckDB baseline (GROUP BY of the {len(h['verified'])} verified combinations,"
          f" best of {repeat}): {h['baseline']:.3f}s")
    print(f"core run_suppression (best of {repeat}: "
          f"{', '.join(f'{x:.2f}' for x in h['core_times'])}s): {h['core']:.2f}s"
          f" = phase 1 {h['phase1']:.2f}s + phase 2 {h['phase2']:.2f}s + encoding;"
          f" {h['passes']} passes; ratio {ratio:.1f}x")
    print(f"suppression_map(): {h['map']:.2f}s, {h['map_rows']} rows")
    traced = ("not run at this scale (slow: it traces every Python allocation; see --quick)"
              if h["traced"] is None else gib(h["traced"]))
    print(f"peak RSS of this process after the core: {gib(h['rss_core'])};"
          f" tracemalloc peak of one core run: {traced}")
    print(f"cells suppressed {h['cells']} ({h['cells_pct']:.2f}% of QI cells)")
    print(fmt_table(["column", "% records suppressed"],
                    [(c, f"{v:.3f}") for c, v in h["cols"].items()]))
    for c, title in (("region", "Table 11"), ("age_group", "Table 12"),
                     ("los_weeks", "Table 13")):
        g = h["by"][c]
        g = g.loc[sorted(g.index, key=_label_key)]
        print(f"\n{title} analogue: % of records with CMG suppressed by {c}")
        print(fmt_table([c, "% of file", "CMG % missing"],
                        [(i, f"{r.share:.1f}", f"{r.missing:.1f}") for i, r in g.iterrows()]))

    dbt = None
    if not args.skip_dbt:
        dbt = dbt_bench(rows, workdir)
        whole_s, whole_rss, _ = dbt["whole"]
        src_work = sum(t for _, t in dbt["source_nodes"])
        rel_work = sum(t for _, t in dbt["release_nodes"])
        print("\n## dbt build of demo/ at the same scale (headline release, tau 0.05)")
        for c in dbt["commands"]:
            print(f"  {c}")
        print(f"whole dbt build (one command: parse, generate {rows} records, hierarchies, seeds,"
              f" release models and their tests): {whole_s:.1f}s wall, dbt elapsed"
              f" {dbt['dbt_elapsed']:.1f}s, peak RSS {gib(whole_rss)}")
        print(f"node time (2 threads overlap): source models {src_work:.1f}s, release models"
              f" and tests {rel_work:.1f}s")
        print("slowest release nodes (run_results.json execution_time):")
        print(fmt_table(["node", "seconds"],
                        [(n, f"{t:.1f}") for n, t in dbt["release_nodes"][:10]]))
        print(f"independent verification (check_release per verified combination):"
              f" {dbt['verify_seconds']:.1f}s")
        print(f"  published rows {dbt['rows'][0]} / source rows {dbt['rows'][1]};"
              f" released columns missing: {dbt['missing_columns'] or 'none'};"
              f" deid_published vs deid_suppressed differing rows:"
              f" {dbt['published_vs_suppressed_diff']}")
        print(f"  propagation leaks (coarse suppressed, finer level shown): {dbt['leaks']}")
        print(fmt_table(
            ["combination", "smallest class", "small classes", "min consistent",
             "records < k (exact)", "ok"],
            [("+".join(c.combination), c.smallest_class, c.small_classes, c.min_consistent,
              c.records_below_k_exact, "yes" if c.ok else "NO") for c in dbt["checks"]]))

    cols = parse_release(h["release"], partial=True).qi_names
    frame = patterns(con, cols)
    sweep = k_sweep(frame)
    print("\n## Figures 8-10: core time per phase against k (headline release)")
    print(fmt_table(["k", "algorithm", "phase 1 s", "phase 2 s", "total s", "cells"],
                    [(k, a, f"{p1:.2f}", f"{p2:.2f}", f"{t:.2f}", c)
                     for k, a, p1, p2, t, c in sweep]))
    del frame

    samp, slopes = sampling(con, cols)
    print("\n## Figure 11: core time against records (k = 5)")
    print(fmt_table(["fraction", "records", "patterns", "combinations s", "complete s"],
                    [(f"{f:.1f}", n, p, f"{a:.2f}", f"{b:.2f}") for f, n, p, a, b in samp]))
    print("scaling exponent (log-log least squares, time ~ records^e): "
          + ", ".join(f"{a} {e:.2f}" for a, e in slopes.items()))

    tables: dict[str, Any] = {}
    if not args.skip_tables:
        for tab in ("9", "10"):
            names, keys, res = info_loss(con, tab)
            tables[tab] = (names, keys, res)
            title = "geographic file" if tab == "9" else "clinical file"
            print(f"\n## Table {tab} analogue ({title}): % of records suppressed per column")
            headers = ["column", *[f"{v} {t} {'comb' if a == 'combinations' else 'compl'}"
                                   for v, t, a in keys]]
            body = [[n, *[f"{res[key][n]:.2f}" for key in keys]] for n in names]
            body.append(["Total % cells", *[f"{res[key]['cells']:.2f}" for key in keys]])
            body.append(["Entropy (%)", *[f"{res[key]['entropy_pct']:.0f}" for key in keys]])
            body.append(["core s", *[f"{res[key]['seconds']:.1f}" for key in keys]])
            print(fmt_table(headers, body))

    # Targets
    full = rows >= PAPER_ROWS
    peak = max(maxrss_bytes(), gen_rss, dbt["whole"][1] if dbt else 0)
    targets = [
        (f"core <= 10x DuckDB baseline (k=20, {rows} records)", f"{ratio:.1f}x", ratio <= 10),
        ("peak memory <= 4 GiB (max of bench, generator and dbt processes)", gib(peak),
         peak <= 4 * GIB),
        ("scaling exponent <= 1.1 (combinations)", f"{slopes['combinations']:.2f}",
         slopes["combinations"] <= 1.1),
    ]
    if dbt:
        whole = dbt["whole"][0]
        targets.append(("whole dbt build <= 60 s", f"{whole:.1f}s", whole <= 60))
        targets.append(("published table verified (all combinations)",
                        "all ok" if all(c.ok for c in dbt["checks"]) else "FAILED",
                        all(c.ok for c in dbt["checks"])))
    findings = []
    for tab, (_names, keys, res) in tables.items():
        for v, t, _a in keys[::2]:
            comb, compl = res[(v, t, "combinations")], res[(v, t, "complete")]
            fewer = comb["cells"] < compl["cells"]
            lower = comb["entropy"] < compl["entropy"]
            findings.append((tab, v, t, comb["cells"], compl["cells"], comb["entropy_pct"],
                             compl["entropy_pct"], fewer, lower))
    print("\n## Targets")
    note = "" if full else f" (at {rows} records; the targets are stated for {PAPER_ROWS})"
    for name, value, ok in targets:
        print(f"{'PASS' if ok else 'MISS'}  {name}: {value}{note}")
    if findings:
        print("\n## Combinations vs complete (cells %, entropy %)")
        print(fmt_table(["table", "file", "tau", "comb cells", "compl cells", "comb entropy",
                         "compl entropy", "comb fewer cells", "comb lower entropy"],
                        [(a, b, c, f"{d:.2f}", f"{e:.2f}", f"{f:.0f}", f"{g:.0f}",
                          "yes" if x else "NO", "yes" if y else "NO")
                         for a, b, c, d, e, f, g, x, y in findings]))
        bad = [f for f in findings if not (f[7] and f[8])]
        if bad:
            print(f"NOTE: in {len(bad)} of {len(findings)} settings the combinations algorithm"
                  " does not suppress fewer cells AND give lower entropy than complete.")
        else:
            print("combinations suppress fewer cells and give lower entropy in every setting.")

    # the figures of docs/performance.md
    print("\n## Figures (docs/performance.md)\n")
    print(f"Produced by `{command}` ({rows} records, {time.strftime('%Y-%m-%d')},"
          f" {os.cpu_count()} cores).\n")
    rows_md = [
        ("DuckDB GROUP BY, verified combinations (baseline)", f"{h['baseline']:.2f} s"),
        ("core run_suppression, k = 20", f"{h['core']:.2f} s ({ratio:.1f}x baseline)"),
        ("  phase 1 / phase 2", f"{h['phase1']:.2f} s / {h['phase2']:.2f} s"),
        ("cells suppressed (headline)", f"{h['cells_pct']:.2f} %"),
        ("peak RSS (bench process)", gib(h["rss_core"])),
        ("scaling exponent (k = 5, combinations / complete)",
         f"{slopes['combinations']:.2f} / {slopes['complete']:.2f}"),
    ]
    if dbt:
        rows_md += [
            ("dbt build, whole (one command, wall)", f"{dbt['whole'][0]:.1f} s"),
            ("dbt build, node time of source / release models",
             f"{sum(t for _, t in dbt['source_nodes']):.1f} s /"
             f" {sum(t for _, t in dbt['release_nodes']):.1f} s"),
            ("verified combinations (check_release)",
             f"{sum(c.ok for c in dbt['checks'])}/{len(dbt['checks'])} ok"),
        ]
    for tab, (_names, _keys, res) in tables.items():
        v = "PROV_REGION" if tab == "9" else "LOS_WEEKS"
        paper = PAPER_T9 if tab == "9" else PAPER_T10
        r, c = res[(v, 0.05, "combinations")], res[(v, 0.05, "complete")]
        rows_md.append((f"Table {tab} {v} tau 0.05: % cells comb / complete (paper)",
                        f"{r['cells']:.1f} / {c['cells']:.1f}"
                        f" ({paper['cells']} / {paper['complete_cells']})"))
        rows_md.append((f"Table {tab} {v} tau 0.05: % CMG suppressed comb (paper)",
                        f"{r['cmg']:.1f} ({paper['cmg']})"))
    print(md_table(["measure", "value"], rows_md))
    print()
    print(md_table(["target", "value", "result"],
                   [(n, v, "PASS" if ok else "MISS") for n, v, ok in targets]))
    print(f"\ntotal bench time {time.perf_counter() - t_start:.0f}s")
    log("done")


if __name__ == "__main__":
    main()
