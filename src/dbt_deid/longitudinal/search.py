"""LOLA: OLA's lattice search with bootstrap node evaluation (El Emam et al. 2012, "Base Algorithm",
"Node Computation").

The lattice has one dimension per hierarchical QI (age, days in hospital, LOS, DSFC in the
paper, Table 4). :func:`dbt_deid.ola.search.ola_search` finds the k-minimal nodes using
:meth:`NodeEvaluator.is_passing` (mean high-risk share <= MaxSup); among them LOLA picks the one
with the least non-uniform entropy (ties: lower height, then lexicographic).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from dbt_deid.longitudinal.bootstrap import BootstrapResult, NodeEvaluator
from dbt_deid.longitudinal.encoding import EncodedData
from dbt_deid.ola.lattice import Lattice
from dbt_deid.ola.metrics import entropy_bits
from dbt_deid.ola.search import exhaustive_search, ola_search
from dbt_deid.progress import Logger, get_logger


def non_uniform_entropy(data: EncodedData, node: tuple[int, ...]) -> float:
    """Non-uniform entropy of the lattice QIs at ``node`` (OLA's metric, Gionis & Tassa):
    sum over records r and QIs j of log2(F_j(g(v_rj)) / f_j(v_rj)), f counting original values
    and F generalized ones; demographic QIs count patients, claim QIs count claims."""
    levels = data.spec.levels(node)
    total = 0.0
    for _, cols in data.spec.dimensions:
        for c in cols:
            lvl = levels[c]
            if lvl == 0:
                continue
            if c in data.demo_codes:
                codes, cards = data.demo_codes[c], data.demo_cards[c]
            else:
                codes, cards = data.claim_codes[c], data.claim_cards[c]
            f = np.bincount(codes[0], minlength=cards[0])
            g = np.zeros(cards[0], dtype=np.int64)
            g[codes[0]] = codes[lvl]
            total += entropy_bits(f, g, cards[lvl])
    return total


@dataclass
class LolaResult:
    """The chosen node (None when even the top node fails), its levels by dimension, the
    candidates with their entropy, every evaluated node's bootstrap result."""

    chosen: tuple[int, ...] | None
    levels: dict[str, int] | None
    entropy: float | None
    candidates: list[tuple[tuple[int, ...], float]]
    evaluations: dict[tuple[int, ...], BootstrapResult]
    evaluated: int
    lattice_size: int
    seconds: float
    dimensions: tuple[str, ...] = field(default_factory=tuple)

    @property
    def chosen_result(self) -> BootstrapResult | None:
        return None if self.chosen is None else self.evaluations.get(self.chosen)

    def as_dict(self) -> dict[str, object]:
        res = self.chosen_result
        return {
            "chosen_node": None if self.chosen is None else list(self.chosen),
            "levels": self.levels,
            "entropy": self.entropy,
            "bootstrap": None if res is None else res.as_dict(),
            "k_minimal": [{"node": list(n), "entropy": e} for n, e in self.candidates],
            "nodes_evaluated": self.evaluated,
            "lattice_size": self.lattice_size,
            "seconds": round(self.seconds, 3),
        }


def lattice_for(
    data: EncodedData,
    min_levels: tuple[int, ...] | None = None,
    max_levels: tuple[int, ...] | None = None,
) -> Lattice:
    """The lattice over the spec's dimensions, by default from level 0 to the hierarchy
    heights."""
    heights = data.dimension_heights()
    return Lattice(
        data.spec.dimension_names,
        tuple(min_levels) if min_levels is not None else (0,) * len(heights),
        tuple(max_levels) if max_levels is not None else heights,
    )


def lola_search(
    data: EncodedData,
    evaluator: NodeEvaluator,
    lattice: Lattice | None = None,
    *,
    exhaustive: bool = False,
    logger: Logger | None = None,
) -> LolaResult:
    """Run LOLA on ``data`` (the released claims, D2) with ``evaluator`` built on it.

    ``exhaustive=True`` evaluates every node instead of OLA's search (reference for tests).
    """
    log = logger or get_logger("dbt_deid.longitudinal")
    lattice = lattice or lattice_for(data)
    t0 = time.perf_counter()
    if exhaustive:
        found = exhaustive_search(lattice, evaluator.is_passing)
    else:
        found = ola_search(lattice, evaluator.is_passing, logger=log)
    cands = [(tuple(n), non_uniform_entropy(data, tuple(n))) for n in found.k_minimal]
    cands.sort(key=lambda c: (c[1], sum(c[0]), c[0]))
    chosen = cands[0][0] if cands else None
    log.info(f"LOLA: {found.evaluated} of {found.lattice_size} nodes evaluated,"
             f" {len(cands)} k-minimal")
    return LolaResult(
        chosen=chosen,
        levels=None if chosen is None else dict(zip(lattice.names, chosen, strict=True)),
        entropy=cands[0][1] if cands else None,
        candidates=cands,
        evaluations={n: evaluator.results[n] for n in found.evaluations if n in evaluator.results},
        evaluated=found.evaluated,
        lattice_size=found.lattice_size,
        seconds=time.perf_counter() - t0,
        dimensions=lattice.names,
    )


def relax_message(
    evaluator: NodeEvaluator, top: tuple[int, ...], names: tuple[str, ...], *, alpha: float,
    p_max: int,
) -> str:
    """What to relax when no node passes (El Emam et al. 2009 (CJHP)'s flow chart, as OLA's gate
    says it): the figures at the top node, the MaxSup that would pass it, the smallest k (and tau)
    with which it would pass, the share the demographics alone give (no claim knowledge: when it is
    above MaxSup only coarser demographics help) and the adversary's power."""
    ev = evaluator
    res = ev.evaluate(top)
    where = ", ".join(f"{n}={v}" for n, v in zip(names, top, strict=True))
    demo = ev.demographic_share(top)
    smaller = ev.shares_below(top, list(range(ev.k - 1, 1, -1))) if ev.k > 2 else {}
    lines = [
        f"LOLA found no node whose estimated share of high-risk patients (fewer than k = {ev.k}"
        f" matching patients) is at most MaxSup = {ev.max_sup:g}. At the top node ({where}) the"
        f" share is {res.mean:.4f} (95% interval {res.ci_low:.4f}-{res.ci_high:.4f}); the"
        f" demographics alone (no claim known) give {demo:.4f}. Relax a limit (El Emam et al. 2009"
        f" (CJHP)):"
        f" MaxSup: set max_suppression to at least {np.ceil(res.mean * 1e4) / 1e4:g};",
    ]
    found = next(((k, v) for k, v in sorted(smaller.items(), reverse=True)
                  if v <= ev.max_sup), None)
    if found is not None:
        f_max = int(np.floor(found[0] / alpha + 1e-9))
        lines.append(f" tau: k = {found[0]} (tau >= {1 / max(f_max, 1):.4g} at alpha ="
                     f" {alpha:g}) gives {found[1]:.4f} at the top node;")
    else:
        lines.append(" tau: no k >= 2 passes at the top node;")
    lines.append(f" adversary power: a lower p_max (now {p_max}) or power_scale (the adversary"
                 f" knows {', '.join(ev.known) or 'no demographics'}, knowledge_matching"
                 f" {ev.model.matching});")
    if demo > ev.max_sup:
        lines.append(" hierarchies: the demographic quasi-identifiers alone exceed MaxSup, so"
                     " they need coarser levels (or fewer of them).")
    else:
        lines.append(" hierarchies: coarser levels for the claim quasi-identifiers, or fewer of"
                     " them.")
    return "".join(lines)
