"""An independent check of everything a recipient of a release line holds, for tests only.

Written without the package's code (plain loops over records and Counters), from the brief's
guarantee: recipients keep every version, and link records across versions by their record
(the tests hand over the record id; a recipient links by pass-through columns or row order).

* ``combined_view``: one row per record state (record id and true values): each cell the one
  any version holding that state revealed (None = suppressed in all). A record whose true
  values changed is one row per state (the rule of ``docs/living-release.md``).
* ``view_violations``: on every combination, the class sizes (a suppressed value its own
  category) and, for every row's true values, the rows consistent with them (a suppressed
  cell is consistent with anything).
* ``linked_violations``: a recipient who links two consecutive versions and knows a changed
  record's earlier and current values counts the records present in both whose earlier row is
  consistent with the earlier values and whose current row with the current ones.
* ``changed_rows``: records kept with the same true values whose row differs between two
  consecutive versions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

Release = Mapping[object, tuple[tuple, tuple]]  # record id -> (published cells, true values)


def combined_view(versions: Sequence[Release]) -> tuple[list[tuple], list[tuple]]:
    """Aligned (true values, cells) rows of the combined view, one per record state."""
    cells: dict[tuple, list] = {}
    for release in versions:
        for rid, (published, true) in release.items():
            merged = cells.setdefault((rid, tuple(true)), [None] * len(true))
            for j, value in enumerate(published):
                if value is None:
                    continue
                if value != true[j]:
                    raise ValueError("a published cell is not the record's true value")
                merged[j] = value
    states = sorted(cells, key=lambda s: (str(s[0]), str(s[1])))
    return [s[1] for s in states], [tuple(cells[s]) for s in states]


def _consistent(row: Sequence[object], target: Sequence[object]) -> bool:
    return all(v is None or v == t for v, t in zip(row, target, strict=True))


def view_violations(columns: Sequence[str], truth: Sequence[tuple], cells: Sequence[tuple],
                    combinations: Sequence[Sequence[str]], k: int) -> list[str]:
    """Classes below k and records consistent with fewer than k rows, per combination (sizes
    and counts only in the messages)."""
    out = []
    for b in combinations:
        idx = [list(columns).index(c) for c in b]
        rows = Counter(tuple(p[j] for j in idx) for p in cells)
        small = [n for n in rows.values() if n < k]
        if small:
            out.append(f"{'+'.join(b)}: {len(small)} class(es) below k = {k}"
                       f" (smallest {min(small)})")
        below, smallest = 0, None
        for target, n_records in Counter(tuple(t[j] for j in idx) for t in truth).items():
            n = sum(m for row, m in rows.items() if _consistent(row, target))
            smallest = n if smallest is None else min(smallest, n)
            below += n_records if n < k else 0
        if below:
            out.append(f"{'+'.join(b)}: {below} record(s) consistent with fewer than k = {k}"
                       f" rows (smallest {smallest})")
    return out


def version_violations(columns: Sequence[str], release: Release,
                       combinations: Sequence[Sequence[str]], k: int) -> list[str]:
    """:func:`view_violations` of one version alone."""
    truth = [t for _p, t in release.values()]
    cells = [p for p, _t in release.values()]
    return view_violations(columns, truth, cells, combinations, k)


def combined_violations(columns: Sequence[str], versions: Sequence[Release],
                        combinations: Sequence[Sequence[str]], k: int) -> list[str]:
    """:func:`view_violations` of the combined view of ``versions``."""
    truth, cells = combined_view(versions)
    return view_violations(columns, truth, cells, combinations, k)


def linked_violations(columns: Sequence[str], versions: Sequence[Release],
                      combinations: Sequence[Sequence[str]], k: int) -> list[str]:
    """Changed records whose linked consistent set (two consecutive versions) is below k."""
    out = []
    for before, after in zip(versions, versions[1:], strict=False):
        both = [rid for rid in after if rid in before]
        changed = [rid for rid in both if before[rid][1] != after[rid][1]]
        for b in combinations:
            idx = [list(columns).index(c) for c in b]

            def part(row: tuple, idx: list[int] = idx) -> tuple:
                return tuple(row[j] for j in idx)

            pairs = Counter((part(before[r][0]), part(after[r][0])) for r in both)
            for rid in changed:
                a, t = part(before[rid][1]), part(after[rid][1])
                n = sum(m for (p0, p1), m in pairs.items()
                        if _consistent(p0, a) and _consistent(p1, t))
                if n < k:
                    out.append(f"{'+'.join(b)}: a changed record is consistent with {n} < k ="
                               f" {k} records linked across two versions")
    return out


def changed_rows(versions: Sequence[Release]) -> list[int]:
    """Per consecutive pair of versions: records with the same true values in both whose
    published row differs."""
    out = []
    for before, after in zip(versions, versions[1:], strict=False):
        out.append(sum(1 for rid, (p, t) in after.items()
                       if rid in before and before[rid][1] == t and before[rid][0] != p))
    return out


def mixed_level_figures(columns: Sequence[str],
                        releases: Sequence[tuple[Mapping[str, int], Release]],
                        combinations: Sequence[Sequence[str]], k: int
                        ) -> dict[str, tuple[int, int]]:
    """Releases of one source at different levels, linked by record id (issue 32, item 2):
    ``releases`` holds (QI -> level, records) pairs. Per record, each QI's cell is the one at
    the finest level any release revealed; a record t is consistent with a row s when, for every
    QI of the combination, s's cell is suppressed or equals t's true value at the level of that
    cell (known from a release holding t at that level; unknown counts as not equal). Returns
    per combination (smallest consistent set, records below k). One state per record (no value
    changed between the releases)."""
    true_at: dict[object, dict[tuple[str, int], object]] = {}
    cells: dict[object, dict[str, tuple[int, object]]] = {}
    for levels, release in releases:
        for rid, (published, true) in release.items():
            known = true_at.setdefault(rid, {})
            row = cells.setdefault(rid, {})
            for j, q in enumerate(columns):
                level = levels[q]
                known[(q, level)] = true[j]
                if published[j] is not None and (q not in row or level < row[q][0]):
                    row[q] = (level, published[j])
    out = {}
    for b in combinations:
        rows = Counter(tuple(cells[rid].get(q) for q in b) for rid in cells)
        smallest, below = None, 0
        for rid in cells:
            n = sum(m for row, m in rows.items()
                    if all(c is None or true_at[rid].get((q, c[0]), object()) == c[1]
                           for q, c in zip(b, row, strict=True)))
            smallest = n if smallest is None else min(smallest, n)
            below += n < k
        out["+".join(b)] = (smallest, below)
    return out
