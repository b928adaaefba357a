"""Synthetic clinical notes for the text release (``dbt_deid.tools.synthetic.text.demo_corpus``,
seeded)."""

from typing import Any


def model(dbt: Any, session: Any) -> Any:
    """``doc_id, text`` of ``text_rows`` notes (var), seed ``text_seed`` (var)."""
    dbt.config(materialized="table")
    from dbt_deid.tools.demo_entry import demo_corpus

    documents, _ = demo_corpus(int(dbt.config.get("rows")), seed=int(dbt.config.get("seed")))
    return documents
