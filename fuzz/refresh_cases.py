"""Random release lines for the refresh (issue 32): shared by ``fuzz/fuzz_refresh.py`` and the
hypothesis test ``tests/unit/test_fuzz_refresh.py``.

A case is a small table (2-3 QIs over small alphabets, k 2-4, one or two overlapping
combinations, weights) published on day 1 and then refreshed two or three times, each refresh
adding, deleting and changing a few records. Every published version goes through
``tests/combined_view_check.py``: each version alone, the combined view of all versions counted
by person (review 19, F1; by state before session 20, which could not see F1), the
changed records linked across consecutive versions, every record that ever changed (deleted
since or not) linked over every version holding it at the end of the line, and kept rows that
only ever gain suppressed cells. Day 1 with k records or more must publish; a refresh may be
refused (no safe version), and then nothing is stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from fuzz.suppress_cases import Chooser, DrawChooser, RandomChooser, _pick
from tests.combined_view_check import (
    combined_violations,
    ever_linked_violations,
    linked_violations,
    version_violations,
)
from tests.living_line import ID, Line, releases

__all__ = ["DrawChooser", "LineCase", "RandomChooser", "check_line", "make_line_case"]

ALPHABETS = [["a", "b"], ["a", "b", "c"], ["x", "y", "z", "w"], ["1", "2", "3", "4", "5"]]


@dataclass
class LineCase:
    qis: list[str]
    k: int
    combinations: list[tuple[str, ...]]
    weights: dict[str, float]
    tables: list[list[tuple]] = field(default_factory=list)  # per version: (id, *values)

    def describe(self) -> str:
        sizes = [len(t) for t in self.tables]
        return (f"k={self.k} combinations={self.combinations} weights={self.weights}"
                f" versions={sizes}\n" + "\n".join(repr(t) for t in self.tables))


def _row(ch: Chooser, rid: int, alphabets: list[list[str]]) -> tuple:
    return (rid, *(_pick(ch, a) for a in alphabets))


def make_line_case(ch: Chooser, max_rows: int = 16) -> LineCase:
    n_q = ch.int(2, 3)
    qis = [f"q{j}" for j in range(n_q)]
    alphabets = [_pick(ch, ALPHABETS) for _ in qis]
    k = ch.int(2, 4)
    combos = [tuple(qis[:2]), tuple(qis[1:])] if n_q == 3 and ch.int(0, 1) else [tuple(qis)]
    weights = {q: [1.0, 0.5, 0.2][ch.int(0, 2)] for q in qis}
    case = LineCase(qis, k, combos, weights)
    table = [_row(ch, i, alphabets) for i in range(1, ch.int(k, max_rows) + 1)]
    case.tables.append(table)
    next_id = len(table) + 1
    for _ in range(ch.int(1, 3)):
        table = list(table)
        for _ in range(ch.int(0, 2)):  # deletions
            if len(table) > 1:
                table.pop(ch.int(0, len(table) - 1))
        for _ in range(ch.int(0, 2)):  # changes: one QI takes another value
            i, j = ch.int(0, len(table) - 1), ch.int(1, n_q)
            row = list(table[i])
            row[j] = _pick(ch, alphabets[j - 1])
            table[i] = tuple(row)
        for _ in range(ch.int(0, 4)):  # new records
            table.append(_row(ch, next_id, alphabets))
            next_id += 1
        case.tables.append(table)
    return case


def check_line(case: LineCase) -> tuple[list[str], int]:
    """Publish the case's versions; return (violations, refused refreshes)."""
    line = Line(case.qis, case.k, case.combinations, case.weights)
    truths: list[pd.DataFrame] = []
    refused = 0
    problems: list[str] = []
    for i, table in enumerate(case.tables):
        frame = pd.DataFrame(table, columns=[ID, *case.qis])
        published, result = line.publish(frame)
        if published is None:
            if i == 0:
                problems.append(f"day 1 refused: {result.refusals()}")
            refused += 1
            continue
        truths.append(frame)
    versions = releases(line, truths)
    for i, v in enumerate(versions):
        problems += [f"version {i + 1}: {m}"
                     for m in version_violations(case.qis, v, case.combinations, case.k)]
    problems += combined_violations(case.qis, versions, case.combinations, case.k)
    problems += linked_violations(case.qis, versions, case.combinations, case.k)
    # every record that ever changed, deleted since or not, over every version holding it
    problems += ever_linked_violations(case.qis, versions, case.combinations, case.k)
    problems += [f"the guard counted more than the gate: {m}" for m in line.guard_over_gate]
    for before, after in zip(versions, versions[1:], strict=False):
        for rid, (cells, true) in after.items():
            if rid in before and before[rid][1] == true and any(
                    c is not None and o is None for o, c in zip(before[rid][0], cells,
                                                               strict=True)):
                problems.append("a kept record's suppressed cell was revealed")
    return problems, refused
