"""The adversary's knowledge model of El Emam et al. 2012 (HHP claims), as explicit choices.

The paper fixes that the adversary knows "the patient's demographics" (Table 2) and p_ih values of
each claim quasi-identifier h (section "Adversary Knowledge and Power"), drawn "across the claims
without replacement" ("Node Computation"), without knowing which values share a claim or their
order. It leaves three things open, each a field of :class:`AdversaryModel` and a claims release
setting:

* ``known_demographic_qis`` (setting of the same name): which demographic QIs the adversary
  knows. Table 2 marks age, sex and DaysInHospital Y2 / Y3 as quasi-identifiers; read literally
  (all four known exactly) the paper's own release fails its limit before any claim is known:
  at the Table 5 node, age x sex x DaysInHospital Y2 x Y3 of the public member tables put
  1.80% of the 113,000 members in classes smaller than k = 4, above MaxSup 0.8%
  (:data:`dbt_deid.longitudinal.calibration.HHP_MEMBER_CLASS_SHARES`). The reconstruction is
  that the adversary knows age and sex (attack 2's voter list has exactly these; the
  DaysInHospital values are the competition's outcome, released for years 2 and 3, and are
  not what a neighbour knows to the day). ``None`` means every demographic QI (the literal
  reading); the default (:func:`reconstructed`) falls back to it when the release has no QIs
  named age and sex.
* ``power_function`` (setting ``power_function``): p_ih from the number of claims n_i and the
  diversity D_ih (Multimedia Appendix 1 has the paper's formula, which we do not have). See
  :mod:`dbt_deid.longitudinal.power` for the functions.
* ``matching`` (setting ``knowledge_matching``): ``multiset`` (default: p_ih claims drawn, a
  patient matches when it has each value at least as often, the paper's "values ... without
  replacement" read literally; it reproduces attack 1's 0.84% on the calibrated claims),
  ``set`` (p_ih claims drawn, a patient matches when it has each of their values once) or
  ``distinct`` (p_ih *distinct* values of the patient drawn without replacement, matched as a
  set: knowledge saturates at the patient's number of distinct values).

``docs/lola-adversary.md`` gives each reading's measured effect.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dbt_deid.errors import ConfigError
from dbt_deid.longitudinal.matching import MATCHINGS, check_matching
from dbt_deid.longitudinal.power import POWER_FUNCTIONS

__all__ = ["LITERAL", "MATCHINGS", "POWER_FUNCTIONS", "AdversaryModel", "check_matching",
           "check_power_function", "reconstructed"]
#: The reconstruction's known demographics: those of these names among the demographic QIs.
RECONSTRUCTED_KNOWN = ("age", "sex")


def check_power_function(name: object) -> str:
    if name not in POWER_FUNCTIONS:
        raise ConfigError(f"power_function must be one of {list(POWER_FUNCTIONS)}, got"
                          f" {name!r}")
    return str(name)


@dataclass(frozen=True)
class AdversaryModel:
    """What the adversary knows (see the module docstring). ``known_demographic_qis``: the
    demographic QIs matched on (None: all of them)."""

    known_demographic_qis: tuple[str, ...] | None = None
    power_function: str = "reconstructed"
    matching: str = "multiset"

    def __post_init__(self) -> None:
        check_matching(self.matching)
        check_power_function(self.power_function)

    def known(self, demographic_qis: Sequence[str]) -> tuple[str, ...]:
        """The demographic QIs matched on, in ``demographic_qis`` order."""
        if self.known_demographic_qis is None:
            return tuple(demographic_qis)
        bad = [q for q in self.known_demographic_qis if q not in demographic_qis]
        if bad:
            raise ConfigError(f"known_demographic_qis: {bad[0]!r} is not a demographic"
                              f" quasi-identifier (those are {list(demographic_qis)})")
        return tuple(q for q in demographic_qis if q in self.known_demographic_qis)


#: The strict readings: every demographic QI known exactly, multisets, our former power.
LITERAL = AdversaryModel(None, "log_diversity", "multiset")


def reconstructed(demographic_qis: Sequence[str]) -> AdversaryModel:
    """The reconstruction for a release with these demographic QIs: age and sex known when the
    release has demographic QIs of both names; otherwise (we cannot tell which columns are
    outcomes such as days in hospital) every demographic QI is known, the strict choice."""
    if all(q in demographic_qis for q in RECONSTRUCTED_KNOWN):
        return AdversaryModel(RECONSTRUCTED_KNOWN)
    return AdversaryModel(None)
