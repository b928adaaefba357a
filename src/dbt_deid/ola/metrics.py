"""Information-loss metrics used to choose the released node (lower is better).

All four are computed from a node's generalized pattern table (:class:`ClassTable`), so the
value of a node never depends on how its table was derived. Classes smaller than k are the
records the node would suppress; a suppressed record counts as generalized to the top of every
hierarchy. Notation: n records, d QIs, node levels l_j, hierarchy heights h_j, f_j(v) the number
of records with original value v of QI j, F_jl(g) the number of records whose QI j value
generalizes to g at level l, s the suppressed records.

With suppression none of the four is monotone in the lattice: generalizing one more level can
move records out of classes smaller than k, and an unsuppressed record costs less than a
suppressed one. The search for the best passing node (:mod:`dbt_deid.ola.optimum`) therefore
needs, for a node N, a lower bound of the metric over every generalization of N:
:meth:`Metrics.separable` (entropy, loss, precision: the value with no record suppressed, a sum
of per-QI terms that grows with every level) and :meth:`Metrics.upset_bound` (discernibility,
from N's classes). The proofs are next to each method.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dbt_deid.errors import ConfigError
from dbt_deid.ola.evaluate import ClassTable, _kernels, _Layout
from dbt_deid.ola.hierarchies import Hierarchy
from dbt_deid.ola.lattice import Node

METRICS = ("entropy", "precision", "discernibility", "loss")


_SMALL = 1  # _class_terms: the classes smaller than k (kernels.class_terms' mode)
_KEPT = 2  # _class_terms: the classes of k or more


def _compiled() -> bool:
    from dbt_deid.ola import evaluate

    return evaluate._COMPILED


def _at(a: np.ndarray, i: int) -> float:
    return float(a[i])
DEFAULT_METRIC = "entropy"


def check_metric(metric: object) -> str:
    if metric not in METRICS:
        raise ConfigError(f"metric must be one of {list(METRICS)}, got {metric!r}")
    return str(metric)


def entropy_bits(f: np.ndarray, to_level: np.ndarray, n_values: int) -> float:
    """Non-uniform entropy of one QI at one level (Gionis & Tassa; OLA's metric, El Emam et al.
    2009): sum over original values v of f(v) log2(F(g(v)) / f(v)), where ``f`` counts the
    records (or weights) per original value code, ``to_level`` maps each original code to its
    generalized code g and F(g) = sum of f over the values generalizing to g (``n_values``
    generalized codes). The one definition: OLA's :class:`Metrics` and LOLA's
    :func:`dbt_deid.longitudinal.search.non_uniform_entropy` both call it."""
    f = np.asarray(f, dtype=np.float64)
    big_f = np.bincount(to_level, weights=f, minlength=n_values)
    present = f > 0
    return float(np.sum(f[present] * np.log2(big_f[to_level[present]] / f[present])))


class Metrics:
    """Precomputed per-QI, per-level costs for one pattern table."""

    def __init__(self, hierarchies: Sequence[Hierarchy], leaf_table: ClassTable, k: int) -> None:
        self.hierarchies = list(hierarchies)
        self.k = int(k)
        self.n = int(leaf_table.counts.sum())
        self.d = len(self.hierarchies)
        n = float(self.n)
        self._entropy_base: list[list[float]] = []  # E_jl
        self._entropy_extra: list[list[np.ndarray]] = []  # D_jl(g) = log2(n / F_jl(g))
        self._loss: list[list[np.ndarray]] = []  # (leaves(g) - 1) / (leaves - 1)
        self._loss_sep: list[np.ndarray] = []  # per level: sum_g F_jl(g) cost(g) / (n d)
        self._precision_sep: list[np.ndarray] = []  # per level: l / h / d
        self._composed: dict[tuple, tuple] = {}  # cost tables in a layout's compact codes
        self._qi_index = np.arange(self.d, dtype=np.intp)
        self._entropy_sep: list[np.ndarray] = []  # per level: E_jl
        for j, h in enumerate(self.hierarchies):
            f = np.bincount(leaf_table.codes[:, j], weights=leaf_table.counts,
                            minlength=h.n_leaves)
            base, extra, loss = [], [], []
            for lvl in range(h.height + 1):
                big_f = np.bincount(h.maps[lvl], weights=f, minlength=len(h.labels[lvl]))
                base.append(entropy_bits(f, h.maps[lvl], len(h.labels[lvl])))
                with np.errstate(divide="ignore"):
                    extra.append(np.where(big_f > 0, np.log2(n / np.maximum(big_f, 1)), 0.0))
                denom = h.n_leaves - 1
                loss.append((h.leaves_under[lvl] - 1) / denom if denom else
                            np.zeros(len(h.labels[lvl])))
            self._entropy_base.append(base)
            self._entropy_sep.append(np.asarray(base, dtype=np.float64))
            self._entropy_extra.append(extra)
            self._loss.append(loss)
            self._loss_sep.append(np.array([
                float(np.dot(np.bincount(h.maps[lvl], weights=f, minlength=len(h.labels[lvl])),
                             loss[lvl])) / (n * self.d)
                for lvl in range(h.height + 1)]))
            self._precision_sep.append(np.array(
                [(lvl / h.height if h.height else 0.0) / self.d for lvl in range(h.height + 1)]))

    def entropy(self, t: ClassTable) -> float:
        """Non-uniform entropy (OLA's metric; Gionis & Tassa):
        sum over records r and QIs j of -log2( f_j(v_rj) / F_jl(g_rj) ), the information lost
        about the original value v given its generalization g. A record that would be suppressed
        counts as generalized to the root (F = n): cost -log2(f_j(v)/n).
        Computed as sum_j E_jl + sum over suppressed records of sum_j log2(n / F_jl(g)), where
        E_jl = sum_v f_j(v) log2(F_jl(g(v)) / f_j(v)) (every record at the node's level) and
        log2(n/F) is the extra cost of going from g to the root."""
        total = 0.0
        for j, lvl in enumerate(t.node):
            total += self._entropy_base[j][lvl]
        if t.suppressed(self.k):
            total += self._class_terms(t, _SMALL, self._entropy_extra, "entropy")
        return total

    def precision(self, t: ClassTable) -> float:
        """Sweeney's precision loss (El Emam et al. 2009 (CJHP) "precision information-loss
        metric"), averaged over the n*d cells: a cell of QI j at level l_j costs l_j / h_j, how far
        up its hierarchy it went (1 - Prec), and a suppressed cell costs 1 (the top):
        (1/d) sum_j [(n - s) l_j / h_j + s] / n. A QI whose hierarchy has height 0 contributes
        0 when not suppressed. With s = 0 this is the node-level (1/d) sum_j l_j / h_j."""
        s = self.suppressed(t)
        base = sum(float(a[lvl]) for a, lvl in zip(self._precision_sep, t.node, strict=True))
        return ((self.n - s) * base + s) / self.n

    def discernibility(self, t: ClassTable) -> float:
        """Discernibility (Bayardo & Agrawal; El Emam et al. 2009 (CJHP)): sum over classes of size
        >= k of |E|^2, plus n for every suppressed record (a suppressed record is indistinguishable
        from all n)."""
        c = t.counts
        return float(int(np.dot(c, c)) - self._small_squares(t) + self.n * t.suppressed(self.k))

    def _small_squares(self, t: ClassTable) -> int:
        small = t.small(self.k)
        if small is None:
            return 0.0
        c = t.counts[small]
        return int(np.dot(c, c))

    def loss(self, t: ClassTable) -> float:
        """Loss (Iyengar 2002), averaged over the n*d cells: a cell generalized to g costs
        (leaves(g) - 1) / (leaves - 1), leaves counted in the hierarchy; a suppressed cell
        costs 1. (ARX's default "Loss" differs: see docs/ola.md.)"""
        total = self._class_terms(t, _KEPT if t.suppressed(self.k) else None, self._loss, "loss")
        total += float(t.suppressed(self.k)) * self.d
        return total / (self.n * self.d)

    def _class_terms(self, t: ClassTable, select: int | None,
                     per_level: list[list[np.ndarray]], name: str) -> float:
        """sum over the selected classes (``select``: None = all, ``_SMALL`` = those smaller
        than k, ``_KEPT`` = the others) of the class size times sum_j per_level[j][l_j][code_j].
        Keyed tables read the per-value cost tables in the layout's compact codes, composed
        once into one flat array: one (QI x class) matrix of terms for all QIs at once (built
        by :func:`dbt_deid.ola.kernels.class_terms`, or by a numpy gather), then one sum per QI
        (each row summed exactly as a 1-D sum of that QI's terms) added in QI order."""
        lay = t.layout
        if lay is None:
            rows = self._selected_rows(t, select)
            counts = (t.counts if rows is None else t.counts[rows]).astype(np.float64)
            total = 0.0
            for j, lvl in enumerate(t.node):
                total += float((counts * per_level[j][lvl][t.column(j, rows)]).sum())
            return total
        flat, offsets, live = self._composed_table(per_level, name, lay)
        node = np.asarray(t.node, dtype=np.intp)
        use = live[self._qi_index, node]
        if not use.any():
            return 0.0
        qis = self._qi_index[use]
        if _compiled():
            terms = _kernels().class_terms(
                t.keys, t.counts, self.k, 0 if select is None else select, lay.shift[qis],
                lay.mask[qis], offsets[qis, node[use]], flat)
        else:
            rows = self._selected_rows(t, select)
            counts = (t.counts if rows is None else t.counts[rows]).astype(np.float64)
            keys = t.keys if rows is None else t.keys[rows]
            fields = (keys >> lay.shift[qis, None]) & lay.mask[qis, None]
            fields += offsets[qis, node[use]][:, None]
            terms = flat[fields]
            terms *= counts
        total = 0.0
        for part in terms.sum(axis=1).tolist():
            total += part
        return total

    def _selected_rows(self, t: ClassTable, select: int | None) -> np.ndarray | None:
        """The rows of ``t`` that ``select`` picks (None = all of them)."""
        if select is None:
            return None
        return t.small(self.k) if select == _SMALL else ~t.small(self.k)

    def _composed_table(self, per_level: list[list[np.ndarray]], name: str, lay: _Layout
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``per_level`` in ``lay``'s compact codes: cost of compact code c of QI j at level l
        is ``flat[offsets[j, l] + c]``; ``live[j, l]`` is False when every such cost is 0."""
        key = (name, id(lay))
        hit = self._composed.get(key)
        if hit is not None:
            return hit
        height = max(len(levels) for levels in per_level)
        offsets = np.zeros((self.d, height), dtype=np.int64)
        live = np.zeros((self.d, height), dtype=bool)
        parts, used = [], 0
        for j, levels in enumerate(per_level):
            for lvl, costs in enumerate(levels):
                arr = np.asarray(costs, dtype=np.float64)[lay.orig[j][lvl]]
                offsets[j, lvl] = used
                live[j, lvl] = bool(arr.any())
                parts.append(arr)
                used += len(arr)
        hit = (np.concatenate(parts), offsets, live)
        self._composed[key] = hit
        return hit

    def suppressed(self, t: ClassTable) -> int:
        return t.suppressed(self.k)

    def separable(self, metric: str) -> list[np.ndarray] | None:
        """Per QI, per level terms A_j[l] with sum_j A_j[N_j] <= metric(M) for every
        generalization M of N (M >= N on every QI), or None (discernibility).

        * entropy: A_j[l] = E_jl. entropy(M) = sum_j E_jM_j + (a non-negative suppression term)
          and E_jl = sum_v f_j(v) log2(F_jl(g(v)) / f_j(v)) grows with l (F only grows).
        * loss: A_j[l] = sum_g F_jl(g) cost_jl(g) / (n d): a kept cell costs cost_jM_j(g) >=
          cost_jN_j(g) (more leaves under a higher ancestor) and a suppressed cell 1 >= any
          cost.
        * precision: A_j[l] = l / h_j / d: a kept cell costs l_j / h_j >= N_j / h_j and a
          suppressed one 1.
        The value with no record suppressed, sum_j A_j[N_j], is the lower bound ARX uses for
        the same metrics (its "lower bound" of a transformation)."""
        metric = check_metric(metric)
        if metric == "entropy":
            return self._entropy_sep
        if metric == "loss":
            return self._loss_sep
        if metric == "precision":
            return self._precision_sep
        return None

    def upset_bound(self, metric: str, t: ClassTable) -> float:
        """A lower bound of the metric over every generalization of ``t.node`` (itself
        included). Discernibility: sum over classes E of |E| max(|E|, k): a record of class E
        is, at a generalization M, either kept in a class containing E and of size >= k, or
        suppressed at cost n >= k, |E|; the others: :meth:`separable`."""
        sep = self.separable(metric)
        if sep is None:
            c = t.counts
            return float(np.dot(c, np.maximum(c, self.k)))
        return float(sum(map(_at, sep, t.node)))

    def value(self, metric: str, t: ClassTable) -> float:
        return float(getattr(self, check_metric(metric))(t))

    def all(self, t: ClassTable) -> dict[str, float]:
        return {m: self.value(m, t) for m in METRICS}


def selection_key(value: float, node: Node) -> tuple[float, int, Node]:
    """Deterministic order of candidates: metric value (to 12 significant digits, so values
    that differ only by float rounding tie), then lower height, then lexicographic node."""
    return (float(f"{value:.12g}"), sum(node), tuple(node))
