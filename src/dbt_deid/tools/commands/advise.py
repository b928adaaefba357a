"""``python -m dbt_deid advise [--release NAME] [dbt arguments]``: preview, publish nothing.

Builds the release's models up to its advice (``dbt build --select +deid_suppression_map``, or
``+NAME__deid_suppression_map`` for an extra release; on adapters without dbt Python models the
segmented build of ``python -m dbt_deid build``), which never builds the publish model, then
reads the advice rows of ``deid_suppression_map`` (the model ``deid_release_advice`` before
session 13) through the dbt adapter and prints them: MaxSup and each column's
suppression at the configured levels, per combination the records in classes smaller than k,
and, when MaxSup or a column cap fails, the nearest levels that pass (docs/advice-and-report.md).
Try a change with ``--vars`` before committing it. Every other argument goes to dbt unchanged
(``--project-dir``, ``--profiles-dir``, ``--target``, ``--vars``). Exit code: 0 when the
release would pass MaxSup and its column caps, 1 when it would be refused, 2 when the build
did not build the advice (a failing upstream node: the table left by an earlier build is then
not read, its advice being for other settings or another input).
"""

from __future__ import annotations

import argparse
from typing import Any

#: The model whose table holds the release's advice (its advice rows).
ADVICE_MODEL = "deid_suppression_map"


def _advice_node(manifest: Any, release: str | None) -> Any:
    name = f"{release}__{ADVICE_MODEL}" if release else ADVICE_MODEL
    for node in manifest.nodes.values():
        if node.resource_type == "model" and node.name == name:
            return node
    return None


def _node_status(results: list[Any], unique_id: str) -> str | None:
    """The status of node ``unique_id`` in a build's results (dbt's result objects, or the
    segmented build's dicts), None when the build did not run it."""
    for r in results:
        if isinstance(r, dict):
            uid, status = r.get("unique_id"), r.get("status")
        else:
            uid, status = getattr(getattr(r, "node", None), "unique_id", None), r.status
        if uid == unique_id:
            return str(getattr(status, "value", status))
    return None


def run(args: argparse.Namespace) -> int:
    from dbt_deid.dbt_side.engine.adapter_io import AdapterFrames
    from dbt_deid.dbt_side.engine.segmented import _run_build, parse_project, split_args

    split = split_args(list(args.dbt_args))
    parsed = parse_project(split.context)
    if not parsed.success:
        print(f"advise: ERROR dbt parse failed: {parsed.exception or ''}", flush=True)
        return 2
    node = _advice_node(parsed.result, args.release)
    if node is None:
        print(f"advise: ERROR no model {ADVICE_MODEL}"
              + (f" for release {args.release}" if args.release else "")
              + " (is var deid_release declared? for an extra release: add-release)", flush=True)
        return 2
    split.selection = ["--select", f"+{node.name}"]
    code, results = _run_build(parsed.result, split, args.python_nodes)
    built = _node_status(results, node.unique_id)
    if built != "success":
        # the table holds an earlier build's advice (other settings, another input): never
        # shown as this preview's (review 9b, H2)
        print(f"advise: ERROR this build did not build {node.name} (status {built or 'not run'},"
              f" dbt exit code {code}): no advice for these settings; an earlier build's advice"
              " is not shown; see the dbt output above", flush=True)
        return 2
    from dbt_deid.advice.text import ADVICE_PREFIX, advice_in_map

    try:
        with AdapterFrames(parsed.result) as frames:
            # the advice rows only (the map's own rows can be millions)
            advice = advice_in_map(frames.read(node, where=f"{ADVICE_PREFIX}kind is not null"))
    except Exception as exc:  # noqa: BLE001 - the table was not built
        print(f"advise: ERROR {node.name} could not be read ({type(exc).__name__}); see the"
              " dbt output above", flush=True)
        return 2
    lines = advice[advice["kind"] == "line"].sort_values("item")["message"]
    for line in lines:
        print(line, flush=True)
    status = advice[advice["kind"] == "status"]
    if not len(status):
        return 2
    return 0 if str(status["message"].iloc[0]) == "passes" else 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "advise", help="preview a release (dbt build up to deid_suppression_map; nothing"
        " published) and print what would pass", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--release", default=None,
                   help="an extra release (key of var deid_releases); default: var deid_release")
    p.add_argument("--python-nodes", choices=("auto", "dbt", "runner"), default="auto",
                   help="who runs the Python models (as for build)")
    p.set_defaults(dbt_args=[])
    p.set_defaults(func=run)
