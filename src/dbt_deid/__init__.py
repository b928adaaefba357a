"""dbt_deid core."""
