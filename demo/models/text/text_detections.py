"""The rule-based detector's output on the notes (``dbt_deid.text_risk.rule_detector``)."""

import json
from typing import Any


def model(dbt: Any, session: Any) -> Any:
    """``doc_id, start, end, detected_type``; miss rate (number or per-type mapping), label
    confusion and seed from the YAML config (vars ``text_miss_rate``, ``text_confusion``,
    ``text_detector_seed``)."""
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import to_pandas
    from dbt_deid.tools.demo_entry import rule_detector

    documents = to_pandas(dbt.ref("text_documents"))
    return rule_detector(
        documents,
        miss_rate=json.loads(dbt.config.get("miss_rate")),
        confusion=float(dbt.config.get("confusion")),
        seed=int(dbt.config.get("detector_seed")),
    )
