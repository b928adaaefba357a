"""``python -m dbt_deid report``: the self-contained HTML release report of a CSV file."""

from __future__ import annotations

import argparse
import sys

from dbt_deid.tools.commands.risk import add_common_arguments, build_assessment


def run(args: argparse.Namespace) -> int:
    from dbt_deid.report import write_report  # matplotlib is imported only when needed

    assessment = build_assessment(args)
    path = write_report(assessment, args.output, title=args.title)
    p = assessment.prosecutor
    print(f"wrote {path}: {p.n_records} records, max prosecutor risk {p.stats.max_risk:.4g}"
          f" (tau {assessment.tau:.4g}), {'meets' if p.ok else 'does not meet'} the threshold",
          file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="write the self-contained HTML risk report of a CSV file",
        description="Measure a release like 'risk' and write a self-contained HTML report"
        " (figures embedded, readable offline). The report shows aggregate figures only; a"
        " --by breakdown pools categories with fewer than k records.",
    )
    add_common_arguments(p)
    p.add_argument("--output", required=True, help="where to write the HTML report")
    p.add_argument("--by", default=None,
                   help="column to break suppression down by (categories < k pooled)")
    p.add_argument("--title", default=None, help="report title")
    p.set_defaults(func=run)
