"""Named release contexts and their thresholds, with the reasoning auditors need.

* tau, the largest acceptable probability of re-identifying a record (k = ceil(1/tau)):
  El Emam et al. 2011 set 0.04-0.05 for a public use microdata file and chose 0.05 (k = 20); El Emam
  et al. 2009 (CJHP) ("Determine Threshold") notes that the smallest class is most often required to
  be 5 (tau = 0.2, the common baseline) and sometimes 3 (tau = 0.33) for sensitive data, the higher
  value being acceptable only when the recipient implements the security and privacy practices
  of its Appendix 1 (audits, breach protocol, access controls...).
* the population-uniqueness threshold for small geographic areas (El Emam et al. 2010 "Selection of
  Threshold"): 0% for data released to the public, 20% for trusted recipients when the overall
  risk is low, 5% in between (cancer registries have accepted 5% and 20%).

The 0.33 context uses tau = 1/3 so that k = 3 as in El Emam et al. 2009 (CJHP): a literal 0.33 gives
k = ceil(1/0.33) = 4.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from dbt_deid.errors import ConfigError
from dbt_deid.settings_schema import PRESET_ALIASES, PRESET_TAU
from dbt_deid.tau import k_from_tau


@dataclass(frozen=True)
class ThresholdPreset:
    """A release context: tau, k, a uniqueness threshold and why."""

    name: str
    title: str
    tau: float
    uniqueness: float
    justification: str
    overridden: tuple[str, ...] = ()

    @property
    def k(self) -> int:
        return k_from_tau(self.tau)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "tau": self.tau,
            "k": self.k,
            "uniqueness_threshold": self.uniqueness,
            "justification": self.justification,
            "overridden": list(self.overridden),
        }


PRESETS: dict[str, ThresholdPreset] = {
    "public": ThresholdPreset(
        name="public",
        title="Public release (anyone may obtain the data)",
        tau=PRESET_TAU["public"],
        uniqueness=0.0,
        justification=(
            "The recipient is unknown and bound by no agreement, so worst-case assumptions apply "
            "(El Emam et al. 2011: an adversary with unlimited resources, not bound by any data "
            "sharing agreement). El Emam et al. 2011 used tau 0.04-0.05 for a public use microdata "
            "file and chose 0.05 (smallest class k = 20). El Emam et al. 2010: the most stringent "
            "0% uniqueness threshold suits data released to the public."
        ),
    ),
    "agreement": ThresholdPreset(
        name="agreement",
        title="Trusted recipient under a data sharing agreement",
        tau=PRESET_TAU["agreement"],
        uniqueness=0.05,
        justification=(
            "El Emam et al. 2009 (CJHP) ('Determine Threshold'): a smallest class of 5 (tau = 0.2) "
            "is the most often used value and the baseline it starts from. El Emam et al. 2010: a "
            "5% uniqueness threshold when the recipient is identified and contractually bound but "
            "the controls are not audited."
        ),
    ),
    "audited": ThresholdPreset(
        name="audited",
        title="Recipient with strong, audited security and privacy controls",
        tau=PRESET_TAU["audited"],
        uniqueness=0.20,
        justification=(
            "El Emam et al. 2009 (CJHP): a smallest class of 3 (tau = 0.33) is acceptable only if "
            "the higher threshold is balanced by the practices of its Appendix 1 checklist "
            "(need-to-know access, confidentiality pledges, breach-notification protocol, surprise "
            "audits, no disclosure to third parties) written into the agreement. El Emam et al. "
            "2010: the 20% uniqueness threshold for trusted recipients when the overall risk is "
            "low."
        ),
    ),
}
ALIASES = PRESET_ALIASES


def threshold_preset(
    name: str, *, tau: float | None = None, uniqueness: float | None = None
) -> ThresholdPreset:
    """The named preset, with ``tau``/``uniqueness`` overrides noted in the justification."""
    key = ALIASES.get(name, name)
    if key not in PRESETS:
        raise ConfigError(f"unknown release context {name!r}; choose one of {list(PRESETS)}")
    preset = PRESETS[key]
    notes: list[str] = []
    changed: list[str] = []
    if tau is not None:
        k = k_from_tau(tau)
        notes.append(f"tau overridden from {preset.tau:.4g} to {tau:.4g} (k = {k}).")
        changed.append("tau")
        preset = replace(preset, tau=float(tau))
    if uniqueness is not None:
        ok = isinstance(uniqueness, (int, float)) and not isinstance(uniqueness, bool)
        if not ok or not 0 <= uniqueness <= 1:
            raise ConfigError(f"uniqueness threshold must be in [0, 1], got {uniqueness!r}")
        notes.append(f"uniqueness threshold overridden from {preset.uniqueness:.0%} to"
                     f" {uniqueness:.0%}.")
        changed.append("uniqueness")
        preset = replace(preset, uniqueness=float(uniqueness))
    if notes:
        preset = replace(preset, justification=preset.justification + " Override: "
                         + " ".join(notes), overridden=tuple(changed))
    return preset
