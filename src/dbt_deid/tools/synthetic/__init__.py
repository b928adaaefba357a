"""Seeded synthetic data for the demo, tests and benchmarks (never real records).

Every generator takes a seed and returns the same data for the same seed.

* :mod:`.discharge`: discharge abstracts shaped like El Emam et al. 2011 (discharge PUMF),
  Table 2, with their lookup hierarchies.
* :mod:`.claims`: HHP-like patients and claims (El Emam et al. 2012, Tables 2 and 3), calibrated
  to :mod:`dbt_deid.longitudinal.calibration`.
* :mod:`.tables`: small random tables with random tree hierarchies, a health-survey-like and a
  census-like table, for OLA's tests and benches.
* :mod:`.text`: an annotated clinical-style corpus and a rule-based detector with tunable recall
  (Scaiano et al. 2016).
"""
