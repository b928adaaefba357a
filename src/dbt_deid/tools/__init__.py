"""The tools: ``python -m dbt_deid`` (:mod:`dbt_deid.tools.cli` and its sub-commands in
:mod:`dbt_deid.tools.commands`), the CLI's CSV files, the seeded synthetic data generators
(:mod:`dbt_deid.tools.synthetic`) and the demos (:mod:`dbt_deid.tools.longitudinal_demo`,
:mod:`dbt_deid.tools.demo_entry` for the demo projects' source models).

They may import the core and the dbt side; neither imports them
(tests/unit/test_import_structure.py, docs/architecture.md).
"""
