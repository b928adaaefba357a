"""Cells suppressed with and without ``attribute_disclosure.remedy: suppress`` on Adult
(issue 36, item 1; docs/attribute-disclosure-remedy.md): not a test.

Adult's quasi-identifiers age, sex, race, marital-status, education and native-country at
ARX's hierarchies' levels (``--levels``), one combination of all of them, k = 5, and one
sensitive column (occupation by default). For each attribute-disclosure model the script runs
the combinations algorithm of El Emam et al. 2011 twice on the pattern table (QI pattern x
sensitive value, as the dbt build hands it over): without the remedy (seed 000 as published:
the gate then counts the failing classes and refuses) and with it; it prints the record cells
suppressed, the records with a suppressed cell, the classes failing per the core's reference
(dbt_deid.attribute_disclosure on the released records, the gates' definition) and the seconds.
t-closeness runs under the equal and the hierarchical distance (ARX's hierarchy of the
sensitive column, as ``attribute_disclosure.hierarchies`` gives it).

    python bench/bench_attribute_remedy.py [--data DIR] [--sensitive occupation]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from dbt_deid import attribute_disclosure as ad  # noqa: E402
from dbt_deid.attribute_remedy import Remedy  # noqa: E402
from dbt_deid.suppression import run_suppression  # noqa: E402

_PLACES = [p / "shared" / "data" / "adult" for p in (REPO.parent, REPO.parent.parent)]
ADULT = next((p for p in _PLACES if p.exists()), _PLACES[0])
LEVELS = {"age": 1, "sex": 0, "race": 0, "marital-status": 0, "education": 1,
          "native-country": 1}
#: (name, models, ground distance of t-closeness): hierarchical with ARX's hierarchy of the
#: sensitive column (Li et al. 2007, section 4.2)
MODELS = [("distinct l = 2", ad.Models(distinct_l=2), "equal"),
          ("distinct l = 3", ad.Models(distinct_l=3), "equal"),
          ("entropy l = 2", ad.Models(entropy_l=2.0), "equal"),
          ("recursive (3, 2)", ad.Models(recursive_c=3, recursive_l=2), "equal"),
          ("t = 0.3 (equal)", ad.Models(t=0.3), "equal"),
          ("t = 0.2 (hierarchical)", ad.Models(t=0.2), "hierarchical"),
          ("t = 0.3 (hierarchical)", ad.Models(t=0.3), "hierarchical")]


def load(data: Path, sensitive: str) -> pd.DataFrame:
    """Adult with the QIs generalized to LEVELS (ARX-layout hierarchies: value, level 1, ...)."""
    frame = pd.read_csv(data / "adult.csv", sep=";", dtype=str)
    out = pd.DataFrame({sensitive: frame[sensitive]})
    for q, level in LEVELS.items():
        if q == sensitive:  # a sensitive column is not a quasi-identifier
            continue
        h = pd.read_csv(data / f"adult_hierarchy_{q}.csv", sep=";", header=None, dtype=str)
        out[q] = frame[q].map(dict(zip(h[0], h[level], strict=True)))
    return out


def hierarchy(data: Path, sensitive: str) -> list[list[str]]:
    """ARX's hierarchy of the sensitive column (value, level 1, ..., root)."""
    h = pd.read_csv(data / f"adult_hierarchy_{sensitive}.csv", sep=";", header=None, dtype=str)
    return ad.hierarchy_rows(h)


def failing(frame: pd.DataFrame, qis: list[str], sensitive: str, models: ad.Models,
            tree: list[list[str]] | None = None) -> int:
    fig = ad.class_figures(frame, qis, sensitive, recursive_l=models.recursive_l,
                           distance="hierarchical" if tree else "equal", hierarchy=tree)
    return sum(ad.failing_classes(fig, models).values())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=ADULT)
    parser.add_argument("--sensitive", default="occupation")
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args()
    records = load(args.data, args.sensitive)
    qis = [q for q in LEVELS if q != args.sensitive]
    patterns = records.groupby([*qis, args.sensitive]).size().rename("n").reset_index()
    print(f"Adult: {len(records)} records, {len(patterns)} patterns (QI x {args.sensitive}),"
          f" k = {args.k}, QIs at levels { {q: LEVELS[q] for q in qis} }")
    print("model | remedy | cells | records with a suppressed cell | failing classes | seconds")
    rows = hierarchy(args.data, args.sensitive)
    for name, models, distance in MODELS:
        tree = rows if distance == "hierarchical" else None
        trees = ((args.sensitive, tuple(tuple(r) for r in rows)),) if tree else ()
        for remedy in (None, Remedy(models, (args.sensitive,), hierarchies=trees)):
            t0 = time.process_time()
            result = run_suppression(patterns, args.k, [qis], columns=[args.sensitive],
                                     remedy=remedy)
            seconds = time.process_time() - t0
            pub = result.table.decode()
            touched = int(pub.loc[pub[qis].isna().any(axis=1), "n"].sum())
            released = pub.loc[pub.index.repeat(pub["n"])]
            print(f"{name} | {'suppress' if remedy else 'none'} | {result.stats.cells} |"
                  f" {touched} | {failing(released, qis, args.sensitive, models, tree)} |"
                  f" {seconds:.2f}")


if __name__ == "__main__":
    main()
