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


#: Sub-commands that hand every argument they do not own to dbt, and their own options.
_DBT_COMMANDS = {"build": ("--python-nodes",), "advise": ("--python-nodes", "--release")}


def _split_build_args(rest: list[str], options: Sequence[str] = ("--python-nodes",)
                      ) -> tuple[list[str], list[str]]:
    """The sub-command's own options (``--python-nodes X``) and the dbt arguments."""
    own: list[str] = []
    dbt_args: list[str] = []
    i = 0
    while i < len(rest):
        if rest[i] in options and i + 1 < len(rest):
            own += rest[i:i + 2]
            i += 2
            continue
        if any(rest[i].startswith(f"{o}=") for o in options):
            own.append(rest[i])
        else:
            dbt_args.append(rest[i])
        i += 1
    return own, dbt_args


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    if command in _DBT_COMMANDS:
        # `build` and `advise` hand every argument after them to dbt (options included), so
        # parse only ours
        at = argv.index(command)
        own, dbt_args = _split_build_args(argv[at + 1:], _DBT_COMMANDS[command])
        if any(a in _HELP for a in dbt_args):  # help without parsing a dbt project
            parser.parse_args([*argv[:at], command, "--help"])
        args = parser.parse_args([*argv[:at], command, *own])
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
