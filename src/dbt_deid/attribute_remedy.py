"""The attribute-disclosure remedy of the suppression: a failing class is a small class.

``attribute_disclosure: {remedy: suppress}`` (``docs/attribute-disclosure-remedy.md``): in the
combinations cell-suppression algorithm of El Emam et al. 2011 (discharge PUMF, "Combinations
Suppression Algorithm", Figure 4, phase 2), an equivalence class is a *mole* when it is smaller
than k **or** fails one of the release's attribute-disclosure models (distinct, entropy or
recursive (c, l)-diversity, Machanavajjhala et al. 2007 section 4; t-closeness under the equal,
ordered or hierarchical ground distance, Li et al. 2007 section 4.2). Its values are suppressed
in the seed's order (increasing weighted support, then column position and label) until it
merges into a class that passes, or ends in the fully suppressed class, which is then grown by
whole classes until it passes too. Merged classes' sensitive distributions add up.

A class is the gates' (``macros/gates/attribute_disclosure.sql``): the records with equal
released values of a verified combination, a suppressed cell its own category. The pattern
table carries the sensitive values (one row per QI pattern x sensitive tuple, built in SQL by
``dbt_deid.sensitive_pattern_counts_sql``, with each value's rank in an ordered column's order
and its ancestors in a hierarchical column's hierarchy), so the classes' distributions are
known exactly; the figures are :mod:`dbt_deid.attribute_disclosure`'s, the gates' Python
reference, with the same tolerance, so a class this module passes is a class the SQL gate
passes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dbt_deid import attribute_disclosure as ad
from dbt_deid.errors import ConfigError

#: The values of ``attribute_disclosure.remedy``.
REMEDIES = ("none", "suppress")

Dist = dict[int, int]


@dataclass(frozen=True)
class Remedy:
    """What the suppression treats as small besides classes below k: classes of
    ``combinations`` failing ``models`` on any of the sensitive ``columns`` (columns of the
    pattern table; their values are never suppressed)."""

    models: ad.Models
    columns: tuple[str, ...]
    combinations: tuple[tuple[str, ...], ...] = ()
    #: (column, its values in order): t-closeness under the ordered distance for these columns
    #: (every value of the column, as text, smallest first; the others: the equal distance)
    orders: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: (column, its hierarchy's rows [value, level 1 ancestor, ..., root] as text, one per
    #: value of the column): t-closeness under the hierarchical distance for these columns
    hierarchies: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = ()

    def fails(self, dists: Sequence[Mapping[int, int]], wholes: Sequence[Mapping[int, int]],
              orders: Sequence[Distance] | None = None) -> bool:
        """Whether a class with these per-column distributions fails any model."""
        return self.deficit(dists, wholes, orders) > 0

    def deficit(self, dists: Sequence[Mapping[int, int]],
                wholes: Sequence[Mapping[int, int]],
                orders: Sequence[Distance] | None = None) -> float:
        """How far a class is from passing (0 when it passes every model): the sum over the
        sensitive columns and models of the shortfall of its figure (distinct values below
        l, entropy below log(l), recursive ratio at or above c, EMD above t), with the gate's
        tolerance. The growth of the fully suppressed class picks classes that lower it.
        ``orders``: per column its value codes in order (ordered distance), a
        :class:`LeafTree` (hierarchical distance) or None (equal)."""
        m = self.models
        total = 0.0
        orders = orders or [None] * len(dists)
        for counts, whole, order in zip(dists, wholes, orders, strict=True):
            if m.distinct_l is not None:
                total += max(0, m.distinct_l - ad.distinct_values(counts))
            if m.entropy_l is not None:
                gap = math.log(m.entropy_l) - ad.entropy(counts)
                total += gap if gap > ad.TOLERANCE else 0.0
            if m.recursive_c is not None and m.recursive_l is not None:
                ratio = ad.recursive_ratio(counts, m.recursive_l)
                if not ratio < m.recursive_c:
                    total += (1.0 + m.recursive_l - ad.distinct_values(counts)
                              if ratio == math.inf else ratio - m.recursive_c + 1e-6)
            if m.t is not None:
                if order is None:
                    emd = ad.emd_equal(counts, whole)
                elif isinstance(order, LeafTree):
                    emd = order.emd(counts, whole)
                else:
                    emd = ad.emd_ordered(counts, whole, order)
                gap = emd - m.t
                total += gap if gap > ad.TOLERANCE else 0.0
        return total


def remedy_of(spec: Mapping[str, Any] | None, sensitive: Sequence[str],
              combinations: Sequence[Sequence[str]],
              orders: Mapping[str, Sequence[str]] | None = None,
              hierarchies: Mapping[str, Sequence[Sequence[str]]] | None = None) -> Remedy | None:
    """The remedy of a release's ``attribute_disclosure`` settings, None when it is off (the
    default: the suppression is then exactly seed 000's). ``orders``: the values of the
    ``ordered`` sensitive columns in order (:func:`orders_of`); ``hierarchies``: the ancestor
    paths of the values of the hierarchical ones (:func:`hierarchies_of`)."""
    spec = spec or {}
    choice = spec.get("remedy") or "none"
    if choice not in REMEDIES:
        raise ConfigError(f"attribute_disclosure.remedy: must be one of {list(REMEDIES)},"
                          f" got {choice!r}")
    if choice == "none":
        return None
    models = ad.Models(distinct_l=spec.get("distinct_l"), entropy_l=spec.get("entropy_l"),
                       recursive_c=spec.get("recursive_c"), recursive_l=spec.get("recursive_l"),
                       t=spec.get("t"))
    return Remedy(models, tuple(sensitive), tuple(tuple(c) for c in combinations),
                  tuple((c, tuple(v)) for c, v in (orders or {}).items()),
                  tuple((c, tuple(tuple(r) for r in rows))
                        for c, rows in (hierarchies or {}).items()))


#: The pattern table's column of a sensitive column's rank in its order (ordered distance).
ORDER_SUFFIX = "__order"


def orders_of(frame: Any, spec: Mapping[str, Any] | None, sensitive: Sequence[str]
              ) -> dict[str, list[str]]:
    """The values (as text) of each ``ordered`` sensitive column in its order, read from the
    pattern table's ``<column>__order`` ranks (``dbt_deid.sensitive_pattern_counts_sql``:
    dense_rank over the typed values, missing last, the order the gate uses)."""
    ordered = {str(c).lower() for c in (spec or {}).get("ordered") or []}
    out: dict[str, list[str]] = {}
    for col in sensitive:
        if col.lower() not in ordered:
            continue
        rank = f"{col}{ORDER_SUFFIX}"
        if rank not in frame.columns:
            raise ConfigError(f"attribute_disclosure.ordered: the pattern table has no {rank!r}"
                              " column (rebuild deid_patterns)")
        pairs = frame[[col, rank]].drop_duplicates()
        pairs = pairs.assign(_r=pairs[rank].astype("int64")).sort_values(["_r", col])
        out[col] = [str(v) for v in pairs[col].tolist()]
    return out


#: The pattern table's columns of a sensitive value's ancestors (hierarchical distance):
#: ``<column>__level_1`` ... ``<column>__level_H``, H the hierarchy's height.
LEVEL_INFIX = "__level_"


def hierarchies_of(frame: Any, spec: Mapping[str, Any] | None, sensitive: Sequence[str]
                   ) -> dict[str, list[tuple[str, ...]]]:
    """Per sensitive column under the hierarchical distance (``attribute_disclosure.
    hierarchies``), its values' rows [value, level 1 ancestor, ..., root] as text, read from the
    pattern table's ``<column>__level_<h>`` columns (``dbt_deid.sensitive_pattern_counts_sql``
    joins them from the hierarchy the gate reads). Values absent from the table have no effect
    on the distance (their extra is 0), so these rows give the gate's EMD."""
    named = {str(c).lower() for c in ((spec or {}).get("hierarchies") or {})}
    out: dict[str, list[tuple[str, ...]]] = {}
    for col in sensitive:
        if col.lower() not in named:
            continue
        levels = []
        while f"{col}{LEVEL_INFIX}{len(levels) + 1}" in frame.columns:
            levels.append(f"{col}{LEVEL_INFIX}{len(levels) + 1}")
        if not levels:
            raise ConfigError(f"attribute_disclosure.hierarchies: the pattern table has no"
                              f" {col + LEVEL_INFIX + '1'!r} column (rebuild deid_patterns; a"
                              " hierarchy needs a level above its values)")
        rows = frame[[col, *levels]].drop_duplicates()
        unplaced = rows[levels].isna().any(axis=1)
        if unplaced.any():
            raise ConfigError(f"attribute_disclosure.hierarchies: {int(unplaced.sum())} value(s)"
                              f" of {col!r} are not leaves of its hierarchy (the t_closeness"
                              " gate refuses them; add them to the hierarchy)")
        paths = sorted(tuple(str(v) for v in r) for r in rows.itertuples(index=False, name=None))
        if len({p[0] for p in paths}) != len(paths):
            raise ConfigError(f"attribute_disclosure.hierarchies: a value of {col!r} has two"
                              " rows in its hierarchy (one row per value)")
        out[col] = paths
    return out


