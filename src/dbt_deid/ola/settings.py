"""The release's ``generalization`` block: fixed levels or OLA's search, validated once.

El Emam et al. 2012 "Base Algorithm" (El Emam et al. 2009, OLA) and El Emam et al. 2009 (CJHP)
"Apply Generalization and Suppression" (Table 2 and the flow chart; docs/papers.md lists the
papers): the lattice is bounded below by each QI's configured ``level`` and above by
``generalization.max_levels``; the metric picks among the passing nodes; ``suppression`` says
whether the chosen node's small classes lose whole records (OLA) or cells (El Emam et al. 2011's
combinations algorithm). The names come from the one settings definition
(:mod:`dbt_deid.settings_schema`); the Jinja macro ``ola_config`` checks the same block at parse
time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dbt_deid.errors import ConfigError
from dbt_deid.ola.budget import DEFAULT_HEURISTIC_SECONDS, DEFAULT_MAX_NODES, SearchBudget
from dbt_deid.ola.metrics import DEFAULT_METRIC, METRICS
from dbt_deid.settings_schema import SECTIONS

SEARCHES = ("fixed", "ola")
SUPPRESSION_MODES = ("records", "cells")
SETTINGS = tuple(SECTIONS["generalization"])  # the one settings definition


@dataclass(frozen=True)
class OlaSettings:
    """The release's ``generalization`` block with ``search: ola``."""

    metric: str = DEFAULT_METRIC
    max_levels: Mapping[str, int] = field(default_factory=dict)
    suppression: str = "records"
    budget: SearchBudget = field(default_factory=SearchBudget)


def ola_settings(release: Mapping[str, Any]) -> OlaSettings | None:
    """Validate ``generalization`` (None when absent or ``search: fixed``: today's fixed
    levels). Every bad value is a :class:`ConfigError` naming the setting."""
    raw = release.get("generalization")
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ConfigError(f"generalization must be a mapping {{{', '.join(SETTINGS)}}}")
    unknown = sorted(set(raw) - set(SETTINGS))
    if unknown:
        raise ConfigError(
            f"generalization has unknown settings {unknown}; known: {list(SETTINGS)}"
        )
    search = raw.get("search", "fixed")
    if search not in SEARCHES:
        raise ConfigError(f"generalization.search must be one of {list(SEARCHES)}, got {search!r}")
    if search == "fixed":
        if set(raw) - {"search"}:
            raise ConfigError(
                "generalization: metric, max_levels, suppression, max_nodes, max_seconds,"
                " heuristic_seconds and heuristic_nodes need search: ola"
            )
        return None
    metric = raw.get("metric", DEFAULT_METRIC)
    if metric not in METRICS:
        raise ConfigError(f"generalization.metric must be one of {list(METRICS)}, got {metric!r}")
    suppression = raw.get("suppression", "records")
    if suppression not in SUPPRESSION_MODES:
        raise ConfigError(
            f"generalization.suppression must be one of {list(SUPPRESSION_MODES)}, got"
            f" {suppression!r}"
        )
    max_levels = raw.get("max_levels") or {}
    if not isinstance(max_levels, Mapping):
        raise ConfigError("generalization.max_levels must be a mapping quasi-identifier -> level")
    qis = release.get("quasi_identifiers") or {}
    for q, lvl in max_levels.items():
        if q not in qis:
            raise ConfigError(f"generalization.max_levels names unknown quasi-identifier {q!r}")
        if not isinstance(lvl, int) or isinstance(lvl, bool) or lvl < 0:
            raise ConfigError(
                f"generalization.max_levels.{q} must be a non-negative integer, got {lvl!r}"
            )
        minimum = (qis[q] or {}).get("level", 0) if isinstance(qis[q], Mapping) else 0
        if isinstance(minimum, int) and lvl < minimum:
            raise ConfigError(
                f"generalization.max_levels.{q} must be an integer >= the minimum level"
                f" quasi_identifiers.{q}.level ({minimum}), got {lvl}"
            )
    if "max_nodes" in raw and raw["max_nodes"] is None:
        raise ConfigError("generalization.max_nodes must be an integer >= 1, got None")
    if "heuristic_seconds" in raw and raw["heuristic_seconds"] is None:
        raise ConfigError("generalization.heuristic_seconds must be a number > 0, got None")
    budget = SearchBudget(max_nodes=raw.get("max_nodes", DEFAULT_MAX_NODES),
                          max_seconds=raw.get("max_seconds"), setting="generalization.",
                          heuristic_seconds=raw.get("heuristic_seconds",
                                                    DEFAULT_HEURISTIC_SECONDS),
                          heuristic_nodes=raw.get("heuristic_nodes"))
    return OlaSettings(str(metric), {str(q): int(v) for q, v in max_levels.items()}, suppression,
                       budget)
