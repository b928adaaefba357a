"""Search budget and progress for OLA on large lattices (issue 18, item 4).

The lattice has one node per combination of levels, so it grows as the product of the
hierarchies' level counts: 9 Adult QIs give 12,960 nodes, 30 census attributes about 4 x 10^12.
The search keeps one status byte per node (predictive tagging, El Emam et al. 2009), so its
memory is bounded by the lattice size; :class:`SearchBudget` refuses, before any node is
evaluated, a lattice larger than ``max_nodes`` (:func:`dbt_deid.ola.run.run_ola` then runs the
heuristic search of :mod:`dbt_deid.ola.heuristic` within ``heuristic_seconds`` instead), and
stops a search that runs past
``max_seconds`` with an error naming the setting. :class:`Progress` writes "nodes done /
planned, elapsed" lines through the project's logger (counts only, never QI values).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from dbt_deid.errors import ConfigError
from dbt_deid.progress import Logger
from dbt_deid.settings_schema import SECTIONS

#: 2**24 nodes, about 40 MB of search state (the one settings definition)
DEFAULT_MAX_NODES: int = SECTIONS["generalization"]["max_nodes"]["default"]
#: the heuristic search's time budget (ARX's default heuristic time limit, 30 s)
DEFAULT_HEURISTIC_SECONDS: float = float(SECTIONS["generalization"]["heuristic_seconds"]["default"])


class SearchBudgetError(ConfigError):
    """The search cannot finish (or did not finish) within its budget."""


@dataclass(frozen=True)
class SearchBudget:
    """``max_nodes``: the largest lattice searched (None: no limit); ``max_seconds``: wall
    time allowed for the whole search (None: no limit). ``setting`` prefixes the setting names
    in errors (``generalization.`` in a dbt release, ``--`` on the command line)."""

    max_nodes: int | None = DEFAULT_MAX_NODES
    max_seconds: float | None = None
    setting: str = "generalization."
    #: beyond ``max_nodes``: time and node budgets of the heuristic search
    #: (:mod:`dbt_deid.ola.heuristic`; None = no limit)
    heuristic_seconds: float | None = DEFAULT_HEURISTIC_SECONDS
    heuristic_nodes: int | None = None

    def __post_init__(self) -> None:
        n = self.max_nodes
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise ConfigError(f"{self._name('max_nodes')} must be an integer >= 1, got {n!r}")
        s = self.max_seconds
        ok = s is None or (isinstance(s, (int, float)) and not isinstance(s, bool)
                           and math.isfinite(s) and s > 0)
        if not ok:
            raise ConfigError(f"{self._name('max_seconds')} must be a number > 0, got {s!r}")
        h = self.heuristic_seconds
        if h is not None and (isinstance(h, bool) or not isinstance(h, (int, float))
                              or not math.isfinite(h) or h <= 0):
            raise ConfigError(
                f"{self._name('heuristic_seconds')} must be a number > 0, got {h!r}")
        c = self.heuristic_nodes
        if c is not None and (isinstance(c, bool) or not isinstance(c, int) or c < 1):
            raise ConfigError(f"{self._name('heuristic_nodes')} must be an integer >= 1, got {c!r}")

    def use_heuristic(self, size: int) -> bool:
        """True when the lattice is larger than ``max_nodes``: the optimal search would refuse
        it, the heuristic search (:func:`dbt_deid.ola.heuristic.lightning_search`) runs."""
        return self.max_nodes is not None and size > self.max_nodes

    def heuristic_time(self) -> float | None:
        """The heuristic's time budget: ``heuristic_seconds``, capped by ``max_seconds``."""
        times = [t for t in (self.heuristic_seconds, self.max_seconds) if t is not None]
        return float(min(times)) if times else None

    def setting_name(self, key: str) -> str:
        """The setting's name as the user writes it (``generalization.max_nodes``,
        ``--max-nodes``)."""
        return self._name(key)

    def _name(self, key: str) -> str:
        return f"{self.setting}{key.replace('_', '-') if self.setting == '--' else key}"

    def check_lattice(self, size: int, shape: tuple[int, ...], names: tuple[str, ...]) -> None:
        """Before any work: a lattice larger than ``max_nodes`` is a :class:`SearchBudgetError`
        saying how large it is and what shrinks it."""
        if self.max_nodes is None or size <= self.max_nodes:
            return
        widest = sorted(zip(shape, names, strict=True), reverse=True)[:5]
        raise SearchBudgetError(
            f"OLA: the generalization lattice has {size:,} nodes (the product of the level"
            f" counts {' x '.join(str(s) for s in shape)} of {len(shape)} quasi-identifiers),"
            f" more than {self._name('max_nodes')} = {self.max_nodes:,}; the search was not"
            " started. Shrink the lattice (fewer quasi-identifiers; raise their minimum"
            " `level`; cap generalization.max_levels - the most levels:"
            f" {', '.join(f'{n} ({s})' for s, n in widest)}) or raise"
            f" {self._name('max_nodes')} (the search keeps a few bytes per node)."
        )

    def deadline(self, started: float) -> float | None:
        return None if self.max_seconds is None else started + float(self.max_seconds)

    def expired(self, phase: str, started: float, done: int, planned: int, evaluated: int
                ) -> SearchBudgetError:
        return SearchBudgetError(
            f"OLA stopped after {time.perf_counter() - started:.1f} s in the {phase}:"
            f" {self._name('max_seconds')} = {self.max_seconds:g} was reached with {done:,} of"
            f" {planned:,} nodes done ({evaluated:,} evaluated). Raise"
            f" {self._name('max_seconds')}, or shrink the lattice (fewer quasi-identifiers,"
            " higher minimum levels, lower generalization.max_levels)."
        )


class Progress:
    """Progress lines every ``every`` seconds: "<phase>: <done> of <planned> nodes ...,
    <elapsed> s". Also enforces the budget's deadline (:meth:`tick`)."""

    def __init__(self, logger: Logger, budget: SearchBudget, started: float | None = None,
                 every: float = 10.0) -> None:
        self.log = logger
        self.budget = budget
        self.started = time.perf_counter() if started is None else started
        self.deadline = budget.deadline(self.started)
        self.every = every
        self._next = self.started + every

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def tick(self, phase: str, done_fn, planned: int, evaluated: int, detail: str = "") -> None:
        """Called once per node evaluation: raises when past the deadline, logs when a line is
        due. ``done_fn()`` counts the nodes done (called only when needed)."""
        now = time.perf_counter()
        if self.deadline is not None and now > self.deadline:
            raise self.budget.expired(phase, self.started, int(done_fn()), planned, evaluated)
        if now >= self._next:
            self._next = now + self.every
            self.line(phase, int(done_fn()), planned, evaluated, detail)

    def line(self, phase: str, done: int, planned: int, evaluated: int, detail: str = "") -> None:
        self.log.info(
            f"OLA {phase}: {done:,} of {planned:,} nodes done, {evaluated:,} evaluated,"
            f" {self.elapsed():.1f} s{detail}"
        )