class LeafTree:
    """The hierarchical ground distance of the t-closeness gate on value codes (Li et al.
    2007, section 4.2; ``macros/gates/attribute_disclosure.sql``, CTE ``costs``): the extra of
    a value is p - q; at each level h = 1..H, a node's children are the groups of values with
    equal (level h, level h - 1) labels, their extras summed, and the node (its level h label)
    costs h/H min(positive extras, negative extras) of its children. On a tree this is
    :func:`dbt_deid.attribute_disclosure.emd_hierarchical` (the reference; a unit test checks
    it); where a label repeats under two parents it is the gate's grouping."""

    def __init__(self, rows: Sequence[Sequence[str]], labels: np.ndarray) -> None:
        code = {str(v): i for i, v in enumerate(labels)}
        self.height = len(rows[0]) - 1 if rows else 0
        placed = {str(r[0]) for r in rows}
        missing = [v for v in labels if str(v) not in placed]
        if missing:
            raise ConfigError(f"attribute_disclosure.hierarchies: {len(missing)} value(s) have"
                              " no row in the hierarchy")
        # per level: leaf code -> child group, child group -> parent group
        self.levels: list[tuple[dict[int, int], list[int]]] = []
        for h in range(1, self.height + 1):
            child_of: dict[tuple[str, str], int] = {}
            parent_of: dict[str, int] = {}
            leaf_child: dict[int, int] = {}
            parents: list[int] = []
            for r in rows:
                if str(r[0]) not in code:
                    continue
                key = (str(r[h]), str(r[h - 1]))
                if key not in child_of:
                    child_of[key] = len(child_of)
                    parents.append(parent_of.setdefault(key[0], len(parent_of)))
                leaf_child[code[str(r[0])]] = child_of[key]
            self.levels.append((leaf_child, parents))

    def emd(self, cls: Mapping[int, int], whole: Mapping[int, int]) -> float:
        """The EMD between a class's distribution ``cls`` and ``whole`` (value code ->
        records)."""
        if self.height == 0:
            return 0.0
        n, m = sum(cls.values()), sum(whole.values())
        extra = {v: cls.get(v, 0) / n - q / m for v, q in whole.items()}
        cost = 0.0
        for h, (leaf_child, parents) in enumerate(self.levels, start=1):
            net = [0.0] * len(parents)
            for v, e in extra.items():
                net[leaf_child[v]] += e
            pos = [0.0] * (max(parents) + 1)
            neg = [0.0] * len(pos)
            for e, p in zip(net, parents, strict=True):
                if e > 0:
                    pos[p] += e
                else:
                    neg[p] -= e
            cost += h / self.height * sum(min(a, b) for a, b in zip(pos, neg, strict=True))
        return cost


