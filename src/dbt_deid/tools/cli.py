"""``python -m dbt_deid``: the core outside dbt.

Sub-commands live in :mod:`dbt_deid.tools.commands`; each module there defines
``register(subparsers)`` which adds its parser and sets ``func`` (a callable taking the parsed
arguments and returning an exit code). Bad input prints one ``error:`` line and exits 2.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys
from collections.abc import Sequence

from dbt_deid import __version__
from dbt_deid.errors import DeidError
from dbt_deid.tools import commands

#: Options that print a sub-command's help: ``build --help`` shows ours, it never reaches dbt.
_HELP = ("-h", "--help")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m dbt_deid",
        description="Risk-based de-identification (El Emam et al.) outside dbt.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    parser.add_argument("--version", action="version", version=f"dbt_deid {__version__}",
                        help="print the package version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def _split_build_args(rest: list[str]) -> tuple[list[str], list[str]]:
    """``build``'s own options (``--python-nodes X``) and the dbt arguments."""
    own: list[str] = []
    dbt_args: list[str] = []
    i = 0
    while i < len(rest):
        if rest[i] == "--python-nodes" and i + 1 < len(rest):
            own += rest[i:i + 2]
            i += 2
            continue
        if rest[i].startswith("--python-nodes="):
            own.append(rest[i])
        else:
            dbt_args.append(rest[i])
        i += 1
    return own, dbt_args


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if "build" in argv and all(a.startswith("-") for a in argv[:argv.index("build")]):
        # `build` hands every argument after it to dbt (options included), so parse only ours
        at = argv.index("build")
        own, dbt_args = _split_build_args(argv[at + 1:])
        if any(a in _HELP for a in dbt_args):  # help without parsing a dbt project
            parser.parse_args([*argv[:at], "build", "--help"])
        args = parser.parse_args([*argv[:at], "build", *own])
        args.dbt_args = dbt_args
    else:
        args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(message)s",
        stream=sys.stderr,
    )
    try:
        return int(args.func(args) or 0)
    except DeidError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
