"""``python -m dbt_deid build``: one command that builds, gates and publishes on any adapter.

On adapters with dbt Python models (DuckDB, Snowflake, Databricks, BigQuery) it is ``dbt build``
run through dbt's programmatic ``dbtRunner``. On the others (PostgreSQL, open-source Spark) the
selected graph is built in segments: every node gets the number of Python models on its longest
path from the selection's roots (its *depth*); dbt builds the SQL nodes (models, seeds, tests)
of depth 0, then this runner computes the Python models of depth 1 from their refs through the
adapter's own connection (:mod:`dbt_deid.dbt_side.engine.python_nodes`), then dbt builds the SQL
nodes of
depth 1, and so on. A node that fails, or whose test fails, blocks its descendants exactly as in
``dbt build``; the publish materialization still gates the release inside dbt. At the end the
target's ``run_results.json`` holds every segment's node results and the Python models'
(:class:`SegmentResults`), as one ``dbt build`` would have written it.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dbt_deid.dbt_side.engine.verdict import build_verdict
from dbt_deid.errors import ConfigError

log = logging.getLogger(__name__)

#: Adapters whose dbt runs Python models itself (dbt docs, "Python models"); verdict_chain_check
#: (macros/gates/verdict_binding.sql) lists them too (tests/unit/test_verdict_chain_sql.py keeps
#: the two equal): there it ignores SELECTION_ENV.
PYTHON_MODEL_ADAPTERS = frozenset({"duckdb", "snowflake", "databricks", "bigquery"})
#: dbt arguments that choose nodes: given to ``dbt ls`` once, replaced per segment.
_SELECTION = {"--select": 1, "-s": 1, "--models": 1, "-m": 1, "--exclude": 1, "--selector": 1,
              "--resource-type": 1, "--resource-types": 1, "--exclude-resource-type": 1,
              "--exclude-resource-types": 1, "--indirect-selection": 1}
#: dbt arguments that choose the project, profile and vars: given to every invocation.
_CONTEXT = {"--project-dir": 1, "--profiles-dir": 1, "--profile": 1, "--target": 1, "-t": 1,
            "--vars": 1, "--target-path": 1, "--log-path": 1}
#: The environment variable holding, during a segmented build, the unique ids of every node the
#: whole build selected (comma-separated): ``verdict_chain_check`` (macros/gates/
#: verdict_binding.sql) counts them as built in the same invocation, in a ``dbt build`` on an
#: adapter not in PYTHON_MODEL_ADAPTERS that selects only nodes it names, itself among them.
SELECTION_ENV = "DBT_DEID_SEGMENTED_SELECTION"
#: Set to 1 beside SELECTION_ENV when the build segments on an adapter that has dbt Python models
#: (``--python-nodes runner``): the macros honour SELECTION_ENV there only with it. Both are set
#: in this process for the build only, never left exported.
RUNNER_ENV = "DBT_DEID_PYTHON_NODES_RUNNER"
_BLOCKING = {"error", "fail", "skipped", "runtime error"}


@dataclass
class SplitArgs:
    context: list[str] = field(default_factory=list)
    selection: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)


def split_args(argv: Sequence[str]) -> SplitArgs:
    """Sort dbt ``build`` arguments into context, selection and the rest (``--select`` takes
    every following value up to the next option, as dbt's does)."""
    out = SplitArgs()
    i = 0
    args = list(argv)
    while i < len(args):
        arg = args[i]
        name, eq, _ = arg.partition("=")
        bucket = (out.selection if name in _SELECTION else out.context if name in _CONTEXT
                  else out.other)
        bucket.append(arg)
        i += 1
        if (name in _SELECTION or name in _CONTEXT) and not eq:
            multi = name in {"--select", "-s", "--models", "-m", "--exclude", "--resource-type",
                             "--resource-types", "--exclude-resource-type",
                             "--exclude-resource-types"}
            taken = 0
            while i < len(args) and not args[i].startswith("-") and (multi or taken == 0):
                bucket.append(args[i])
                i += 1
                taken += 1
    return out


def is_python_model(node: Any) -> bool:
    return getattr(node, "language", "sql") == "python" and node.resource_type == "model"


def node_depths(manifest: Any, selected: set[str]) -> dict[str, int]:
    """Depth of each selected node: the number of Python models on its longest path from the
    selection's roots, itself included (parents outside the selection count as built)."""
    depths: dict[str, int] = {}
    nodes = {**manifest.nodes, **getattr(manifest, "unit_tests", {})}

    def depth(uid: str, stack: frozenset[str] = frozenset()) -> int:
        if uid in depths:
            return depths[uid]
        if uid in stack:
            raise ConfigError(f"dependency cycle through {uid}")
        node = nodes[uid]
        parents = [p for p in getattr(node.depends_on, "nodes", []) if p in selected and p in nodes]
        d = max((depth(p, stack | {uid}) for p in parents), default=0)
        depths[uid] = d + (1 if is_python_model(node) else 0)
        return depths[uid]

    for uid in sorted(selected):
        if uid in nodes:
            depth(uid)
    return depths


def descendants(manifest: Any, roots: Iterable[str]) -> set[str]:
    """Every node downstream of ``roots`` (the roots included)."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        uid = todo.pop()
        if uid in seen:
            continue
        seen.add(uid)
        todo += manifest.child_map.get(uid, [])
    return seen


def selector_for(node: Any) -> str:
    """A ``--select`` value naming exactly this node (its full fqn)."""
    return "fqn:" + ".".join(node.fqn)


def _invoke(runner: Any, args: list[str]) -> Any:
    log.info("dbt %s", " ".join(args))
    return runner.invoke(args)


def parse_project(context: Sequence[str]) -> Any:
    """``dbt parse`` with the project/profile arguments ``context``: dbt's result (``success``,
    ``result`` the manifest, ``exception``), for the tools that read a project."""
    from dbt.cli.main import dbtRunner

    return dbtRunner().invoke(["parse", *context])


def run_build(argv: Sequence[str], python_nodes: str = "auto") -> int:
    """Build the project like ``dbt build argv``, then print one verdict line
    (:mod:`dbt_deid.dbt_side.engine.verdict`); see the module docstring. ``python_nodes``: ``auto``
    (dbt where the adapter has Python models), ``dbt`` or ``runner`` (force)."""
    from dbt.cli.main import dbtRunner

    split = split_args(argv)
    parsed = dbtRunner().invoke(["parse", *split.context])
    if not parsed.success:
        print(build_verdict(None, [], f"dbt parse failed: {parsed.exception or ''}"), flush=True)
        return 2
    code, results = _run_build(parsed.result, split, python_nodes)
    print(build_verdict(parsed.result, results, None if results or code == 0 else
                        "dbt stopped before building any node (see its output above)"),
          flush=True)
    return code


def _run_build(manifest: Any, split: SplitArgs, python_nodes: str) -> tuple[int, list[Any]]:
    """The build itself: (exit code, every node's result)."""
    from dbt.cli.main import dbtRunner

    adapter_type = manifest.metadata.adapter_type
    use_dbt = python_nodes == "dbt" or (python_nodes == "auto"
                                        and adapter_type in PYTHON_MODEL_ADAPTERS)
    runner = dbtRunner(manifest=manifest)
    if use_dbt:
        result = _invoke(runner, ["build", *split.context, *split.selection, *split.other])
        return (0 if result.success else 1), list(getattr(result.result, "results", None) or [])

    # the node list only: --log-level none keeps dbt ls from printing one JSON line per node
    listed = _invoke(runner, ["--log-level", "none", "ls", *split.context, *split.selection,
                              "--output", "json", "--output-keys", "unique_id"])
    if not listed.success:
        return 2, []
    import json

    all_nodes = {**manifest.nodes, **getattr(manifest, "unit_tests", {})}
    selected = {json.loads(x)["unique_id"] for x in listed.result} & set(all_nodes)
    depths = node_depths(manifest, selected)
    max_depth = max(depths.values(), default=0)
    print(f"dbt_deid build: adapter {adapter_type} has no dbt Python models here: "
          f"{len(selected)} nodes in {max_depth + 1} segments, "
          f"{sum(is_python_model(all_nodes[u]) for u in selected)} Python models computed by"
          " dbt_deid", flush=True)
    # every segment is its own dbt invocation: the models that require their upstream models
    # built with them (verdict_chain_check) read the whole build's selection from here
    os.environ[SELECTION_ENV] = ",".join(sorted(selected))
    if adapter_type in PYTHON_MODEL_ADAPTERS:
        os.environ[RUNNER_ENV] = "1"
    try:
        return _run_segments(manifest, split, runner, selected, depths, adapter_type)
    finally:
        os.environ.pop(SELECTION_ENV, None)
        os.environ.pop(RUNNER_ENV, None)


def _run_segments(manifest: Any, split: SplitArgs, runner: Any, selected: set[str],
                  depths: dict[str, int], adapter_type: str) -> tuple[int, list[Any]]:
    """The segments of a build without dbt Python models, ``depths`` each selected node's
    segment (:func:`node_depths`): (exit code, every node's result)."""
    all_nodes = {**manifest.nodes, **getattr(manifest, "unit_tests", {})}
    blocked: set[str] = set()
    failed = False
    results = SegmentResults(_target_path())
    max_depth = max(depths.values(), default=0)
    for d in range(max_depth + 1):
        python_uids = sorted(u for u in selected if depths[u] == d
                             and is_python_model(all_nodes[u]) and u not in blocked)
        if python_uids:
            try:
                blocked_now = _compute_python_nodes(manifest, [all_nodes[u] for u in python_uids],
                                                    results)
            except Exception as exc:  # noqa: BLE001 - the adapter could not be opened
                print(f"dbt_deid build: ERROR opening the {adapter_type} connection: {exc}",
                      flush=True)
                results.write()
                return 1, results.results
            if blocked_now:
                failed = True
                blocked |= descendants(manifest, blocked_now)
        sql_uids = sorted(u for u in selected if depths[u] == d
                          and not is_python_model(all_nodes[u]) and u not in blocked)
        if not sql_uids:
            continue
        select = [selector_for(all_nodes[u]) for u in sql_uids]
        result = _invoke(runner, ["build", *split.context, *split.other, "--select", *select,
                                  "--indirect-selection", "empty"])
        results.add_segment()
        node_results = getattr(result.result, "results", None) or []
        bad = [r.node.unique_id for r in node_results if str(r.status) in _BLOCKING]
        if bad or not result.success:
            failed = True
            blocked |= descendants(manifest, bad)
            if not bad:  # dbt failed before running nodes: stop
                results.write()
                return 1, results.results
    results.write()
    # nodes never run because an upstream node failed: skipped, as dbt build reports them
    ran = {r.get("unique_id") for r in results.results}
    skipped = [{"unique_id": u, "status": "skipped", "message": ""}
               for u in sorted(blocked & selected) if u not in ran]
    return (1 if failed else 0), results.results + skipped


def _target_path() -> Path:
    """The target folder of the current dbt flags (``--target-path``, else the project's
    ``target-path``, else ``target``), where dbt writes run_results.json."""
    from dbt.flags import get_flags

    flags = get_flags()
    project = Path(getattr(flags, "PROJECT_DIR", None) or ".")
    path = getattr(flags, "TARGET_PATH", None)
    if not path:
        import yaml

        try:
            path = (yaml.safe_load((project / "dbt_project.yml").read_text()) or {}).get(
                "target-path")
        except OSError:
            path = None
    path = Path(path or "target")
    return path if path.is_absolute() else project / path


class SegmentResults:
    """Every segment's node results in one run_results.json, as one ``dbt build`` writes it.

    Each segment's ``dbt build`` overwrites ``run_results.json``; this collects the results of
    each in turn, adds the Python models dbt_deid computed (``thread_id`` ``dbt_deid``) and
    writes them all back at the end, ``elapsed_time`` the whole build's wall time.
    """

    def __init__(self, target: Path) -> None:
        self.path = target / "run_results.json"
        self.start = time.perf_counter()
        self.results: list[dict[str, Any]] = []
        self.last: dict[str, Any] = {}

    def add_segment(self) -> None:
        import json

        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return
        self.last = data
        self.results += data.get("results", [])

    def add_python(self, node: Any, status: str, seconds: float, message: str) -> None:
        self.results.append({
            "unique_id": node.unique_id, "status": status, "execution_time": seconds,
            "thread_id": "dbt_deid", "message": message, "timing": [], "adapter_response": {},
            "failures": None, "compiled": False, "compiled_code": None,
            "relation_name": None, "batch_results": None})

    def write(self) -> None:
        import json

        if not self.results:
            return
        data = {**self.last, "results": self.results,
                "elapsed_time": time.perf_counter() - self.start}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(data, indent=2, default=str))


