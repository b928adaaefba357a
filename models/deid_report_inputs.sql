{{ dbt_deid.release_model() }}
