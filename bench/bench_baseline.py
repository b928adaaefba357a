"""Old and new package in one bench run (issue 33's acceptance): the pure parts of
``bench_engines.py --baseline-rev``. Not a test; imported by the bench and its unit test.

Nothing here imports ``dbt_deid``, so a child process can import it beside the *old* package's
``src`` (the generator check, :data:`OLD_GENERATOR`).

* :func:`frame_fingerprint`: a SHA-256 of the source records as loaded (column names, dtypes,
  row count and every value, in order), printed for every build, so "the same data" is shown,
  not assumed.
* :func:`release_selection`: a version's ``RELEASE_SELECTION`` read from its
  ``bench/bench_seed000.py`` as text (``ast``), without importing the old package.
* :func:`baseline_rows`: per engine and size, each build's wall time and release-node time,
  old and new, and the ratios new/old (a pair counts only when both builds succeeded on the
  same source fingerprint).
"""

from __future__ import annotations

import ast
import hashlib
import statistics
from typing import Any

#: Run in a child process with ``PYTHONPATH`` at the old tree's ``src`` and the bench folder on
#: ``sys.path``: the old package's own generator, fingerprinted like the loaded frame.
OLD_GENERATOR = """
import sys
sys.path.insert(0, sys.argv[1])
from bench_baseline import frame_fingerprint
try:
    from dbt_deid.tools.synthetic.discharge import generate_discharges
except ImportError:
    from dbt_deid.synthetic.discharge import generate_discharges
import dbt_deid
print(dbt_deid.__file__)
print(frame_fingerprint(generate_discharges(int(sys.argv[2]), seed=int(sys.argv[3]))))
"""


def frame_fingerprint(frame: Any) -> str:
    """SHA-256 (hex) of a pandas frame: its column names and dtypes, its row count and the
    per-row hash of every value (``pandas.util.hash_pandas_object``, index excluded), in row
    order. Two frames with the same fingerprint load the same table."""
    import pandas as pd

    digest = hashlib.sha256()
    digest.update(repr([(str(c), str(t)) for c, t in frame.dtypes.items()]).encode())
    digest.update(str(len(frame)).encode())
    digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return digest.hexdigest()


def release_selection(source: str, name: str = "RELEASE_SELECTION") -> list[str]:
    """The list literal assigned to ``name`` in a Python source text (a version's
    ``bench/bench_seed000.py``); ``ValueError`` when there is none or it is not a literal list
    of strings."""
    for node in ast.parse(source).body:
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AnnAssign) else [])
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            value = ast.literal_eval(node.value)  # type: ignore[arg-type]
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                raise ValueError(f"{name} is not a list of strings")
            return value
    raise ValueError(f"no {name} assignment in the source")


def release_seconds(run: dict[str, Any]) -> float:
    """Summed node time of the release's own nodes (the package's models and tests)."""
    return sum(n["seconds"] for n in run["nodes"].values() if n.get("release"))


def release_nodes(run: dict[str, Any]) -> tuple[int, int]:
    """(models, tests) among the release's own nodes of a build (``run_results.json``): SQL
    and Python models, and tests; the package's hooks (``operation``) are neither."""
    nodes = [n for n in run["nodes"].values() if n.get("release")]
    return (sum(1 for n in nodes if n["kind"] in ("model", "python")),
            sum(1 for n in nodes if n["kind"] == "test"))


def ratio(new: float | None, old: float | None) -> float | None:
    """new / old, or None when either is missing or old is not positive."""
    if new is None or old is None or old <= 0:
        return None
    return new / old


def baseline_rows(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (engine, records) that has builds of both packages (``run["package"]`` is
    ``"old"`` or ``"new"``): the successful builds' wall and release-node seconds of each
    package (in run order), their medians, and the ratios new/old of the medians. Builds that
    failed are counted in ``failed`` and left out of the medians. ``same_source`` is True when
    every build of the row loaded the same source fingerprint (``run["source_sha256"]``); the
    ratios are None unless both packages have a successful build and the source is the same."""
    keys: list[tuple[str, int]] = []
    for r in runs:
        if (r["engine"], r["rows"]) not in keys:
            keys.append((r["engine"], r["rows"]))
    out = []
    for engine, rows in keys:
        group = [r for r in runs if r["engine"] == engine and r["rows"] == rows]
        if {r.get("package") for r in group} != {"old", "new"}:
            continue
        row: dict[str, Any] = {"engine": engine, "rows": rows,
                               "failed": sum(1 for r in group if r["code"] != 0)}
        fingerprints = {r.get("source_sha256") for r in group}
        row["same_source"] = len(fingerprints) == 1 and None not in fingerprints
        for pkg in ("old", "new"):
            ok = [r for r in group if r.get("package") == pkg and r["code"] == 0]
            row[f"{pkg}_wall"] = [r["wall"] for r in ok]
            row[f"{pkg}_release"] = [release_seconds(r) for r in ok]
            row[f"{pkg}_wall_median"] = statistics.median(row[f"{pkg}_wall"]) if ok else None
            row[f"{pkg}_release_median"] = (statistics.median(row[f"{pkg}_release"])
                                            if ok else None)
        for what in ("wall", "release"):
            value = ratio(row[f"new_{what}_median"], row[f"old_{what}_median"])
            row[f"{what}_ratio"] = value if row["same_source"] else None
        out.append(row)
    return out
