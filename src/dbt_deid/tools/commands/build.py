"""``python -m dbt_deid build [dbt arguments]``: build, gate and publish on any dbt adapter.

Where the adapter runs dbt Python models (DuckDB, Snowflake, Databricks, BigQuery) this is
``dbt build`` through dbt's ``dbtRunner``; elsewhere (PostgreSQL, Spark) the graph is built in
segments and dbt_deid computes the Python models from their refs through the adapter's own
connection (:mod:`dbt_deid.dbt_side.engine.segmented`). Every argument after ``build`` that is not
``--python-nodes`` goes to dbt unchanged.
"""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from dbt_deid.dbt_side.engine.segmented import run_build

    return run_build(list(args.dbt_args), python_nodes=args.python_nodes)


def register(sub: argparse._SubParsersAction) -> None:
    from dbt_deid.dbt_side.engine.segmented import register_arguments

    p = sub.add_parser(
        "build", help="dbt build on any adapter; computes the Python models where dbt cannot",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    register_arguments(p)
    p.set_defaults(dbt_args=[])
    p.set_defaults(func=run)
