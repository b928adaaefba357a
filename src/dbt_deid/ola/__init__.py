"""OLA: globally optimal k-anonymity by generalization and suppression (El Emam et al., JAMIA
2009), the base algorithm of LOLA (seed 001) and of seed 003's "Apply Generalization and
Suppression".

Modules: :mod:`~dbt_deid.ola.hierarchies` (hierarchy files -> integer level maps),
:mod:`~dbt_deid.ola.lattice` (the node box), :mod:`~dbt_deid.ola.search` (the k-minimal nodes:
``path_search`` and the paper's ``ola_search``, reusable with any monotone node test),
:mod:`~dbt_deid.ola.evaluate` (k / MaxSup node test on the pattern table),
:mod:`~dbt_deid.ola.metrics` (information loss and its lower bounds),
:mod:`~dbt_deid.ola.optimum` (the best passing node of the lattice, branch and bound),
:mod:`~dbt_deid.ola.budget` (node and time budget, progress), :mod:`~dbt_deid.ola.population`
(k from a population threshold, seed 001 eq. 3), :mod:`~dbt_deid.ola.run` (``run_ola``).
"""

from dbt_deid.ola.budget import SearchBudget, SearchBudgetError
from dbt_deid.ola.hierarchies import Hierarchy, load_hierarchies
from dbt_deid.ola.lattice import Lattice
from dbt_deid.ola.metrics import METRICS
from dbt_deid.ola.population import k_from_population
from dbt_deid.ola.run import NodeReport, OlaResult, run_ola
from dbt_deid.ola.search import OlaSearchResult, exhaustive_search, ola_search, path_search

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
