"""Thin dbt Python model: journalist and marketer risk of the published release.

El Emam et al. 2011 (discharge PUMF), equations 2-3: journalist risk 1/F_j (F_j the population
size of a released class, a suppressed cell matching every value) and marketer risk
sum_j f_j / F_j (bound |Q| alpha), per protected combination, from the population relation
(``deid_population_patterns``) or, when the release gives none, F_j = f_j / alpha from
``sampling_fraction`` / ``population_size``. Reads the pattern table ``deid_suppressed_patterns``
(the measures need only the class sizes f_j), never the records. Built only when the release
gives one of these.
"""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import dbt_logger, population_risk_frame, to_pandas

    release = json.loads(dbt.config.get("deid_release_json"))
    return population_risk_frame(
        to_pandas(dbt.ref("deid_suppressed_patterns")),
        to_pandas(dbt.ref("deid_population_patterns")),
        release, logger=dbt_logger(),
    )
