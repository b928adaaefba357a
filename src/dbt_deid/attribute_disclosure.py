"""Attribute disclosure: l-diversity and t-closeness of a released table (reference).

k-anonymity bounds identity disclosure only: a class of k records that all carry the same
sensitive value tells that value of whoever is known to be in it (the homogeneity attack,
Machanavajjhala et al. 2007, "l-Diversity: Privacy Beyond k-Anonymity", ACM TKDD 1(1),
section 3.1). The gates of ``macros/gates/attribute_disclosure.sql`` compute, per verified
combination and sensitive column, the figures defined here; this module is the Python reference
the unit tests check against hand-computed cases (no dbt import). The definitions are ARX's
(``org.deidentifier.arx.criteria``, 3.9.2), which follow the papers:

* distinct l-diversity: a class holds at least l distinct sensitive values (Machanavajjhala et
  al. 2007, section 4.1, the "informal" principle ARX implements as DistinctLDiversity);
* entropy l-diversity: Entropy(class) = -sum p(s) log p(s) >= log(l) (ibid. Definition 4.1;
  Shannon estimator, natural logarithm: the base cancels);
* recursive (c, l)-diversity: with the class's value counts sorted r_1 >= r_2 >= ... >= r_m,
  r_1 < c (r_l + r_(l+1) + ... + r_m), and m >= l (ibid. Definition 4.2);
* t-closeness: the Earth Mover's Distance between the class's distribution P and the whole
  table's Q is at most t (Li, Li and Venkatasubramanian 2007, "t-Closeness: Privacy Beyond
  k-Anonymity and l-Diversity", ICDE, section 4), with three ground distances (section 4.2):
  equal (every two values at distance 1: D = 1/2 sum |p_i - q_i|), ordered (values v_1 < ... <
  v_m at distance |i - j| / (m - 1): D = 1/(m - 1) sum_i |sum_(j<=i) (p_j - q_j)|) and
  hierarchical (two leaves at distance level(lowest common ancestor) / H, H the hierarchy's
  height: D = sum over inner nodes N of level(N)/H min(pos_extra(N), neg_extra(N))).

A class is a set of records with equal released values of the combination, a suppressed cell
being its own category (as the k-anonymity gate's own-category classes). Q is the distribution
over every released record: rows are never dropped and the sensitive column is published
unchanged, so Q is the input's distribution. A missing sensitive value is a value of its own.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

#: The floating-point tolerance of the entropy and t-closeness comparisons (SQL engines and Java
#: round differently; a class exactly at the limit, e.g. l equally frequent values under entropy
#: l-diversity, passes everywhere).
TOLERANCE = 1e-9

Counts = Mapping[Hashable, int]


def distinct_values(counts: Counts) -> int:
    """The number of distinct sensitive values with a positive count."""
    return sum(1 for n in counts.values() if n > 0)


def entropy(counts: Counts) -> float:
    """Shannon entropy (natural log) of a class's sensitive values (Machanavajjhala et al. 2007,
    Definition 4.1)."""
    total = sum(counts.values())
    return -sum(n / total * math.log(n / total) for n in counts.values() if n > 0)


def entropy_l(counts: Counts) -> float:
    """The largest l the class is entropy l-diverse for: exp(Entropy)."""
    return math.exp(entropy(counts))


def recursive_ratio(counts: Counts, l: int) -> float:  # noqa: E741
    """r_1 / (r_l + ... + r_m): the class is recursive (c, l)-diverse iff this is < c
    (Machanavajjhala et al. 2007, Definition 4.2); infinity when it has fewer than l values."""
    r = sorted((n for n in counts.values() if n > 0), reverse=True)
    if len(r) < l:
        return math.inf
    return r[0] / sum(r[l - 1:])


def is_recursive_cl_diverse(counts: Counts, c: float, l: int) -> bool:  # noqa: E741
    """Recursive (c, l)-diversity: r_1 < c (r_l + ... + r_m), m >= l (ARX
    RecursiveCLDiversity)."""
    r = sorted((n for n in counts.values() if n > 0), reverse=True)
    return len(r) >= l and r[0] < c * sum(r[l - 1:])


def _shares(counts: Counts) -> dict[Hashable, float]:
    total = sum(counts.values())
    return {v: n / total for v, n in counts.items()}


def emd_equal(cls: Counts, whole: Counts) -> float:
    """EMD under the equal ground distance: 1/2 sum_i |p_i - q_i| (Li et al. 2007, 4.2)."""
    p, q = _shares(cls), _shares(whole)
    return 0.5 * sum(abs(p.get(v, 0.0) - q.get(v, 0.0)) for v in set(p) | set(q))


def emd_ordered(cls: Counts, whole: Counts, order: Sequence[Hashable]) -> float:
    """EMD under the ordered distance: 1/(m-1) sum_i |sum_(j<=i) (p_j - q_j)|, the values in
    ``order`` (every value of ``whole``, smallest first; Li et al. 2007, 4.2). 0 when m = 1."""
    p, q = _shares(cls), _shares(whole)
    m = len(order)
    if m <= 1:
        return 0.0
    cum, total = 0.0, 0.0
    for v in order:
        cum += p.get(v, 0.0) - q.get(v, 0.0)
        total += abs(cum)
    return total / (m - 1)


def emd_hierarchical(cls: Counts, whole: Counts, hierarchy: Sequence[Sequence[Hashable]]) -> float:
    """EMD under the hierarchical distance (Li et al. 2007, 4.2): ``hierarchy`` has one row per
    leaf, [leaf, level 1 ancestor, ..., root] (ARX's layout), height H = columns - 1. The
    extra of a leaf is p_i - q_i, of an inner node the sum of its children's; an inner node N at
    level h costs h/H min(pos_extra(N), neg_extra(N)), pos/neg_extra the sums of its
    children's positive and (absolute) negative extras. Nodes are identified by their label at
    their level (as ARX's DataManager.getTree)."""
    p, q = _shares(cls), _shares(whole)
    rows = [list(r) for r in hierarchy]
    height = len(rows[0]) - 1
    missing = (set(p) | set(q)) - {r[0] for r in rows}
    if missing:
        raise ValueError(f"{len(missing)} sensitive value(s) are not leaves of the hierarchy")
    if height == 0:
        return 0.0
    extra: dict[Hashable, float] = {}
    for r in rows:
        extra[r[0]] = p.get(r[0], 0.0) - q.get(r[0], 0.0)
    cost = 0.0
    for h in range(1, height + 1):
        children: dict[Hashable, set[Hashable]] = {}
        for r in rows:
            children.setdefault(r[h], set()).add(r[h - 1])
        nxt: dict[Hashable, float] = {}
        for node, kids in children.items():
            pos = sum(extra[k] for k in kids if extra[k] > 0)
            neg = -sum(extra[k] for k in kids if extra[k] < 0)
            cost += h / height * min(pos, neg)
            nxt[node] = pos - neg
        extra = nxt
    return cost


@dataclass(frozen=True)
class Models:
    """The attribute-disclosure limits of a release (None: that model is not gated)."""

    distinct_l: int | None = None
    entropy_l: float | None = None
    recursive_c: float | None = None
    recursive_l: int | None = None
    t: float | None = None


def class_figures(
    frame: pd.DataFrame, qis: Sequence[str], sensitive: str, *,
    distance: str = "equal", order: Sequence[Hashable] | None = None,
    hierarchy: Sequence[Sequence[Hashable]] | None = None, recursive_l: int | None = None,
    missing: Hashable = "<missing>",
) -> pd.DataFrame:
    """One row per class of ``frame`` over ``qis`` (NULL its own category): records,
    distinct, entropy_l, recursive_ratio (when ``recursive_l``) and emd (under ``distance``:
    equal, ordered, with ``order`` or the values' own sort, or hierarchical with
    ``hierarchy``)."""
    keys = frame[list(qis)].astype(object).where(frame[list(qis)].notna(), None)
    values = frame[sensitive].astype(object).where(frame[sensitive].notna(), missing)
    whole = values.value_counts().to_dict()
    if distance == "ordered" and order is None:
        order = sorted(whole, key=_sort_key)
    out = []
    groups: dict[tuple, dict[Hashable, int]] = {}
    for key, v in zip(keys.itertuples(index=False, name=None), values, strict=True):
        d = groups.setdefault(tuple(key), {})
        d[v] = d.get(v, 0) + 1
    for key, counts in groups.items():
        if distance == "equal":
            emd = emd_equal(counts, whole)
        elif distance == "ordered":
            emd = emd_ordered(counts, whole, order or [])
        elif distance == "hierarchical":
            if hierarchy is None:
                raise ValueError("the hierarchical distance needs a hierarchy")
            emd = emd_hierarchical(counts, whole, hierarchy)
        else:
            raise ValueError(f"unknown distance {distance!r}")
        out.append({"class": key, "records": sum(counts.values()),
                    "distinct": distinct_values(counts), "entropy_l": entropy_l(counts),
                    "recursive_ratio": (recursive_ratio(counts, recursive_l)
                                        if recursive_l else math.nan),
                    "emd": emd})
    return pd.DataFrame(out)


def _sort_key(v: Hashable) -> tuple[int, float, str]:
    """Numbers in numeric order, then text (the missing label last among texts' order)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (0, float(v), "")
    return (1, 0.0, str(v))


def failing_classes(figures: pd.DataFrame, models: Models) -> dict[str, int]:
    """Model -> number of classes that fail it (only the models that are set)."""
    out: dict[str, int] = {}
    if models.distinct_l is not None:
        out["distinct_l_diversity"] = int((figures["distinct"] < models.distinct_l).sum())
    if models.entropy_l is not None:
        limit = math.log(models.entropy_l) - TOLERANCE
        out["entropy_l_diversity"] = int(
            (figures["entropy_l"].map(lambda x: math.log(x)) < limit).sum())
    if models.recursive_c is not None and models.recursive_l is not None:
        out["recursive_cl_diversity"] = int(
            (~(figures["recursive_ratio"] < models.recursive_c)).sum())
    if models.t is not None:
        out["t_closeness"] = int((figures["emd"] > models.t + TOLERANCE).sum())
    return out


def release_figures(figures: pd.DataFrame) -> dict[str, float]:
    """The release's figures of one combination and sensitive column: the smallest distinct l,
    the smallest entropy l, the largest recursive ratio among the classes with at least l
    values (-1 when none has; a class below l values fails recursive (c, l)-diversity
    whatever c) and the largest EMD over its classes (the worst class, as the gate reports
    them)."""
    ratios = figures["recursive_ratio"][figures["recursive_ratio"] < math.inf]
    return {"distinct_l": int(figures["distinct"].min()),
            "entropy_l": float(figures["entropy_l"].min()),
            "recursive_ratio": float(ratios.max()) if ratios.notna().any() else -1.0,
            "t": float(figures["emd"].max())}


def hierarchy_rows(frame: pd.DataFrame) -> list[list[Hashable]]:
    """An ARX-layout hierarchy (one row per leaf, finest first) as lists."""
    return [list(r) for r in frame.itertuples(index=False, name=None)]


def counts_of(values: Iterable[Hashable]) -> dict[Hashable, int]:
    """Value -> count."""
    out: dict[Hashable, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out
