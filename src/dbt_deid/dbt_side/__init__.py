"""The dbt side: everything that knows dbt, on top of the core.

The glue the dbt Python models call (:mod:`dbt_deid.dbt_side.entry`, the one module they
import, and :mod:`dbt_deid.dbt_side.glue`), the engine that runs a project through
``dbtRunner`` and runs Python models on any adapter (:mod:`dbt_deid.dbt_side.engine`), the
release files an extra release's models are generated from (:mod:`dbt_deid.dbt_side.releases`),
the column lineage of compiled SQL (:mod:`dbt_deid.dbt_side.lineage`) and the package's Jinja
settings macros rendered outside dbt (:mod:`dbt_deid.dbt_side.settings_jinja`).

It imports the core (:mod:`dbt_deid`), never the tools (:mod:`dbt_deid.tools`);
tests/unit/test_import_structure.py keeps the layering (docs/architecture.md).
"""
