"""A release that lives: a refresh publishes a new version with stable rows (issue 32).

The core of a refresh, on pattern tables (no dbt import): the warehouse joins the per-record
store (every earlier version's cells) to the current records by record identity and hands over
one pattern table keyed by (earlier published tuple, earlier true tuple, current tuple) with
counts (:mod:`dbt_deid.living.pairs`); :func:`dbt_deid.living.refresh.refresh` returns the new
version's suppression map and the figures of both the new version alone and the combined view
(:mod:`dbt_deid.living.views`). The design and the changed-record rule are in
``docs/living-release.md``.
"""

from dbt_deid.living.pairs import RefreshInput, Status, read_pairs
from dbt_deid.living.refresh import RefreshResult, refresh

__all__ = ["RefreshInput", "RefreshResult", "Status", "read_pairs", "refresh"]
