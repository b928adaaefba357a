"""attribute_disclosure.remedy: suppress (dbt_deid.attribute_remedy in the combinations
algorithm of El Emam et al. 2011): a class failing an attribute-disclosure model is suppressed
like a class smaller than k until it merges into a class that passes; afterwards every class of
every combination passes per the gates' Python reference (dbt_deid.attribute_disclosure), the
result does not depend on the row order, and with the remedy off the output is seed 000's."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dbt_deid import attribute_disclosure as ad
from dbt_deid.attribute_remedy import Remedy, remedy_of
from dbt_deid.suppression import run_suppression, verify_result

QIS = ["age", "zip"]


def _records(result) -> pd.DataFrame:
    """The released records (one row per record; None = suppressed)."""
    pub = result.table.decode()
    return pub.loc[pub.index.repeat(pub["n"])].reset_index(drop=True)


def _failing(records: pd.DataFrame, combos, sensitive: str, models: ad.Models) -> int:
    total = 0
    for combo in combos:
        fig = ad.class_figures(records, combo, sensitive, recursive_l=models.recursive_l)
        total += sum(ad.failing_classes(fig, models).values())
    return total


#: (age, zip, dx, records): class (30, A) holds 4 records, all dx = flu (homogeneous); the
#: others hold two diagnoses. k = 2 passes everywhere, so only the remedy suppresses.
HOMOGENEOUS = pd.DataFrame(
    [("30", "A", "flu", 4), ("30", "B", "flu", 2), ("30", "B", "hiv", 2),
     ("40", "A", "flu", 3), ("40", "A", "hiv", 1), ("40", "B", "cold", 2),
     ("40", "B", "flu", 2), ("30", "C", "cold", 1), ("30", "C", "hiv", 1)],
    columns=["age", "zip", "dx", "n"])


def test_a_homogeneous_class_is_suppressed_until_it_merges() -> None:
    models = ad.Models(distinct_l=2)
    off = run_suppression(HOMOGENEOUS, 2, [QIS], columns=["dx"])
    assert off.stats.cells == 0
    assert _failing(_records(off), [QIS], "dx", models) == 1   # the gate would refuse
    on = run_suppression(HOMOGENEOUS, 2, [QIS], columns=["dx"],
                         remedy=Remedy(models, ("dx",)))
    records = _records(on)
    assert _failing(records, [QIS], "dx", models) == 0
    assert on.stats.remedy == "suppress" and on.stats.remedy_failing_classes == 0
    # the homogeneous class's records lost a cell and share their class with other diagnoses
    flu30a = records[(records["dx"] == "flu") & (records["age"].isna() | records["zip"].isna())]
    assert len(flu30a) >= 4
    assert all(c.ok for c in verify_result(on))   # still k-anonymous (the exact check)
    # only the failing class's cells (4 records) and the least it merges with are suppressed
    assert on.stats.cells <= 4 * 2 + 2 * 2


@pytest.mark.parametrize("models", [
    ad.Models(distinct_l=2), ad.Models(entropy_l=1.8), ad.Models(recursive_c=3, recursive_l=2),
    ad.Models(t=0.25), ad.Models(distinct_l=2, t=0.3),
])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_class_passes_afterwards_per_the_reference(models: ad.Models, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 600
    frame = pd.DataFrame({"age": rng.integers(0, 6, n).astype(str),
                          "sex": rng.choice(["F", "M"], n),
                          "zip": rng.integers(0, 5, n).astype(str),
                          "dx": rng.choice(["a", "b", "c", "d"], n, p=[0.55, 0.25, 0.15, 0.05])})
    patterns = frame.groupby(["age", "sex", "zip", "dx"]).size().rename("n").reset_index()
    combos = [["age", "sex", "zip"], ["age", "zip"]]
    result = run_suppression(patterns, 3, combos, columns=["dx"],
                             remedy=Remedy(models, ("dx",)))
    records = _records(result)
    assert _failing(records, combos, "dx", models) == 0
    assert result.stats.remedy_failing_classes == 0
    assert all(c.ok for c in verify_result(result))
    # the sensitive values are never suppressed, the records never dropped
    assert records["dx"].notna().all() and len(records) == n


def test_ordered_t_closeness_uses_the_column_order() -> None:
    # numbers as text ("10" sorts before "9" as text): the distance follows the given order
    rng = np.random.default_rng(3)
    n = 500
    age = rng.integers(0, 5, n)
    order = ["1", "2", "3", "9", "10", "30"]
    # the length of stay grows with age: young classes sit at the low end of the order
    los = np.clip(age + rng.integers(-1, 2, n), 0, 5)
    frame = pd.DataFrame({"age": age.astype(str), "zip": rng.integers(0, 4, n).astype(str),
                          "los": [order[i] for i in los]})
    patterns = frame.groupby([*QIS, "los"]).size().rename("n").reset_index()
    models = ad.Models(t=0.15)
    result = run_suppression(patterns, 3, [QIS], columns=["los"],
                             remedy=Remedy(models, ("los",), orders=(("los", tuple(order)),)))
    records = _records(result)
    fig = ad.class_figures(records, QIS, "los", distance="ordered", order=order)
    assert ad.failing_classes(fig, models) == {"t_closeness": 0}
    assert result.stats.remedy_failing_classes == 0
    # without the remedy the gate fails
    before = ad.class_figures(_records(run_suppression(patterns, 3, [QIS], columns=["los"])),
                              QIS, "los", distance="ordered", order=order)
    assert ad.failing_classes(before, models)["t_closeness"] > 0


def test_ties_are_broken_by_stable_keys_not_row_order() -> None:
    remedy = Remedy(ad.Models(distinct_l=2, entropy_l=1.5), ("dx",))
    runs = []
    for seed in range(3):
        shuffled = HOMOGENEOUS.sample(frac=1, random_state=seed).reset_index(drop=True)
        pub = run_suppression(shuffled, 2, [QIS], columns=["dx"], remedy=remedy).published()
        runs.append(pub.groupby([*QIS, "dx"], dropna=False)["n"].sum().sort_index())
    for other in runs[1:]:
        pd.testing.assert_series_equal(runs[0], other)


def test_remedy_off_is_seed_000_unchanged() -> None:
    assert remedy_of({"distinct_l": 2}, ["dx"], [QIS]) is None
    assert remedy_of({"distinct_l": 2, "remedy": "none"}, ["dx"], [QIS]) is None
    assert remedy_of({"distinct_l": 2, "remedy": "suppress"}, ["dx"], [QIS]) is not None
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"age": rng.integers(0, 9, 400).astype(str),
                          "zip": rng.integers(0, 7, 400).astype(str)})
    patterns = frame.groupby(QIS).size().rename("n").reset_index()
    base = run_suppression(patterns, 4, [QIS])
    again = run_suppression(patterns, 4, [QIS], remedy=None)
    pd.testing.assert_frame_equal(base.suppression_map(), again.suppression_map())
    assert base.stats.remedy == "none"
    # a remedy no class needs (t = 1 always holds) publishes the same QI patterns
    frame["dx"] = np.where(np.arange(400) % 2 == 0, "a", "b")
    with_dx = frame.groupby([*QIS, "dx"]).size().rename("n").reset_index()
    remedied = run_suppression(with_dx, 4, [QIS], columns=["dx"],
                               remedy=Remedy(ad.Models(t=1.0), ("dx",)))
    assert remedied.stats.cells == base.stats.cells

    def qi_patterns(result):
        return result.published().groupby(QIS, dropna=False)["n"].sum().sort_index()

    pd.testing.assert_series_equal(qi_patterns(remedied), qi_patterns(base))


def test_a_table_that_fails_as_a_whole_is_left_to_the_gates() -> None:
    # three diagnoses in all: no class can hold four (distinct 4-diversity), so the remedy
    # suppresses nothing for it and the gates refuse with the figure
    remedy = Remedy(ad.Models(distinct_l=4), ("dx",))
    result = run_suppression(HOMOGENEOUS, 2, [QIS], columns=["dx"], remedy=remedy)
    assert result.stats.cells == 0
    assert result.stats.remedy_failing_classes == 5


@pytest.mark.parametrize(("spec", "extra", "words"), [
    ({"remedy": "suppress"}, {"sensitive": []}, "needs a model"),
    ({"distinct_l": 2, "remedy": "always"}, {}, "remedy"),
    ({"t": 0.2, "hierarchies": {"dx": "dx_h"}, "remedy": "suppress"}, {},
     "equal and ordered distances only"),
    ({"distinct_l": 2, "remedy": "suppress"}, {"algorithm": "mask_cover"}, "mask_cover"),
])
def test_both_validators_refuse_a_remedy_that_cannot_run(spec: dict, extra: dict,
                                                         words: str) -> None:
    """The resolver the plan node runs refuses every case; the parse-time check (Jinja) the
    value that is not allowed, and leaves the relations to the resolver (issue 33)."""
    from dbt_deid.errors import DeidError
    from dbt_deid.settings_resolve import resolve
    from tests.settings_render import JinjaSettingError, jinja_config

    raw = {"name": "r", "source": "src", "record_id": "id", "max_suppression": 0.1, "k": 2,
           "quasi_identifiers": {"age": {}}, "combinations": [["age"]], "sensitive": ["dx"],
           "attribute_disclosure": spec, **extra}
    with pytest.raises(DeidError, match=words):
        resolve("release", raw)
    if spec["remedy"] not in ("none", "suppress"):
        with pytest.raises(JinjaSettingError, match=words):
            jinja_config("release", raw)
    else:
        jinja_config("release", raw)


def test_the_glue_map_keyed_by_qis_and_sensitive_values_passes_with_families() -> None:
    """The dbt model's body (glue.release.suppression_map) on a pattern table with a sensitive
    column, with hierarchical QIs (verified combinations beyond the protected ones): applying
    the map as deid_suppressed does (records of a QI x sensitive pattern ranked, each map row a
    rank range) gives a release whose every verified class passes and has k records (without
    the remedy 68 classes of the verified combinations hold one diagnosis)."""
    from dbt_deid.config import parse_release
    from dbt_deid.dbt_side.glue.release import suppression_map
    from tests.independent_check import smallest_class
    from tests.unit.test_families import _hierarchical_data, _release

    rng = np.random.default_rng(11)
    data = _hierarchical_data(rng, 1500)
    data["dx"] = np.where(data["age"] == "60+", rng.choice(["a", "b"], len(data), p=[0.9, 0.1]),
                          rng.choice(["a", "b", "c"], len(data)))
    release = _release(sensitive=["dx"], attribute_disclosure={"distinct_l": 2,
                                                               "remedy": "suppress"})
    cfg = parse_release(release)
    qis = cfg.qi_names
    patterns = data.value_counts().reset_index(name="n")
    out = suppression_map(patterns.copy(), release)
    assert {"dx", "n", "rank_from", "rank_to"} <= set(out.columns)
    # apply it: every record of a pattern, ranked 1..n; a map row covers ranks from..to
    records = patterns.loc[patterns.index.repeat(patterns["n"])].drop(columns="n")
    records["rank"] = records.groupby([*qis, "dx"]).cumcount() + 1
    key = [*qis, "dx"]
    records["row"] = np.arange(len(records))
    joined = records[[*key, "rank", "row"]].astype({c: str for c in key}).merge(
        out.astype({c: str for c in key}), on=key)
    joined = joined[joined["rank"].between(joined["rank_from"], joined["rank_to"])]
    for q in qis:
        records.loc[records["row"].isin(joined.loc[joined[f"{q}__suppressed"], "row"]), q] = None
    models = ad.Models(distinct_l=2)
    for combo in cfg.verified_combinations():
        fig = ad.class_figures(records, combo, "dx")
        assert ad.failing_classes(fig, models) == {"distinct_l_diversity": 0}, combo
        assert smallest_class(records.drop(columns=["rank", "row", "dx"]), combo) >= cfg.k, combo