def _compute_python_nodes(manifest: Any, nodes: list[Any],
                          results: SegmentResults | None = None) -> list[str]:
    """Compute each Python model through one adapter connection; return those that failed."""
    from dbt_deid.dbt_side.engine.adapter_io import AdapterFrames

    failed: list[str] = []
    with AdapterFrames(manifest) as frames:
        for node in nodes:
            start = time.perf_counter()
            try:
                rows = frames.compute(node)
            except Exception as exc:  # noqa: BLE001 - reported like a dbt node error
                print(f"dbt_deid build: ERROR in Python model {node.name}: {exc}", flush=True)
                failed.append(node.unique_id)
                if results is not None:
                    results.add_python(node, "error", time.perf_counter() - start, str(exc))
                continue
            seconds = time.perf_counter() - start
            for relation, n in frames.reads:
                print(f"dbt_deid build: Python model {node.name} read {relation} ({n} rows)",
                      flush=True)
            if frames.write_detail:
                print(f"dbt_deid build: Python model {node.name} written: {frames.write_detail}",
                      flush=True)
            print(f"dbt_deid build: OK Python model {node.name} ({rows} rows) in"
                  f" {seconds:.2f}s", flush=True)
            if results is not None:
                results.add_python(node, "success", seconds, f"dbt_deid: {rows} rows")
    return failed


def register_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--python-nodes", choices=("auto", "dbt", "runner"), default="auto",
        help="who runs the Python models: dbt where the adapter supports them (auto), always"
             " dbt, or always dbt_deid (segmented build)")
