"""Entry point for ``python -m dbt_deid``."""

from dbt_deid.tools.cli import main

raise SystemExit(main())
