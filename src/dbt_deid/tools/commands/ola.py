"""``python -m dbt_deid ola``: OLA's globally optimal generalization on a CSV file."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from dbt_deid.errors import ConfigError
from dbt_deid.ola.budget import DEFAULT_HEURISTIC_SECONDS, DEFAULT_MAX_NODES, SearchBudget
from dbt_deid.ola.hierarchies import Hierarchy
from dbt_deid.ola.metrics import DEFAULT_METRIC, METRICS
from dbt_deid.ola.run import SEARCHES, run_ola
from dbt_deid.tools.pattern_csv import count_column_name, csv_header, read_patterns


def _pairs(items: list[str], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        col, sep, value = item.partition("=")
        if not sep or not col or not value:
            raise ConfigError(f"{option} expects COLUMN=VALUE, got {item!r}")
        if col in out:
            raise ConfigError(f"{option} names column {col!r} twice")
        out[col] = value
    return out


def _max_levels(items: list[str]) -> dict[str, int]:
    out = {}
    for col, value in _pairs(items, "--max-level").items():
        try:
            out[col] = int(value)
        except ValueError as exc:
            raise ConfigError(f"--max-level {col}={value!r}: the level must be an integer") from exc
    return out


def _lattice_shape(hierarchies: dict[str, Hierarchy], max_levels: dict[str, int]
                   ) -> tuple[int, tuple[int, ...], tuple[str, ...]]:
    """Lattice size, level counts and names, to check the node budget before reading more."""
    shape = tuple(min(max_levels.get(c, h.height), h.height) + 1 for c, h in hierarchies.items())
    return math.prod(shape), shape, tuple(hierarchies)


def run(args: argparse.Namespace) -> int:
    if args.k < 2:
        raise ConfigError(f"--k must be >= 2, got {args.k}")
    if not 0 <= args.max_suppression <= 1:
        raise ConfigError(f"--max-suppression must be in [0, 1], got {args.max_suppression}")
    paths = _pairs(args.hierarchy, "--hierarchy")
    header = csv_header(args.input, args.delimiter)
    unknown = [c for c in paths if c not in header]
    if unknown:
        raise ConfigError(
            f"--hierarchy names unknown column(s) {unknown}; {args.input} has {header}"
        )
    max_levels = _max_levels(args.max_level)
    extra = [c for c in max_levels if c not in paths]
    if extra:
        raise ConfigError(f"--max-level names column(s) {extra} that have no --hierarchy")
    hierarchies = {
        c: Hierarchy.from_csv(c, Path(p), args.hierarchy_delimiter or args.delimiter)
        for c, p in paths.items()
    }
    budget = SearchBudget(max_nodes=args.max_nodes, max_seconds=args.max_seconds, setting="--",
                          heuristic_seconds=args.heuristic_seconds,
                          heuristic_nodes=args.heuristic_nodes)
    size, shape, names = _lattice_shape(hierarchies, max_levels)
    if not budget.use_heuristic(size):
        budget.check_lattice(size, shape, names)  # before any node
    # only the QI columns, grouped to the pattern table while reading (pattern_csv)
    count = count_column_name(list(paths))
    patterns = read_patterns(args.input, list(paths), args.delimiter, count)
    combos = [[c.strip() for c in item.split(",")] for item in args.combination]
    unknown = sorted({c for combo in combos for c in combo if c not in paths})
    if unknown:
        raise ConfigError(f"--combination names column(s) {unknown} that have no --hierarchy")
    result = run_ola(
        patterns, hierarchies, args.k, args.max_suppression, args.metric, max_levels,
        count_column=count, all_metrics=args.all_metrics, budget=budget,
        search=args.search, combinations=combos or None,
    )
    if args.risk_utility:
        from dbt_deid.report.risk_utility import risk_utility_svg

        out = Path(args.risk_utility)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(risk_utility_svg(result.trace_frame(), list(result.names)) + "\n",
                       encoding="utf-8")
    json.dump(result.to_dict(), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0 if result.chosen is not None else 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ola",
        help="OLA: globally optimal generalization + suppression (El Emam et al. 2009)",
        description="Find the k-minimal generalization nodes (every class of size >= k after"
        " suppressing at most MaxSup of the records) and the passing node with the least"
        " information loss in the whole lattice (with suppression it can lie above the"
        " k-minimal nodes; the best k-minimal node is reported too). Beyond --max-nodes a"
        " heuristic search (Lightning) runs within --heuristic-seconds; the JSON's \"search\""
        " says optimal or heuristic. Prints JSON; exits 1 when no node passes. -v logs"
        " progress (nodes done / planned, elapsed) to stderr.",
    )
    p.add_argument("--input", required=True, help="CSV file, one record per row, with a header")
    p.add_argument("--delimiter", default=",", help="field delimiter of the input (default ',')")
    p.add_argument("--hierarchy", action="append", required=True, metavar="COLUMN=FILE",
                   help="hierarchy CSV of a QI (no header, original;level1;...); repeat per QI")
    p.add_argument("--hierarchy-delimiter", default=None,
                   help="field delimiter of the hierarchy files (default: --delimiter)")
    p.add_argument("--k", type=int, required=True, help="minimum class size (k >= 2)")
    p.add_argument("--max-suppression", type=float, required=True,
                   help="MaxSup: largest share of records that may be suppressed, in [0, 1]")
    p.add_argument("--metric", choices=METRICS, default=DEFAULT_METRIC,
                   help=f"information loss to minimize (default {DEFAULT_METRIC})")
    p.add_argument("--max-level", action="append", default=[], metavar="COLUMN=L",
                   help="maximum acceptable generalization level of a QI (El Emam et al. 2009"
                        " (CJHP) Table 2)")
    p.add_argument("--combination", action="append", default=[], metavar="QI,QI,...",
                   help="a protected combination of QIs (repeat per combination): a node passes"
                   " when the records in a class smaller than k on any combination are at most"
                   " MaxSup (default: one class over all QIs, OLA's own criterion)")
    p.add_argument("--all-metrics", action="store_true",
                   help="report every metric for every k-minimal node")
    p.add_argument("--max-nodes", type=int, default=DEFAULT_MAX_NODES,
                   help="largest lattice the optimal search takes; above it the heuristic"
                   f" search runs (default {DEFAULT_MAX_NODES:,})")
    p.add_argument("--heuristic-seconds", type=float, default=DEFAULT_HEURISTIC_SECONDS,
                   help="beyond --max-nodes: time budget of the heuristic search, which"
                   f" returns its best node (default {DEFAULT_HEURISTIC_SECONDS:g}, as ARX)")
    p.add_argument("--heuristic-nodes", type=int, default=None,
                   help="beyond --max-nodes: node budget of the heuristic search (the same"
                   " node on every machine; default no limit)")
    p.add_argument("--max-seconds", type=float, default=None,
                   help="stop with an error when the search runs longer (default: no limit)")
    p.add_argument("--search", choices=SEARCHES[:2], default="paths",
                   help="traversal finding the k-minimal nodes: paths (default) or ola (the"
                   " paper's sub-lattice bisection); both give the same nodes")
    p.add_argument("--risk-utility", default=None, metavar="FILE.svg",
                   help="also write the risk-utility picture: every node evaluated (the first"
                   " 2,000 and the released one), records suppressed against information loss,"
                   " the released node marked (standalone SVG, levels and figures only)")
    p.set_defaults(func=run)
