"""Entry point for ``python -m dbt_deid``."""

from dbt_deid.cli import main

raise SystemExit(main())
