"""Lookup hierarchy of the hostile region column, with hostile headers and values."""


def model(dbt, session):
    dbt.config(materialized="table")
    import sys
    from pathlib import Path

    import pandas as pd
    from dbt.flags import get_flags

    # integration_tests/fixtures: the project's folder (--project-dir, else the working one)
    project = Path(getattr(get_flags(), "PROJECT_DIR", None) or ".")
    sys.path.insert(0, str((project / "fixtures").resolve()))
    import hostile_names as h

    return pd.DataFrame({
        h.REGION_KEY: h.REGION_VALUES,
        h.REGION_L1: [h.REGION_PARENT[v] for v in h.REGION_VALUES],
        h.REGION_L2: ["*"] * len(h.REGION_VALUES),
    })
