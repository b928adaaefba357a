"""An independent check of everything a recipient of a release line holds, for tests only.

Written without the package's code (plain loops over records and Counters), from the brief's
guarantee: recipients keep every version, and link records across versions by their record
(the tests hand over the record id; a recipient links by pass-through columns or row order).

* ``combined_view``: one row per record state (record id and true values): each cell the one
  any version holding that state revealed (None = suppressed in all). A record whose true
  values changed is one row per state (the rule of ``docs/living-release.md``).
* ``person_view``, ``person_violations``: the combined view **by person** (review 19, F1;
  the gate's combined_persons_sql): one row per record, each cell the one value any version
  revealed of it (None when none did; ``TWO_VALUES``, equal to no true value, when versions
  revealed two); a record of one state is a target, a record whose true values changed is a
  released record only (the linked check's target); every target consistent with at least k
  records. ``combined_violations`` counts so.
* ``view_violations``: on every combination, the class sizes (a suppressed value its own
  category) and, for every row's true values, the rows consistent with them (a suppressed
  cell is consistent with anything).
* ``linked_figures``: a recipient who links the versions and knows a changed record's true
  values in each version holding it counts the records consistent with it in every one of
  them (changed records, smallest, below k; review 10 final, H1).
* ``linked_violations``: the changed records below k, for each version against all before it.
* ``linked_set``, ``ever_linked_violations``: brute force, apart from ``linked_figures``: the
  records linked to one record over every version holding it, on its own cells there; every
  record that ever changed (deleted later or not) checked so at the end of the line.
* ``changed_rows``: records kept with the same true values whose row differs between two
  consecutive versions.
* ``mixed_level_view``, ``mixed_level_figures``: releases of one source at different levels of
  one hierarchy (issue 32, item 2), each cell at the finest level any release revealed it and
  the exact check cell by cell at each cell's level. The one Python reference of the shipped
  SQL (macros/gates/combined_levels_view_sql.sql, macros/risk/exact_levels_summary_sql.sql):
  tests/unit/test_combined_levels_sql.py holds them to it on random releases.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

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


def _consistent_counter(rows: Counter) -> Callable[[tuple], int]:
    """``target -> sum(m for row, m in rows.items() if _consistent(row, target))``, counted by
    the rows' suppression patterns: a row is consistent with a target when its unsuppressed
    cells equal the target's there, so per pattern (the positions a row shows) the rows are
    counted by those cells, and a target looks up its own cells at each pattern's positions
    (a few patterns against thousands of rows: the test modules spent most of their own CPU
    in the pairwise loop; docs/performance.md, "Suite CPU, session 8")."""
    by_shown: dict[tuple[int, ...], Counter] = {}
    for row, m in rows.items():
        shown = tuple(j for j, v in enumerate(row) if v is not None)
        by_shown.setdefault(shown, Counter())[tuple(row[j] for j in shown)] += m

    def count(target: tuple) -> int:
        return sum(cells.get(tuple(target[j] for j in shown), 0)
                   for shown, cells in by_shown.items())
    return count


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
        out.extend(_consistent_below_k(b, idx, rows, truth, k, "rows"))
    return out


def _consistent_below_k(combination: Sequence[str], idx: list[int], rows: Counter,
                        truth: Sequence[tuple], k: int, unit: str) -> list[str]:
    """The message for the targets ``truth`` (on ``idx``) consistent with fewer than k of
    ``rows`` (counts only), or none."""
    below, smallest = 0, None
    consistent = _consistent_counter(rows)
    for target, n_records in Counter(tuple(t[j] for j in idx) for t in truth).items():
        n = consistent(target)
        smallest = n if smallest is None else min(smallest, n)
        below += n_records if n < k else 0
    if not below:
        return []
    return [f"{'+'.join(combination)}: {below} record(s) consistent with fewer than k = {k}"
            f" {unit} (smallest {smallest})"]


def version_violations(columns: Sequence[str], release: Release,
                       combinations: Sequence[Sequence[str]], k: int) -> list[str]:
    """:func:`view_violations` of one version alone."""
    truth = [t for _p, t in release.values()]
    cells = [p for p, _t in release.values()]
    return view_violations(columns, truth, cells, combinations, k)


#: the cell of a record whose versions revealed two different values of a QI (the gate's
#: combined_conflict_marker): equal to no true value
TWO_VALUES = object()


def person_view(versions: Sequence[Release]) -> tuple[list[tuple], list[tuple]]:
    """(true values of the targets, cells of every record) of the combined view by person:
    one row per record id, each cell the one value any version revealed (None: none did,
    ``TWO_VALUES``: two different ones); the targets are the records of one state (a record
    whose true values changed is a released record only)."""
    states: dict[object, set[tuple]] = {}
    cells: dict[object, list] = {}
    for release in versions:
        for rid, (published, true) in release.items():
            states.setdefault(rid, set()).add(tuple(true))
            merged = cells.setdefault(rid, [None] * len(true))
            for j, value in enumerate(published):
                if value is None:
                    continue
                if value != true[j]:
                    raise ValueError("a published cell is not the record's true value")
                if merged[j] is None:
                    merged[j] = value
                elif merged[j] is not TWO_VALUES and merged[j] != value:
                    merged[j] = TWO_VALUES
    ids = sorted(cells, key=str)
    truth = [next(iter(states[r])) for r in ids if len(states[r]) == 1]
    return truth, [tuple(cells[r]) for r in ids]


def person_violations(columns: Sequence[str], versions: Sequence[Release],
                      combinations: Sequence[Sequence[str]], k: int) -> list[str]:
    """Targets of the combined view by person (:func:`person_view`) consistent with fewer
    than k records, per combination (counts only in the messages). The consistent sets
    decide, as the gate's exact check by person does (a changed record's row, a released
    record only, may make a class smaller than k that its consistent sets are not)."""
    truth, cells = person_view(versions)
    out = []
    for b in combinations:
        idx = [list(columns).index(c) for c in b]
        rows = Counter(tuple(p[j] for j in idx) for p in cells)
        out.extend(_consistent_below_k(b, idx, rows, truth, k, "persons"))
    return out


def combined_violations(columns: Sequence[str], versions: Sequence[Release],
                        combinations: Sequence[Sequence[str]], k: int) -> list[str]:
    """The combined view of ``versions`` by person (:func:`person_violations`; review 19,
    F1: recipients link a record's rows across versions). The view by state
    (:func:`combined_view`) counted a changed record's earlier state as another record."""
    return [f"combined view by person: {m}"
            for m in person_violations(columns, versions, combinations, k)]


def linked_figures(columns: Sequence[str], versions: Sequence[Release],
                   combinations: Sequence[Sequence[str]], k: int,
                   levels: Sequence[Mapping[str, int]] | None = None,
                   up: LevelMap | None = None,
                   originals: Mapping[object, Sequence[object]] | None = None,
                   hierarchy: Iterable[tuple[str, object, int, object]] | None = None,
                   missing: object = None
                   ) -> dict[str, tuple[int, int | None, int]]:
    """The linked count of the last of ``versions`` (the earlier ones stored): per combination
    (changed records, smallest linked consistent set, changed records below k).

    A changed record (a record of the last version that changed at any point of the line: two
    of its states, in the versions holding it and the last one, differ on a QI compared at the
    coarser of their two ``levels``, through ``up`` (:func:`level_map`; a value it does not
    map, or without ``up`` two different levels, differ: fail closed); changed now against
    the latest earlier version holding it, or in an earlier version (review 11b L1; across a
    level change, review 12b H1)) is hidden by the records of the last version that were published
    before and are consistent with it in every version that holds it: in each earlier version
    holding the target, the record is held too and its cells there (every cell any version
    revealed of that state of the record: same true values and ``levels``) are consistent
    with the target's true values there; a record absent from such a version is not counted
    (the recipient knows the target was there); for a target changed now, its latest earlier
    state's cells are consistent with the target's latest earlier true values at the same
    levels (a record that changed in a version not holding the target is not counted: fail
    closed; a target kept now is counted by the every-version rule alone, on each record's
    own cells in each version: what a recipient linking the rows sees); and in the
    last version its cells are consistent with the target's current values.

    A state of the last version is known at every level (review 12 final, L1): with
    ``originals`` (its records' original values, one per column) and ``hierarchy`` (rows QI,
    original value, level, value; ``missing`` the missing label, itself at every level), an
    earlier state at a finer level than the last version's is compared with it at the earlier
    state's own level, the last version's value there read from the hierarchy by its original
    value (not there: differ). Without them such a pair differs (fail closed). Two earlier
    states stay compared at the coarser of their levels (each known at its own level only): a
    record no comparison sees changed has, at every version's levels, the states of an
    unchanged record of the last version's original value, and that record's linked set
    (docs/living-release.md, "What the coarser level hides"; :func:`linked_set`)."""
    *earlier, after = versions
    lv = [tuple(sorted(m.items())) for m in levels] if levels is not None else [()] * len(versions)
    merged: dict[tuple, list] = {}
    for i, release in enumerate(earlier):
        for rid, (published, true) in release.items():
            cells = merged.setdefault((rid, tuple(true), lv[i]), [None] * len(true))
            for j, value in enumerate(published):
                if value is not None:
                    cells[j] = value
    held = {rid: [i for i, release in enumerate(earlier) if rid in release] for rid in after}
    both = [rid for rid in after if held[rid]]
    now = dict(lv[-1])

    def differ(a: tuple, la: Mapping[str, int], b: tuple, lb: Mapping[str, int],
               qis: Sequence[str] = columns) -> bool:
        """Two states (true values of ``qis`` at levels ``la`` and ``lb``) differ on a QI
        compared at the coarser of its two levels; no true value (None) differs from a value
        only."""
        for j, q in enumerate(qis):
            x, y = a[j], b[j]
            lo, hi = la.get(q, 0), lb.get(q, 0)
            if lo > hi:
                x, y, lo, hi = y, x, hi, lo
            if x is None and y is None:
                continue
            if x is None or y is None:
                return True
            if lo != hi:
                x = None if up is None else up.get((q, lo, x, hi))
            if x is None or x != y:
                return True
        return False

    # targets: a state of the record in the line differs from another (review 11b, L1; across a
    # level change, review 12b H1), its latest earlier state from the last (changed now)
    def states(rid: object) -> list[tuple[tuple, dict]]:
        return [(tuple(earlier[i][rid][1]), dict(lv[i])) for i in held[rid]] + [
            (tuple(after[rid][1]), now)]

    at: dict[tuple[str, object, int], object] = {}
    for q, original, level, value in hierarchy or ():
        at[(q, original, int(level))] = value

    def differs_now(rid: object, a: tuple, la: Mapping[str, int]) -> bool:
        """An earlier state ``a`` at ``la`` and the last version's state of ``rid``: compared
        at the earlier state's level where it is the finer (the last version's original value
        mapped there), else as :func:`differ` does."""
        b = tuple(after[rid][1])
        for j, q in enumerate(columns):
            lo = la.get(q, 0)
            if lo >= now.get(q, 0):
                if differ((a[j],), {q: lo}, (b[j],), {q: now.get(q, 0)}, (q,)):
                    return True
                continue
            if originals is None:
                return True
            raw = originals[rid][j]
            y = missing if missing is not None and raw == missing else at.get((q, raw, lo))
            if y is None or a[j] != y:
                return True
        return False

    moved = {rid for rid in both if differs_now(rid, tuple(earlier[held[rid][-1]][rid][1]),
                                                dict(lv[held[rid][-1]]))}
    changed = [rid for rid in both
               if rid in moved
               or any(differs_now(rid, tuple(earlier[i][rid][1]), dict(lv[i]))
                      for i in held[rid])
               or any(differ(*s, *t) for s, t in itertools.combinations(states(rid)[:-1], 2))]
    out: dict[str, tuple[int, int | None, int]] = {}
    for b in combinations:
        idx = [list(columns).index(c) for c in b]

        def part(row: Sequence[object], idx: list[int] = idx) -> tuple:
            return tuple(row[j] for j in idx)

        def seen(rid: object, i: int) -> tuple:
            return part(merged[(rid, tuple(earlier[i][rid][1]), lv[i])])

        def level(i: int, q: str) -> int:
            return 0 if levels is None else levels[i][q]

        counts = []
        for t in changed:
            counts.append(sum(
                1 for p in both
                if _consistent(part(after[p][0]), part(after[t][1]))
                and all(p in earlier[i] and _consistent(
                    seen(p, i) if t in moved else part(earlier[i][p][0]),
                    part(earlier[i][t][1])) for i in held[t])
                and (t not in moved or all(
                    c is None or (level(held[p][-1], q) == level(held[t][-1], q) and c == w)
                    for q, c, w in zip(b, seen(p, held[p][-1]),
                                       part(earlier[held[t][-1]][t][1]), strict=True)))))
        out["+".join(b)] = (len(changed), min(counts) if counts else None,
                            sum(1 for n in counts if n < k))
    return out


def linked_violations(columns: Sequence[str], versions: Sequence[Release],
                      combinations: Sequence[Sequence[str]], k: int,
                      levels: Sequence[Mapping[str, int]] | None = None,
                      up: LevelMap | None = None,
                      originals: Sequence[Mapping[object, Sequence[object]]] | None = None,
                      hierarchy: Sequence[tuple[str, object, int, object]] | None = None,
                      missing: object = None) -> list[str]:
    """Changed records whose linked consistent set is below k, for each version after the
    first against every version before it (:func:`linked_figures`; ``originals``: each
    version's records' original values)."""
    out = []
    for n in range(2, len(versions) + 1):
        figures = linked_figures(columns, versions[:n], combinations, k,
                                 None if levels is None else levels[:n], up,
                                 None if originals is None else originals[n - 1],
                                 hierarchy, missing)
        for name, (_changed, smallest, below) in figures.items():
            if below:
                out += [f"{name}: a changed record is consistent with fewer than k = {k}"
                        f" records linked across versions (smallest {smallest})"] * below
    return out


def linked_set(columns: Sequence[str], versions: Sequence[Release], target: object,
               combination: Sequence[str], knows_deletion: bool = False) -> set:
    """The records a recipient who links the versions (by record id) and knows ``target``'s
    true values in every version holding it finds consistent with it on ``combination``:
    every version holding the target holds the record, and each of the record's own cells
    there is suppressed or equal to the target's true value in that version (at that
    version's levels: a release's true values are at its own levels). Brute force, written
    apart from :func:`linked_figures` (issue 32: a target deleted later, or corrected and
    back at another level, is judged by it over every version).

    ``knows_deletion``: the recipient also knows when the target left the line and rules out
    every record present in a version after the last one holding it (an adversary the
    package does not count, for changed and unchanged records alike: docs/living-release.md,
    "A deleted target")."""
    idx = [list(columns).index(c) for c in combination]
    holding = [i for i, release in enumerate(versions) if target in release]
    out = set()
    for rid in set().union(*(set(release) for release in versions)):
        if not all(rid in versions[i] and all(
                versions[i][rid][0][j] is None
                or versions[i][rid][0][j] == versions[i][target][1][j] for j in idx)
                for i in holding):
            continue
        if knows_deletion and any(rid in versions[i]
                                  for i in range(holding[-1] + 1, len(versions))):
            continue
        out.add(rid)
    return out


def ever_linked_violations(columns: Sequence[str], versions: Sequence[Release],
                           combinations: Sequence[Sequence[str]], k: int) -> list[str]:
    """Every record that changed at any point of the line (two versions holding it with
    different true values), whether the last version still holds it or not, linked over
    every version holding it (:func:`linked_set`): those below k. A target deleted in a later
    version stays in recipients' hands; this finds a later version that made its linked set
    smaller than the one the gate counted when it was last published (:func:`linked_violations`
    judges each version's current targets only)."""
    out = []
    ids = set().union(*(set(release) for release in versions)) if versions else set()
    for rid in sorted(ids, key=str):
        if len({tuple(release[rid][1]) for release in versions if rid in release}) < 2:
            continue
        for b in combinations:
            n = len(linked_set(columns, versions, rid, b))
            if n < k:
                out.append(f"{'+'.join(b)}: a record changed in the line is consistent with"
                           f" {n} < k = {k} records linked over every version holding it")
    return out


def changed_rows(versions: Sequence[Release]) -> list[int]:
    """Per consecutive pair of versions: records with the same true values in both whose
    published row differs."""
    out = []
    for before, after in zip(versions, versions[1:], strict=False):
        out.append(sum(1 for rid, (p, t) in after.items()
                       if rid in before and before[rid][1] == t and before[rid][0] != p))
    return out


#: (quasi-identifier, level, value, coarser level) -> the value at the coarser level.
LevelMap = Mapping[tuple[str, int, object, int], object]


def level_map(hierarchy: Iterable[tuple[str, object, int, object]], missing: object = None
              ) -> dict[tuple[str, int, object, int], object]:
    """The hierarchy's rows (QI, original value, level, value at that level) as a map from a
    value at one level to its value at every coarser (or the same) level: two levels' values
    of one original value. ``missing`` (the missing label) is itself at every level."""
    by_original: dict[tuple[str, object], dict[int, object]] = {}
    for q, original, level, value in hierarchy:
        by_original.setdefault((q, original), {})[int(level)] = value
    out: dict[tuple[str, int, object, int], object] = {}
    for (q, _original), values in by_original.items():
        for lo, v in values.items():
            for hi, w in values.items():
                if hi >= lo:
                    out[(q, lo, v, hi)] = w
    if missing is not None:
        levels = {(q, lv) for (q, lv, _v, _h) in out}
        for q, lo in levels:
            for p, hi in levels:
                if p == q and hi >= lo:
                    out[(q, lo, missing, hi)] = missing
    return out


def mixed_level_view(columns: Sequence[str],
                     releases: Sequence[tuple[Mapping[str, int], Release]],
                     up: LevelMap | None = None) -> list[dict]:
    """The combined view of releases of one source at different levels of one hierarchy
    (issue 32, item 2), linked by record id: ``releases`` holds (QI -> level, records) pairs,
    ``up`` the hierarchy (:func:`level_map`; none: no value is known at another level).

    A record's rows that agree on every QI's true value at the coarsest level used are one
    state (a record whose coarsest value changed is a state per value, as at equal levels).
    Per state and QI: ``cells[q]`` the finest revealed cell as (level, value), or None when
    suppressed in every release; ``true_at[(q, l)]`` the true value at every level l used,
    mapped up from the finest true value (None at a finer level: unknown, equal to no cell);
    ``conflict`` when the state's rows, mapped to any level used, give two true values (a
    value changed between releases inside one coarsest group: the gate refuses), or two
    different cells at the finest revealed level."""
    up = up or {}
    used = {q: sorted({levels[q] for levels, _r in releases}) for q in columns}

    def at(q: str, level: int, value: object, to: int) -> object:
        return value if to == level else up.get((q, level, value, to))

    states: dict[tuple, list[tuple[Mapping[str, int], tuple, tuple]]] = {}
    for levels, release in releases:
        for rid, (published, true) in release.items():
            top = []
            for j, q in enumerate(columns):
                coarse = at(q, levels[q], true[j], used[q][-1])
                top.append(true[j] if coarse is None else coarse)
            states.setdefault((rid, tuple(top)), []).append((levels, published, true))
    out = []
    for rows in states.values():
        cells: dict[str, tuple[int, object] | None] = {}
        true_at: dict[tuple[str, int], object] = {}
        conflict = False
        for j, q in enumerate(columns):
            finest = min(levels[q] for levels, _p, _t in rows)
            revealed = [(levels[q], p[j]) for levels, p, _t in rows if p[j] is not None]
            shown = min((lv for lv, _v in revealed), default=None)
            values = {v for lv, v in revealed if lv == shown}
            cells[q] = None if shown is None else (shown, max(values))
            conflict |= len(values) > 1
            for level in used[q]:
                mapped = {at(q, levels[q], t[j], level) for levels, _p, t in rows
                          if levels[q] <= level} - {None}
                conflict |= len(mapped) > 1
            truth = max(t[j] for levels, _p, t in rows if levels[q] == finest)
            for level in used[q]:
                true_at[(q, level)] = at(q, finest, truth, level) if level >= finest else None
        out.append({"cells": cells, "true_at": true_at, "conflict": conflict})
    return out


def mixed_level_figures(columns: Sequence[str],
                        releases: Sequence[tuple[Mapping[str, int], Release]],
                        combinations: Sequence[Sequence[str]], k: int,
                        up: LevelMap | None = None) -> dict[str, tuple[int, int]]:
    """The exact check of :func:`mixed_level_view`: a state t is consistent with a state s
    when, for every QI of the combination, s's cell is suppressed or equals t's true value at
    the level of that cell (unknown counts as not equal). Returns per combination (smallest
    consistent set, states below k). A state's count depends only on its true values of the
    combination's QIs at the levels used, so states agreeing on them are counted once, as
    :func:`view_violations` counts records of equal true values once."""
    view = mixed_level_view(columns, releases, up)
    out = {}
    for b in combinations:
        rows = Counter(tuple(s["cells"][q] for q in b) for s in view)
        targets = Counter(tuple(sorted((key, value) for key, value in s["true_at"].items()
                                       if key[0] in b)) for s in view)
        smallest, below = None, 0
        for target, n_states in targets.items():
            true_at = dict(target)
            n = sum(m for row, m in rows.items()
                    if all(c is None or (true_at[(q, c[0])] is not None
                                         and true_at[(q, c[0])] == c[1])
                           for q, c in zip(b, row, strict=True)))
            smallest = n if smallest is None else min(smallest, n)
            below += n_states if n < k else 0
        out["+".join(b)] = (smallest, below)
    return out
