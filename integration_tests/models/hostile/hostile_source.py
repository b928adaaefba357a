"""Source with hostile column names and values (see hostile_names.py)."""


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

    rows = 240
    return pd.DataFrame({
        h.RECORD_ID: range(1, rows + 1),
        h.REGION: [None if i % 37 == 0 else h.REGION_VALUES[i % len(h.REGION_VALUES)]
                   for i in range(rows)],  # None: the missing label
        h.AGE: [(i * 7) % 100 for i in range(rows)],
        "age": [(i * 7) % 100 for i in range(rows)],
        h.SEX_COLUMN: [h.SEX_VALUES[(i // 3) % len(h.SEX_VALUES)] for i in range(rows)],
        h.NAME: [f"person {i}" for i in range(rows)],
        h.PASS_N: [i % 5 for i in range(rows)],
        h.NOTE: [f"it's \"{i}\";\n-- /* {i} */ ü" for i in range(rows)],
    })
