"""Gold annotations of the synthetic notes (``dbt_deid.tools.synthetic.text.demo_corpus``,
seeded)."""

from typing import Any


def model(dbt: Any, session: Any) -> Any:
    """``doc_id, annotation_id, type, kind, value, start, end`` (same rows/seed as the notes)."""
    dbt.config(materialized="table")
    from dbt_deid.tools.demo_entry import demo_corpus

    _, annotations = demo_corpus(int(dbt.config.get("rows")), seed=int(dbt.config.get("seed")))
    return annotations
