"""Gate once (issue 33, item 2): counted from the SQL one integration build ran, each gate of
the release's gate set is evaluated once per build (in the gate table deid_gate_results), not
three times (the gate model, the gate tests, the publish materialization, as on main 732cd92).

The SQL is read from dbt's debug log of the build (``logs/dbt.log``: every statement dbt runs,
model bodies and the ``run_query`` calls of macros alike), split into its events.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.dbt

#: A phrase only each gate's query has (macros/gates/gates.sql).
GATE_MARKERS = {
    "k_anonymity": "where smallest_class <",
    "exact_k_anonymity": "where records_below_k > 0",
    "max_suppression": "where share_records_with_suppression >",
    "column_suppression_cap": "where share_suppressed > cap",
    "input_unchanged": "as changed_records",
}
#: The exact consistent-set computation (exact_consistent_sql): its pruned form
#: (exact_risk_summary_sql: the generic test, combined_releases) and its full distribution
#: (deid_exact_consistent).
EXACT_MARKERS = ("tuples_evaluated", "cast(sum(n_true) as")


def _statements(log: str) -> list[str]:
    """The events of a dbt file log (each starts with its time stamp)."""
    return re.split(r"\n(?=(?:\x1b\[0m)?\d{2}:\d{2}:\d{2}\.\d+ \[)", log)


def test_each_gate_is_evaluated_once_per_build(default_release) -> None:
    log = (default_release.database.parent / "logs" / "dbt.log").read_text()
    statements = [s for s in _statements(log) if re.search(r"\bselect\b", s, re.I)]
    counts = {gate: sum(marker in s for s in statements) for gate, marker in GATE_MARKERS.items()}
    assert counts == dict.fromkeys(GATE_MARKERS, 1), counts
    # the exact check: once, as the distribution (deid_exact_consistent) that the gate table,
    # the risk summary, the report and the algorithm comparison read; on 732cd92 it ran four
    # times, on 55b4c8e twice (the gate table computed its own, pruned at k)
    exact = sum(any(m in s for m in EXACT_MARKERS) for s in statements)
    assert exact == 1, exact
