"""``python -m dbt_deid add-release``: write the models of an extra discharge release.

    python -m dbt_deid add-release NAME --models-dir models/deid_NAME [--with FEATURE] [--check]

NAME is a key of the project's var ``deid_releases`` (its settings' ``name``). The files
(``NAME__<package model>.sql`` / ``.py`` and ``NAME__deid_release.yml``) are generated from the
installed dbt package (``dbt_packages/dbt_deid`` after ``dbt deps``, or ``--package-dir``):
commit them, and re-run after upgrading the package or changing which optional models the
release declares. Only the models the release's settings need are written: the optional ones
(the OLA search, the small areas, the population risk and uniqueness, the sample file, the
algorithm comparison) when the release's settings in ``dbt_project.yml`` declare what enables
them, or ``--with`` names them (settings given at run time with ``--vars``; without
``--with``, a release not declared in ``dbt_project.yml`` keeps the optional models its YAML
lists, those of the last run). ``--check``
writes nothing and exits 1 when a file is missing, extra or out of date, saying what to do
(for CI). docs/projects.md, "Several releases in one project".
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dbt_deid.dbt_side.releases import (
    OPTIONAL_MODELS,
    find_package_dir,
    project_release_settings,
    recorded_features,
    release_features,
    release_file_problems,
    write_release_files,
)


def _command(args: argparse.Namespace) -> str:
    extra = "".join(f" --with {f}" for f in OPTIONAL_MODELS if f in (args.with_models or []))
    return f"python -m dbt_deid add-release {args.name} --models-dir {args.models_dir}{extra}"


def _run(args: argparse.Namespace) -> int:
    project = Path(args.project_dir)
    package = find_package_dir(project, args.package_dir and Path(args.package_dir))
    models_dir = project / args.models_dir
    settings = project_release_settings(project, args.name)
    features = release_features(settings) | set(args.with_models or [])
    if settings is None:
        recorded = recorded_features(models_dir, args.name)
        if not args.with_models and recorded:
            features = recorded
            args.with_models = sorted(recorded)
            how = (f" and, as its YAML lists, those of --with {', '.join(sorted(recorded))}"
                   " (give --with to change them)")
        else:
            how = (f" and those of --with {', '.join(sorted(args.with_models))}"
                   if args.with_models else "")
        print(f"release {args.name}: not declared in {project / 'dbt_project.yml'} (var"
              f" deid_releases): the models every release builds{how}")
    if args.check:
        problems = release_file_problems(package, args.name, models_dir, features)
        for _, message in problems:
            print(message)
        if problems:
            print(f"re-run: {_command(args)}")
        return 1 if problems else 0
    changed = write_release_files(package, args.name, models_dir, features)
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
    p.add_argument("--with", dest="with_models", action="append", default=[],
                   choices=list(OPTIONAL_MODELS), metavar="FEATURE",
                   help="also write the optional models of FEATURE, for settings given at run"
                        " time (--vars): " + "; ".join(
                            f"{f} ({s})" for f, (s, _) in OPTIONAL_MODELS.items()))
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 when a file is missing, extra or out of date")
    p.set_defaults(func=_run)