#: The ground distance of a sensitive column: None (equal), value codes in order (ordered) or
#: a LeafTree (hierarchical).
Distance = Sequence[int] | LeafTree | None


def check_remedy(spec: Mapping[str, Any], algorithm: str | None,
                 cell_suppression: bool = True, population_first: bool = False) -> None:
    """The remedy's own constraints, checked once by the settings resolver
    (:func:`dbt_deid.settings_resolve.resolve`, run by the plan node): it needs a model to
    remedy, runs inside the combinations (or complete) cell-suppression algorithm (not
    mask_cover, not OLA's record suppression), and not under ``sample.order:
    population_first``, where the suppression sees the population's classes while the gates
    judge the published sample's. Every ground distance of t-closeness is remedied (equal,
    ordered, hierarchical)."""
    if (spec.get("remedy") or "none") != "suppress":
        return
    if all(spec.get(m) is None for m in ("distinct_l", "entropy_l", "recursive_c", "t")):
        raise ConfigError("attribute_disclosure.remedy: suppress needs a model to remedy (set"
                          " distinct_l, entropy_l, recursive_c with recursive_l, or t)")
    if not cell_suppression:
        raise ConfigError("attribute_disclosure.remedy: suppress works with cell suppression,"
                          " not generalization.suppression: records")
    if population_first:
        raise ConfigError("attribute_disclosure.remedy: suppress does not work with sample.order:"
                          " population_first (the suppression sees the population's classes,"
                          " the gates the published sample's)")
    if algorithm not in (None, "combinations", "complete"):
        raise ConfigError("attribute_disclosure.remedy: suppress works with algorithm"
                          f" combinations or complete, not {algorithm!r}")


