"""Releases of one source at different levels, combined (issue 32, item 2): the reference.

A recipient who receives releases of the same records at different levels of one hierarchy
links them record by record and keeps, per record and quasi-identifier, the finest cell any
release revealed: the hierarchies nest (El Emam et al. 2009, "A Globally Optimal k-Anonymity
Method for the De-Identification of Health Data", the generalization lattice), so a cell and a
coarser cell holding it reveal exactly the finer one, their intersection. The guarantee (El
Emam et al. 2011, the PUMF: every record's true values consistent with at least k released
records, a suppressed cell consistent with anything) is then counted cell by cell at each
cell's level: record t is consistent with combined row s when, for every quasi-identifier of
the combination, s's cell is suppressed or equals t's true value generalized to that cell's
level. A true value at a level finer than any release holding t is unknown and equal to no
cell (fewer consistent rows: fail closed).

This is the reference of the warehouse's SQL (``macros/gates/combined_levels_view_sql.sql``,
``macros/risk/exact_levels_summary_sql.sql``), for tests: plain Python over records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

#: record id -> (published cells, true values at the release's levels); None = suppressed.
Records = Mapping[object, tuple[Sequence[object], Sequence[object]]]
#: (quasi-identifier, value, from level, to level) -> the value at the coarser level.
Coarsen = Callable[[str, object, int, int], object]


@dataclass(frozen=True)
class LevelRelease:
    """One release: its level per quasi-identifier and its records."""

    levels: Mapping[str, int]
    records: Records


@dataclass(frozen=True)
class CombinedRow:
    """One record of the combined view: per quasi-identifier the finest revealed cell as
    (level, value) or None (suppressed in every release), and the true value at every level
    known (from a release at that level, or coarsened from a finer one)."""

    cells: Mapping[str, tuple[int, object] | None]
    true_at: Mapping[tuple[str, int], object]


def combined_rows(columns: Sequence[str], releases: Sequence[LevelRelease],
                  coarsen: Coarsen) -> dict[object, CombinedRow]:
    """The combined view, one row per record (linked by record id across releases). Each
    true value known at level l is also known at every coarser level used by a release
    (``coarsen``). Raises ValueError when a record holds two true values at one level (a
    value changed between the releases; the warehouse refuses it)."""
    used = {q: sorted({r.levels[q] for r in releases}) for q in columns}
    cells: dict[object, dict[str, tuple[int, object] | None]] = {}
    truth: dict[object, dict[tuple[str, int], object]] = {}
    for release in releases:
        for rid, (published, true) in release.records.items():
            row = cells.setdefault(rid, dict.fromkeys(columns))
            known = truth.setdefault(rid, {})
            for j, q in enumerate(columns):
                level = release.levels[q]
                if known.setdefault((q, level), true[j]) != true[j]:
                    raise ValueError(f"record holds two true values of {q} at level {level}")
                cell = published[j]
                if cell is not None and (row[q] is None or level < row[q][0]):
                    row[q] = (level, cell)
    out = {}
    for rid, row in cells.items():
        known = dict(truth[rid])
        for q in columns:
            have = sorted(level for (p, level) in truth[rid] if p == q)
            if not have:
                continue
            finest = have[0]
            for level in used[q]:
                if level > finest and (q, level) not in known:
                    known[(q, level)] = coarsen(q, truth[rid][(q, finest)], finest, level)
        out[rid] = CombinedRow(row, known)
    return out


def consistent_counts(rows: Mapping[object, CombinedRow], combination: Sequence[str]
                      ) -> dict[object, int]:
    """Per record, the combined rows consistent with its true values on ``combination``."""
    groups = Counter(tuple(r.cells[q] for q in combination) for r in rows.values())
    missing = object()
    out = {}
    for rid, row in rows.items():
        out[rid] = sum(
            n for cells, n in groups.items()
            if all(c is None or row.true_at.get((q, c[0]), missing) == c[1]
                   for q, c in zip(combination, cells, strict=True)))
    return out


def level_figures(columns: Sequence[str], releases: Sequence[LevelRelease],
                  combinations: Sequence[Sequence[str]], k: int, coarsen: Coarsen
                  ) -> dict[str, tuple[int | None, int]]:
    """Per combination (``a+b+c``): the smallest consistent set and the records below k."""
    rows = combined_rows(columns, releases, coarsen)
    out: dict[str, tuple[int | None, int]] = {}
    for b in combinations:
        counts = consistent_counts(rows, b)
        out["+".join(b)] = (min(counts.values(), default=None),
                            sum(1 for n in counts.values() if n < k))
    return out
