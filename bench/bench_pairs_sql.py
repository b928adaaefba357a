"""Benchmark of the refresh's pairs (macros/releases/refresh_line.sql, refresh_pairs_sql, and
their reader dbt_deid.living.pairs.read_pairs) against a baseline revision: not a test.

    nice -n 10 .venv/bin/python bench/bench_pairs_sql.py [--rows 100000] [--versions 2 5 30]
        [--stable] [--baseline main] [--repeat 2] [--long]

A synthetic line on DuckDB in memory (the scratch bench of session 12, /tmp/s12-m1-bench): four
QIs (age 60 values, sex 2, zip 50, diagnosis 30), ``--rows`` records in each of ``--versions``
stored releases (5% of cells suppressed at random per release, 0.1% of the records with another
value in each older release; ``--stable``: the same cells suppressed in every version, as a
refresh keeps a kept record's cells), the current records 1% more. Per number of versions, the pairs
query of this tree (the form it chooses: wide up to 400 per-release columns, 4 x QIs x
versions, so wide up to 25 versions of these 4 QIs; with ``--long`` also its long form forced)
and of ``--baseline`` (its refresh_line.sql and living/pairs.py), same tables, alternated
``--repeat`` times, best kept: the query materialized as a table, then read
into pandas and through ``read_pairs``. Prints seconds, the ratios, the tables' widths, and
whether both readers give the same pairs and per-release detail (identical results). The
machine may be shared: read the ratios.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import duckdb
import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.macro_render import macro_caller  # noqa: E402

QIS = ["age", "sex", "zip", "diag"]
CARD = {"age": 60, "sex": 2, "zip": 50, "diag": 30}


def _tables(con: duckdb.DuckDBPyConnection, rows: int, versions: int, stable: bool) -> None:
    rng = np.random.default_rng(0)
    fixed = {q: rng.random(rows) < 0.05 for q in QIS}  # --stable: the same cells every version
    con.execute("create or replace table k as select 'secret' as key_value")
    con.execute("create or replace table store (release_name varchar, release_id varchar,"
                " release_version bigint, record_key varchar, "
                + ", ".join(f"{q} varchar, {q}__generalized varchar" for q in QIS) + ")")
    vals = {q: rng.integers(0, CARD[q], rows) for q in QIS}
    for v in range(1, versions + 1):
        df = pd.DataFrame({"release_id": f"r{v:03d}", "release_version": v,
                           "rid": np.arange(rows)})
        for q in QIS:
            true = vals[q].copy()
            if v < versions:
                ch = rng.random(rows) < 0.001
                true[ch] = (true[ch] + 1) % CARD[q]
            sup = fixed[q] if stable else rng.random(rows) < 0.05
            df[q] = np.where(sup, None, true.astype(str))
            df[q + "__generalized"] = np.where(sup, true.astype(str), None)
        con.register("df", df)
        con.execute("insert into store select 'line', release_id, release_version,"
                    " md5('secret' || '|' || cast(rid as varchar)), "
                    + ", ".join(f"{q}, {q}__generalized" for q in QIS) + " from df")
        con.unregister("df")
    cur = pd.DataFrame({"rid": np.arange(rows + rows // 100)})
    for q in QIS:
        cur[q] = np.concatenate([vals[q], rng.integers(0, CARD[q], rows // 100)]).astype(str)
    con.register("gen_df", cur)
    con.execute("create or replace table gen as select * from gen_df")
    con.unregister("gen_df")


def _render(macros: Path, versions: int, long: bool | None = None) -> str:
    def context(call: Any) -> dict[str, Any]:
        return {"dbt_deid": SimpleNamespace(
                    ident=lambda n: '"' + n + '"', own=lambda m: m,
                    literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                    keyed_record_hash_sql=lambda e, k: (
                        f"md5({k}.key_value || '|' || cast({e} as varchar))"),
                    line_rows_condition=lambda cfg, alias="": "release_name = 'line'",
                    refresh_pair_columns=call("refresh_pair_columns"),
                    _refresh_states_ctes=call("_refresh_states_ctes"),
                    _refresh_pairs_long=call("_refresh_pairs_long"),
                    refresh_states_split=lambda: True),
                "dbt": SimpleNamespace(type_string=lambda: "varchar",
                                       type_bigint=lambda: "bigint"),
                "adapter": SimpleNamespace(
                    dispatch=lambda name, package: call("default__" + name)),
                "execute": True}
    call = macro_caller([macros], context)
    ids = [f"r{v:03d}" for v in range(1, versions + 1)]
    line = {"store": "store", "key": "k", "previous_release_id": ids[-1], "release_ids": ids,
            "pairs_long": long}
    return str(call("default__refresh_pairs_sql")({"qi_names": QIS, "record_id": "rid"},
                                                   "gen", line))


def _module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _decoded(inp: Any) -> tuple:
    """The pairs as read (canonical order), the per-release detail as labels (codes past a
    QI's labels compared as 'other', -2 as 'conflict'): what the guard reads."""
    def text(codes: np.ndarray) -> np.ndarray:
        out = np.full(codes.shape, "", dtype=object)
        for j, lab in enumerate(inp.labels):
            c = codes[..., j]
            known = (c >= 0) & (c < len(lab))
            out[..., j][known] = lab[c[known]]
            out[..., j][c >= len(lab)] = "other"
            out[..., j][c == -2] = "conflict"
        return out
    return (inp.current.tolist(), inp.earlier.tolist(), inp.counts.tolist(),
            [inp.history_labels[h] if h >= 0 else None for h in inp.history],
            text(inp.was).tolist(), text(inp.own).tolist())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--versions", type=int, nargs="+", default=[2, 5, 30])
    parser.add_argument("--baseline", default="main", help="git revision of the baseline")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--stable", action="store_true",
                        help="the same cells suppressed in every version (as a refresh keeps"
                             " a kept record's cells), not 5%% drawn again per version")
    parser.add_argument("--long", action="store_true",
                        help="also this tree's long form forced (whatever the versions)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-pairs-") as tmp:
        files = {}
        for rel in ("macros/releases/refresh_line.sql", "src/dbt_deid/living/pairs.py"):
            text = subprocess.run(["git", "-C", str(REPO), "show", f"{args.baseline}:{rel}"],
                                  check=True, capture_output=True, text=True).stdout
            files[rel] = Path(tmp) / Path(rel).name
            files[rel].write_text(text)
        readers = {"this tree": _module(REPO / "src/dbt_deid/living/pairs.py", "pairs_new"),
                   "baseline": _module(files["src/dbt_deid/living/pairs.py"], "pairs_old")}
        macros = {"this tree": (REPO / "macros/releases/refresh_line.sql", None),
                  "baseline": (files["macros/releases/refresh_line.sql"], None)}
        if args.long:
            macros["long"] = (REPO / "macros/releases/refresh_line.sql", True)
            readers["long"] = readers["this tree"]
        con = duckdb.connect()
        print(f"bench_pairs_sql: {args.rows} records (+1% new), {len(QIS)} QIs, cells"
              f" {'the same in every version' if args.stable else 'drawn per version'},"
              f" DuckDB {duckdb.__version__}, baseline {args.baseline}")
        for versions in args.versions:
            _tables(con, args.rows, versions, args.stable)
            sql = {name: _render(path, versions, long) for name, (path, long) in macros.items()}
            best: dict[str, list[float]] = {}
            out: dict[str, Any] = {}
            shape: dict[str, tuple[int, int]] = {}
            cpu: dict[str, float] = {}  # the query's CPU (DuckDB's threads included)
            for _ in range(args.repeat):
                for name, query in sql.items():
                    t0, c0 = time.perf_counter(), time.process_time()
                    con.execute(f"create or replace table pairs as {query}")
                    t1 = time.perf_counter()
                    cpu[name] = min(cpu.get(name, float("inf")), time.process_time() - c0)
                    frame = con.execute("select * from pairs").df()
                    frame = frame.astype(object).where(frame.notna(), None)
                    out[name] = readers[name].read_pairs(frame, QIS)
                    t2 = time.perf_counter()
                    shape[name] = frame.shape
                    old = best.get(name, [float("inf")] * 2)
                    best[name] = [min(old[0], t1 - t0), min(old[1], t2 - t1)]
            same = all(_decoded(out[n]) == _decoded(out["baseline"]) for n in out)
            new, base = best["this tree"], best["baseline"]
            print(f"  {versions} stored versions: query {new[0]:.2f} s against {base[0]:.2f} s"
                  f" ({new[0] / base[0]:.2f}); read {new[1]:.2f} s against {base[1]:.2f} s"
                  f" ({new[1] / base[1]:.2f}); total {sum(new) / sum(base):.2f};"
                  f" table rows x columns {shape['this tree']} against {shape['baseline']};"
                  f" same pairs and detail: {same}")
            print(f"    query CPU {cpu['this tree']:.2f} s against {cpu['baseline']:.2f} s"
                  f" ({cpu['this tree'] / cpu['baseline']:.2f})")
            if "long" in sql:
                lw = best["long"]
                print(f"    long form forced: query CPU {cpu['long']:.2f} s"
                      f" ({cpu['long'] / cpu['baseline']:.2f}), query wall {lw[0]:.2f} s"
                      f" ({lw[0] / base[0]:.2f}), read {lw[1]:.2f} s ({lw[1] / base[1]:.2f}),"
                      f" table rows x columns {shape['long']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
