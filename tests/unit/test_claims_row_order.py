"""The claims release's Python steps do not depend on the order an engine returns rows in.

DuckDB returns ``deid_claims_patients_preprocessed`` in the order it was written, Spark in the
order its tasks answer: the first DBT_DEID_SPARK_FULL=1 run (2026-11-27) built the same claims
release on both and attack 1's ``expected_rate`` differed (0.03437 on Spark, 0.03180 on DuckDB),
because patients became encoding rows in frame order and the seeded draws picked rows. The glue
orders patients and claims by their ids before encoding (ties broken by stable keys, never by
row order)."""

from __future__ import annotations

import pandas as pd
import pandas.testing as pdt

from dbt_deid.dbt_side.glue.claims import attack_frame, lola_frame
from dbt_deid.longitudinal.hierarchies import default_hierarchies
from dbt_deid.tools.synthetic.claims import generate_hhp


def _long_hierarchy(columns: dict[str, list[str]]) -> pd.DataFrame:
    """``deid_claims_hierarchy``'s layout: qi_name, level, original_value, generalized_value."""
    hierarchies, rows = default_hierarchies(), []
    for qi, source in columns.items():
        wide = hierarchies[source]
        for level in range(wide.shape[1]):
            rows += [(qi, level, str(o), str(g)) for o, g in
                     zip(wide["level_0"], wide[f"level_{level}"], strict=True)]
    return pd.DataFrame(rows, columns=["qi_name", "level", "original_value", "generalized_value"])


def test_lola_and_attack_ignore_row_order() -> None:
    data = generate_hhp(80, 5)
    release = {
        "demographic_qis": ["age", "sex", "dih_y2"], "claim_qis": ["los", "dsfc"],
        "hierarchies": {"age": "h", "dih_y2": "h", "los": "h", "dsfc": "h"},
        "dimensions": {"age": ["age"], "days_in_hospital": ["dih_y2"], "los": ["los"],
                       "dsfc": ["dsfc"]},
        "sampling_fraction": 0.5, "iterations": 10, "attack_iterations": 50, "seed": 7,
    }
    hierarchy = _long_hierarchy({"age": "age", "dih_y2": "dih_y2", "los": "los", "dsfc": "dsfc"})
    patients, claims = data.patients, data.claims
    ids = claims[["claim_id"]]

    def run(p: pd.DataFrame, c: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
        lola = lola_frame(p, c, hierarchy, release)
        return lola, attack_frame(p, c, ids, hierarchy, lola, release)

    lola, attack = run(patients, claims)
    shuffled = run(patients.sample(frac=1, random_state=1).reset_index(drop=True),
                   claims.sample(frac=1, random_state=2).reset_index(drop=True))
    pdt.assert_frame_equal(shuffled[0], lola)
    pdt.assert_frame_equal(shuffled[1], attack)
