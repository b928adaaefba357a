"""``python -m dbt_deid add-release``: write the models of an extra discharge release.

    python -m dbt_deid add-release NAME --models-dir models/deid_NAME [--check]

NAME is a key of the project's var ``deid_releases`` (its settings' ``name``). The files
(``NAME__<package model>.sql`` / ``.py`` and ``NAME__deid_release.yml``) are generated from the
installed dbt package (``dbt_packages/dbt_deid`` after ``dbt deps``, or ``--package-dir``):
commit them, and re-run after upgrading the package. ``--check`` writes nothing and exits 1
when the files differ from what the package generates (for CI). docs/projects.md, "Several
releases in one project".
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dbt_deid.dbt_side.releases import check_release_files, find_package_dir, write_release_files


def _run(args: argparse.Namespace) -> int:
    package = find_package_dir(Path(args.project_dir), args.package_dir and Path(args.package_dir))
    models_dir = Path(args.project_dir) / args.models_dir
    if args.check:
        stale = check_release_files(package, args.name, models_dir)
        for name in stale:
            print(f"out of date: {models_dir / name}")
        if stale:
            print(f"re-run: python -m dbt_deid add-release {args.name} --models-dir"
                  f" {args.models_dir}")
        return 1 if stale else 0
    changed = write_release_files(package, args.name, models_dir)
    print(f"release {args.name}: {len(changed)} file(s) written or removed in {models_dir}"
          + ("" if changed else " (already up to date)"))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("add-release", help="write the models of an extra discharge release"
                       " (var deid_releases)", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", help="the release name (its key in var deid_releases)")
    p.add_argument("--models-dir", required=True,
                   help="folder for the release's models, relative to --project-dir"
                        " (e.g. models/deid_NAME)")
    p.add_argument("--project-dir", default=".", help="the dbt project (default: here)")
    p.add_argument("--package-dir", default=None,
                   help="the dbt_deid dbt package (default: <project>/dbt_packages/dbt_deid)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 when the files are out of date")
    p.set_defaults(func=_run)
