"""The one-line verdict ``python -m dbt_deid build`` ends with.

A build publishes, refuses or fails; a user (or a CI log) should not have to read dbt's node
lines to know which. The verdict is read from the build's node results (what dbt writes to
``run_results.json``): a publish model (materialized ``deid_publish``) that succeeded published
its table; one that raised ``release refused`` was refused by its own gates (the materialization
names them, ``[gate] message``); one dbt skipped was refused by a failing gate test or an
erroring model upstream (the ``record_skipped_releases`` hook writes its history row). Any other
failure is an error. Only names of nodes and gates are printed, never a value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

_FAILED = {"fail", "error", "runtime error"}
_GATE = re.compile(r"^\s*\[([A-Za-z0-9_]+)\]", re.M)


@dataclass(frozen=True)
class NodeResult:
    """One node's outcome: its unique id, dbt status and message."""

    unique_id: str
    status: str
    message: str = ""


def node_results(results: Iterable[Any]) -> list[NodeResult]:
    """dbt ``RunResult`` objects or run_results.json dicts as :class:`NodeResult`."""
    out = []
    for r in results:
        if isinstance(r, Mapping):
            out.append(NodeResult(str(r.get("unique_id")), str(r.get("status")),
                                  str(r.get("message") or "")))
        else:
            out.append(NodeResult(r.node.unique_id, str(r.status), str(r.message or "")))
    return out


def _name(uid: str, nodes: Mapping[str, Any] | None = None) -> str:
    """The node's name (a test's unique id ends with a hash, its name does not)."""
    name = getattr((nodes or {}).get(uid), "name", None)
    if name:
        return str(name)
    parts = uid.split(".")  # resource_type.package.name[.hash]
    return parts[2] if len(parts) > 2 else uid


def _is_publish(node: Any) -> bool:
    config = getattr(node, "config", None)
    materialized = (config.get("materialized") if isinstance(config, Mapping)
                    else getattr(config, "materialized", None))
    return materialized == "deid_publish"


def build_verdict(manifest: Any, results: Iterable[Any], error: str | None = None) -> str:
    """``verdict: ...``: published / refused (with the failed gates) / error, one line.

    ``manifest`` is dbt's parsed manifest (its ``nodes`` give each node's materialization);
    ``error`` a failure before any node ran (dbt could not parse the project, say)."""
    if error:
        return f"verdict: ERROR {error}"
    nodes = node_results(results)
    all_nodes = getattr(manifest, "nodes", {}) or {}
    failed = [r for r in nodes if r.status in _FAILED]
    publish = [r for r in nodes if r.unique_id in all_nodes and _is_publish(all_nodes[r.unique_id])]
    outcomes: list[tuple[str, str]] = []  # (published / refused / error, text)
    upstream = sorted({_name(r.unique_id, all_nodes) for r in failed
                       if not (r.unique_id in all_nodes and _is_publish(all_nodes[r.unique_id]))})
    for r in publish:
        name = _name(r.unique_id, all_nodes)
        if r.status == "success":
            outcomes.append(("published", name))
        elif r.status == "skipped" or "release refused" in r.message:
            gates = upstream if r.status == "skipped" else sorted(set(_GATE.findall(r.message)))
            outcomes.append(("refused", name + (f" (failed: {', '.join(gates)})" if gates
                                                 else "")))
        else:
            first = r.message.strip().splitlines()[0] if r.message.strip() else r.status
            outcomes.append(("error", f"{name}: {first}"))
    if not outcomes:
        if failed:
            return (f"verdict: ERROR {len(failed)} node(s) failed ({', '.join(upstream)});"
                    " nothing published")
        return f"verdict: NOTHING PUBLISHED no publish model was selected ({len(nodes)} node(s))"
    kinds = {kind for kind, _ in outcomes}
    worst = next(k for k in ("error", "refused", "published") if k in kinds)
    if len(kinds) == 1:
        text = "; ".join(t for _, t in outcomes)
    else:
        text = "; ".join(f"{kind} {t}" for kind, t in outcomes)
    tail = "; nothing published by a refused model" if worst != "published" else ""
    return f"verdict: {worst.upper()} {text}{tail}"
