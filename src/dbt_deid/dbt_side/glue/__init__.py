"""The dbt glue: engine relations in, frames with stable column types out, no dbt imports.

Python models import only :mod:`dbt_deid.dbt_side.entry`, which re-exports the functions of these
modules. Each Python model's body is one function here named after the model (``deid_...``):
it takes the model's refs (any engine relation) and config values, so the model file (and each
extra release's copy of it) is only its literal dbt calls and that one call. The algorithms
they call live in the core packages (:mod:`dbt_deid.suppression`, :mod:`dbt_deid.ola`,
:mod:`dbt_deid.risk`, :mod:`dbt_deid.longitudinal`, :mod:`dbt_deid.text_risk`). Nothing in the
core imports this package.

* :mod:`.frames`: :func:`~.frames.to_pandas` and column-name/type helpers.
* :mod:`.release`: suppression map, release plan, algorithm comparison.
* :mod:`.ola`: the OLA search's node report.
* :mod:`.risk`: population risk, uniqueness, small areas, threshold presets.
* :mod:`.report`: the HTML release report.
* :mod:`.claims`: the claims (LOLA) release's pseudonyms, search and attack.
* :mod:`.text`: the text release's risk assessment.
"""
