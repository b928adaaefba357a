"""OLA: globally optimal k-anonymity by generalization and suppression (El Emam et al., JAMIA
2009), the base algorithm of LOLA (El Emam et al. 2012, HHP claims) and of El Emam et al. 2009
(prescription records) "Apply Generalization and Suppression".

Modules: :mod:`~dbt_deid.ola.hierarchies` (hierarchy files -> integer level maps),
:mod:`~dbt_deid.ola.lattice` (the node box), :mod:`~dbt_deid.ola.search` (the k-minimal nodes:
``path_search`` and the paper's ``ola_search``, reusable with any monotone node test),
:mod:`~dbt_deid.ola.evaluate` (k / MaxSup node test on the pattern table),
:mod:`~dbt_deid.ola.metrics` (information loss and its lower bounds),
:mod:`~dbt_deid.ola.optimum` (the best passing node of the lattice, branch and bound),
:mod:`~dbt_deid.ola.heuristic` (beyond ``max_nodes``: Lightning, Prasser et al. 2016),
:mod:`~dbt_deid.ola.budget` (node and time budget, progress), :mod:`~dbt_deid.ola.run`
(``run_ola``), :mod:`~dbt_deid.ola.settings` (the release's ``generalization`` block),
:mod:`~dbt_deid.ola.records` (record suppression of the chosen node), :mod:`~dbt_deid.ola.relax`
(what to relax when no node passes). k from a population threshold is
:func:`dbt_deid.tau.k_from_population` (re-exported here).
"""

from dbt_deid.ola.budget import SearchBudget, SearchBudgetError
from dbt_deid.ola.hierarchies import Hierarchy, load_hierarchies
from dbt_deid.ola.lattice import Lattice
from dbt_deid.ola.metrics import METRICS
from dbt_deid.ola.run import NodeReport, OlaResult, run_ola
from dbt_deid.ola.search import OlaSearchResult, exhaustive_search, ola_search, path_search
from dbt_deid.tau import k_from_population

__all__ = [
    "METRICS",
    "Hierarchy",
    "Lattice",
    "NodeReport",
    "OlaResult",
    "OlaSearchResult",
    "SearchBudget",
    "SearchBudgetError",
    "exhaustive_search",
    "k_from_population",
    "load_hierarchies",
    "ola_search",
    "path_search",
    "run_ola",
]