class ClassDistributions:
    """The sensitive distributions of the classes of one combination: per class id (of a
    ``suppression._ClassIndex``) one value -> records dict per sensitive column, moved with
    the rows as cells are suppressed, and whether each class fails (cached per class)."""

    def __init__(self, remedy: Remedy, scodes: np.ndarray, counts: np.ndarray,
                 cid: np.ndarray, labels: Sequence[np.ndarray]) -> None:
        self.remedy = remedy
        self.scodes = scodes  # (rows, sensitive columns) codes, never suppressed
        self.orders = code_orders(remedy, labels)
        self.dists: dict[int, list[Dist]] = {}
        n_cols = scodes.shape[1]
        self.wholes: list[Dist] = [_bincount_dict(scodes[:, j], counts) for j in range(n_cols)]
        self._fails: dict[int, bool] = {}
        self._add(np.arange(len(cid)), cid, counts)

    def _add(self, rows: np.ndarray, cid: np.ndarray, counts: np.ndarray, sign: int = 1
             ) -> None:
        n_cols = self.scodes.shape[1]
        for r, c in zip(rows.tolist(), cid.tolist(), strict=True):
            d = self.dists.get(c)
            if d is None:
                d = self.dists[c] = [{} for _ in range(n_cols)]
            n = sign * int(counts[r])
            for j in range(n_cols):
                v = int(self.scodes[r, j])
                left = d[j].get(v, 0) + n
                if left:
                    d[j][v] = left
                else:
                    del d[j][v]
            self._fails.pop(c, None)

    def move(self, rows: np.ndarray, old: np.ndarray, new: np.ndarray, counts: np.ndarray
             ) -> None:
        """Rows ``rows`` moved from classes ``old`` to ``new``."""
        self._add(rows, old, counts, -1)
        self._add(rows, new, counts)

    def fails(self, c: int) -> bool:
        """Whether class ``c`` (non-empty) fails a model."""
        hit = self._fails.get(c)
        if hit is None:
            d = self.dists.get(c)
            hit = bool(d) and any(d) and self.remedy.fails(d, self.wholes, self.orders)
            self._fails[c] = hit
        return hit

    def failing_mask(self, cids: np.ndarray) -> np.ndarray:
        return np.fromiter((self.fails(int(c)) for c in cids), dtype=bool, count=len(cids))


def _bincount_dict(codes: np.ndarray, counts: np.ndarray) -> Dist:
    out: Dist = {}
    for v, n in zip(codes.tolist(), counts.tolist(), strict=True):
        out[v] = out.get(v, 0) + int(n)
    return out


def merged(a: Sequence[Mapping[int, int]], b: Sequence[Mapping[int, int]]) -> list[Dist]:
    """The distributions of two classes merged (counts add up)."""
    out = []
    for x, y in zip(a, b, strict=True):
        d = dict(x)
        for v, n in y.items():
            d[v] = d.get(v, 0) + n
        out.append(d)
    return out


def code_orders(remedy: Remedy, labels: Sequence[np.ndarray]) -> list[Distance]:
    """Per sensitive column, the codes (positions in ``labels``, the pattern table's sorted
    labels) of its values in the column's order, its :class:`LeafTree` (hierarchical distance)
    or None for the equal distance."""
    given = dict(remedy.orders)
    trees = dict(remedy.hierarchies)
    out: list[Distance] = []
    for col, lab in zip(remedy.columns, labels, strict=True):
        order = given.get(col)
        if col in trees:
            out.append(LeafTree(trees[col], lab))
            continue
        if order is None:
            out.append(None)
            continue
        code = {str(v): i for i, v in enumerate(lab)}
        placed = set(order)
        missing = [v for v in lab if str(v) not in placed]
        if missing:
            raise ConfigError(f"attribute_disclosure.ordered: {len(missing)} value(s) of"
                              f" {col!r} have no place in its order")
        out.append([code[v] for v in order if v in code])
    return out


def failing_classes_count(remedy: Remedy, scodes: np.ndarray, counts: np.ndarray,
                          keys: np.ndarray, labels: Sequence[np.ndarray]) -> int:
    """The number of classes (rows grouped by ``keys``) failing the remedy's models."""
    _, cid = np.unique(keys, return_inverse=True)
    dists = ClassDistributions(remedy, scodes, counts, cid.reshape(-1), labels)
    return sum(1 for c in dists.dists if dists.fails(c))
