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
from dbt_deid.attribute_remedy import LeafTree, Remedy, hierarchies_of, remedy_of
from dbt_deid.errors import ConfigError
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
    ({"distinct_l": 2, "remedy": "suppress"}, {"algorithm": "mask_cover"}, "mask_cover"),
    # the remedy would judge the population's classes, the gate judges the published sample's
    ({"distinct_l": 2, "remedy": "suppress"}, {"sample": {"fraction": 0.5,
                                                           "order": "population_first"}},
     "population_first"),
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


def _applied(patterns: pd.DataFrame, out: pd.DataFrame, qis: list[str]) -> pd.DataFrame:
    """The map ``out`` applied as deid_suppressed applies it: every record of a QI x dx
    pattern ranked 1..n, a map row suppressing its flagged cells in ranks from..to."""
    records = patterns.loc[patterns.index.repeat(patterns["n"])].drop(columns="n")
    key = [*qis, "dx"]
    records = records[key].copy()
    records["rank"] = records.groupby(key).cumcount() + 1
    records["row"] = np.arange(len(records))
    joined = records[[*key, "rank", "row"]].astype({c: str for c in key}).merge(
        out.astype({c: str for c in key}), on=key)
    joined = joined[joined["rank"].between(joined["rank_from"], joined["rank_to"])]
    for q in qis:
        records.loc[records["row"].isin(joined.loc[joined[f"{q}__suppressed"], "row"]), q] = None
    return records


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
    records = _applied(patterns, out, qis)
    models = ad.Models(distinct_l=2)
    for combo in cfg.verified_combinations():
        fig = ad.class_figures(records, combo, "dx")
        assert ad.failing_classes(fig, models) == {"distinct_l_diversity": 0}, combo
        assert smallest_class(records.drop(columns=["rank", "row", "dx"]), combo) >= cfg.k, combo


#: An ARX-layout hierarchy of diagnoses (value, block, chapter, root): a tree of height 3.
DX_TREE = [(f"d{i}", f"b{i // 3}", f"c{i // 6}", "*") for i in range(12)]


def _dx_frame(seed: int, n: int = 700) -> pd.DataFrame:
    """Classes of young ages hold diagnoses of chapter c0 only (close in the hierarchy), the
    others spread over every chapter: hierarchical t-closeness fails the young classes."""
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 6, n)
    dx = np.where(age < 2, rng.integers(0, 6, n), rng.integers(0, 12, n))
    return pd.DataFrame({"age": age.astype(str), "sex": rng.choice(["F", "M"], n),
                         "zip": rng.integers(0, 4, n).astype(str),
                         "dx": [f"d{i}" for i in dx]})


@pytest.mark.parametrize("seed", range(6))
def test_the_hierarchical_distance_is_the_reference_s_on_a_tree(seed: int) -> None:
    """LeafTree (the gate's grouping: children by (level h, level h - 1) labels) gives the
    core reference's EMD (ad.emd_hierarchical) on a tree, whatever values are present."""
    rng = np.random.default_rng(seed)
    labels = np.array(sorted(f"d{i}" for i in rng.choice(12, 8, replace=False)))
    rows = [r for r in DX_TREE if r[0] in set(labels)]
    tree = LeafTree(rows, labels)
    whole = {i: int(rng.integers(1, 50)) for i in range(len(labels))}
    cls = {i: int(rng.integers(0, 5)) for i in range(len(labels))}
    cls = {v: c for v, c in cls.items() if c} or {0: 1}
    by_label = {str(labels[v]): c for v, c in cls.items()}
    whole_label = {str(labels[v]): c for v, c in whole.items()}
    assert tree.emd(cls, whole) == pytest.approx(
        ad.emd_hierarchical(by_label, whole_label, DX_TREE), abs=1e-12)


@pytest.mark.parametrize("models", [ad.Models(t=0.12), ad.Models(t=0.15, distinct_l=2)])
@pytest.mark.parametrize("seed", [0, 1])
def test_hierarchical_t_closeness_is_remedied_until_every_class_passes(
        models: ad.Models, seed: int) -> None:
    frame = _dx_frame(seed)
    patterns = frame.groupby(["age", "sex", "zip", "dx"]).size().rename("n").reset_index()
    combos = [["age", "sex", "zip"], ["age", "zip"]]

    def failing(result) -> int:
        records = _records(result)
        total = 0
        for combo in combos:
            fig = ad.class_figures(records, combo, "dx", distance="hierarchical",
                                   hierarchy=DX_TREE, recursive_l=models.recursive_l)
            total += sum(ad.failing_classes(fig, models).values())
        return total

    assert failing(run_suppression(patterns, 3, combos, columns=["dx"])) > 0  # gate refuses
    remedy = Remedy(models, ("dx",), hierarchies=(("dx", tuple(DX_TREE)),))
    result = run_suppression(patterns, 3, combos, columns=["dx"], remedy=remedy)
    assert failing(result) == 0
    assert result.stats.remedy_failing_classes == 0
    assert all(c.ok for c in verify_result(result))
    records = _records(result)
    assert records["dx"].notna().all() and len(records) == len(frame)
    # the equal distance is another figure: the hierarchy is what the remedy read
    equal = run_suppression(patterns, 3, combos, columns=["dx"],
                            remedy=Remedy(models, ("dx",)))
    assert equal.stats.cells != result.stats.cells


def test_hierarchical_remedy_is_stable_under_row_shuffles() -> None:
    patterns = _dx_frame(4, 400).groupby(["age", "zip", "dx"]).size().rename("n").reset_index()
    remedy = Remedy(ad.Models(t=0.12), ("dx",), hierarchies=(("dx", tuple(DX_TREE)),))
    runs = []
    for seed in range(3):
        shuffled = patterns.sample(frac=1, random_state=seed).reset_index(drop=True)
        pub = run_suppression(shuffled, 3, [QIS], columns=["dx"], remedy=remedy).published()
        runs.append(pub.groupby([*QIS, "dx"], dropna=False)["n"].sum().sort_index())
    assert runs[0].index.get_level_values("age").isna().any()   # the remedy suppressed
    for other in runs[1:]:
        pd.testing.assert_series_equal(runs[0], other)


def test_the_ancestors_are_read_from_the_pattern_table() -> None:
    spec = {"t": 0.2, "hierarchies": {"DX": "dx_h"}, "remedy": "suppress"}
    frame = pd.DataFrame({"age": ["1", "2", "1"], "dx": ["d0", "d7", "d7"], "n": [1, 2, 3],
                          "dx__level_1": ["b0", "b2", "b2"], "dx__level_2": ["c0", "c1", "c1"],
                          "dx__level_3": ["*", "*", "*"]})
    assert hierarchies_of(frame, spec, ["dx"]) == {"dx": [("d0", "b0", "c0", "*"),
                                                          ("d7", "b2", "c1", "*")]}
    assert hierarchies_of(frame, {"t": 0.2}, ["dx"]) == {}
    # a value the left join found no leaf for: refused, with a count, never the value
    frame.loc[0, ["dx__level_1", "dx__level_2", "dx__level_3"]] = None
    with pytest.raises(ConfigError, match="1 value\\(s\\) of 'dx' are not leaves") as err:
        hierarchies_of(frame, spec, ["dx"])
    assert "d0" not in str(err.value)
    with pytest.raises(ConfigError, match="no 'dx__level_1' column"):
        hierarchies_of(frame.drop(columns=["dx__level_1"]), spec, ["dx"])


def test_both_validators_take_the_remedy_with_hierarchical_t_closeness() -> None:
    from dbt_deid.settings_resolve import resolve
    from tests.settings_render import jinja_config

    raw = {"name": "r", "source": "src", "record_id": "id", "max_suppression": 0.1, "k": 2,
           "quasi_identifiers": {"age": {}}, "combinations": [["age"]], "sensitive": ["dx"],
           "attribute_disclosure": {"t": 0.2, "hierarchies": {"dx": "dx_h"},
                                    "remedy": "suppress"}}
    resolve("release", raw)
    jinja_config("release", raw)


def test_the_glue_reads_the_sensitive_hierarchy_with_hierarchical_qis() -> None:
    """The dbt model's body (glue.release.suppression_map) on a pattern table carrying the
    sensitive value's ancestors (dx__level_1, dx__level_2, as sensitive_pattern_counts_sql
    joins them), with hierarchical QIs: the map applied as deid_suppressed applies it gives a
    release whose every verified class passes hierarchical t-closeness per the reference."""
    from dbt_deid.config import parse_release
    from dbt_deid.dbt_side.glue.release import suppression_map
    from tests.unit.test_families import _hierarchical_data, _release

    rng = np.random.default_rng(12)
    data = _hierarchical_data(rng, 1500)
    tree = [(f"x{i}", f"g{i // 2}", "*") for i in range(6)]
    data["dx"] = np.where(data["age"] == "60+", rng.choice(["x0", "x1"], len(data)),
                          rng.choice([r[0] for r in tree], len(data)))
    spec = {"t": 0.2, "hierarchies": {"dx": "dx_h"}, "remedy": "suppress"}
    release = _release(sensitive=["dx"], attribute_disclosure=spec)
    cfg = parse_release(release)
    qis = cfg.qi_names
    patterns = data.value_counts().reset_index(name="n")
    up = {r[0]: r for r in tree}
    with_tree = patterns.assign(dx__level_1=[up[v][1] for v in patterns["dx"]],
                                dx__level_2=[up[v][2] for v in patterns["dx"]])
    out = suppression_map(with_tree, release)
    records = _applied(patterns, out, qis)
    models = ad.Models(t=0.2)
    before = 0
    for combo in cfg.verified_combinations():
        fig = ad.class_figures(records, combo, "dx", distance="hierarchical", hierarchy=tree)
        assert ad.failing_classes(fig, models) == {"t_closeness": 0}, combo
        fig0 = ad.class_figures(patterns.loc[patterns.index.repeat(patterns["n"])], combo, "dx",
                                distance="hierarchical", hierarchy=tree)
        before += ad.failing_classes(fig0, models)["t_closeness"]
    assert before > 0   # without the remedy the gate refuses


def _pattern_sql(cfg: dict) -> str:
    """default__sensitive_pattern_counts_sql rendered outside dbt on the tables ``gen``
    (record id and released QIs, deid_generalized), ``src`` (the protected input) and the
    hierarchy tables of ``cfg`` (``ref`` names them as they are)."""
    from types import SimpleNamespace

    from tests.attribute_disclosure_sql import ROOT
    from tests.macro_render import macro_caller

    con = cfg["con"]

    def context(call):
        return {
            "dbt_deid": SimpleNamespace(
                ident=lambda n: '"' + n + '"', own=lambda m: m,
                literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                protected_input=lambda c: "src",
                sensitive_values_sql=call("default__sensitive_values_sql")),
            "dbt": SimpleNamespace(type_string=lambda: "varchar"),
            "adapter": SimpleNamespace(
                get_columns_in_relation=lambda rel: [
                    SimpleNamespace(name=r[0])
                    for r in con.execute(f"describe {rel}").fetchall()],
                dispatch=lambda name, package: call("default__" + name)),
            "ref": lambda name: name, "execute": True,
        }

    call = macro_caller([ROOT / "macros" / "generalize" / "sensitive_patterns.sql"], context)
    return str(call("default__sensitive_pattern_counts_sql")(cfg["release"], "gen"))


def test_a_remedied_release_passes_the_sql_gate_under_the_hierarchical_distance() -> None:
    """End to end outside dbt, on DuckDB: the pattern table of sensitive_pattern_counts_sql
    (its ancestors joined from a hierarchy table with an integer leaf column, as a seed would
    type it), the dbt model's body (glue) on it, the map applied as deid_suppressed applies it,
    and the t_closeness gate's SQL (attribute_disclosure_classes_sql, hierarchical): every
    class passes; the same records without the remedy fail the gate."""
    import duckdb

    from dbt_deid.dbt_side.glue.release import suppression_map
    from tests.attribute_disclosure_sql import class_figures_sql

    n = 900
    frame = _dx_frame(21, n).assign(rid=np.arange(n))
    frame["dx"] = frame["dx"].str[1:].astype(int)   # integer codes (cast to text by both)
    con = duckdb.connect()
    con.register("frame", frame)
    con.execute("create table gen as select rid, age, sex, zip from frame")
    con.execute("create table src as select rid, dx from frame")
    con.execute("create table dx_h as select * from (values "
                + ", ".join(f"({i}, '{b}', '{c}', '*')" for (_, b, c, _), i
                            in zip(DX_TREE, range(12), strict=True))
                + ") as t(code, block, chapter, root)")
    qis = ["age", "sex", "zip"]
    spec = {"t": 0.12, "hierarchies": {"dx": "dx_h"}, "remedy": "suppress"}
    release = {"name": "r", "source": "src", "record_id": "rid", "max_suppression": 1.0, "k": 3,
               "quasi_identifiers": {q: {} for q in qis}, "combinations": [qis, ["age", "zip"]],
               "sensitive": ["dx"], "attribute_disclosure": spec}
    jinja_cfg = {"qi_names": qis, "sensitive": ["dx"], "record_id": "rid",
                 "missing_label": "<missing>",
                 "attribute_disclosure": {"ordered": [], "hierarchies": {"dx": "dx_h"}}}
    patterns = con.execute(_pattern_sql({"con": con, "release": jinja_cfg})).df()
    assert {"dx__level_1", "dx__level_2", "dx__level_3"} <= set(patterns.columns)
    assert int(patterns["n"].sum()) == n
    out = suppression_map(patterns, release)
    # apply: rank the records of each QI x sensitive pattern; a map row covers a rank range
    records = frame[["rid", *qis, "dx"]].astype({"dx": str}).sort_values("rid")
    records["rank"] = records.groupby([*qis, "dx"]).cumcount() + 1
    joined = records.merge(out.astype({c: str for c in [*qis, "dx"]}), on=[*qis, "dx"])
    joined = joined[joined["rank"].between(joined["rank_from"], joined["rank_to"])]
    released = records.set_index("rid")[qis].astype(object)
    for q in qis:
        released.loc[joined.loc[joined[f"{q}__suppressed"], "rid"], q] = None
    limits = {"t": 0.12, "hierarchies": {"dx": "dx_h"}}
    for name, table in (("truth_before", records.set_index("rid")[qis]), ("truth", released)):
        con.register(name + "_df", table.reset_index())
        con.execute(f"create table {name} as select * from {name}_df")
    before = 0
    for combo in ([*qis], ["age", "zip"]):
        fig = class_figures_sql(con, combo, "dx", limits, hierarchy="dx_h")
        assert (fig["emd"] <= 0.12 + ad.TOLERANCE).all(), combo
        con.execute("alter table truth rename to truth_after")
        con.execute("alter table truth_before rename to truth")
        before += int((class_figures_sql(con, combo, "dx", limits, hierarchy="dx_h")["emd"]
                       > 0.12 + ad.TOLERANCE).sum())
        con.execute("alter table truth rename to truth_before")
        con.execute("alter table truth_after rename to truth")
    assert before > 0


def test_the_hierarchical_distance_is_the_gate_s_where_a_label_has_two_parents() -> None:
    """Level-1 labels g and h each sit under two level-2 parents (not a tree): the remedy's
    distance is the gate's SQL figure per class (children grouped by (level h, level h - 1)
    labels), so a class the remedy passes is one the gate passes."""
    import duckdb

    from tests.attribute_disclosure_sql import class_figures_sql

    rows = [("a", "g", "P", "*"), ("b", "g", "Q", "*"), ("c", "h", "Q", "*"),
            ("d", "h", "P", "*"), ("e", "i", "P", "*")]
    rng = np.random.default_rng(2)
    n = 300
    frame = pd.DataFrame({"rid": np.arange(n), "zone": rng.integers(0, 6, n).astype(str),
                          "dx": rng.choice([r[0] for r in rows], n,
                                           p=[0.4, 0.1, 0.2, 0.2, 0.1])})
    con = duckdb.connect()
    con.register("frame", frame)
    con.register("rows", pd.DataFrame(rows, columns=["leaf", "l1", "l2", "root"]))
    con.execute("create table truth as select rid, zone from frame")
    con.execute("create table src as select rid, dx from frame")
    con.execute("create table dx_h as select * from rows")
    got = class_figures_sql(con, ["zone"], "dx", {"t": 0.1, "hierarchies": {"dx": "dx_h"}},
                            hierarchy="dx_h").set_index("class_id")["emd"].sort_index()
    labels = np.array(sorted(frame["dx"].unique()))
    code = {v: i for i, v in enumerate(labels)}
    tree = LeafTree(rows, labels)
    whole = ad.counts_of(code[v] for v in frame["dx"])
    mine = [tree.emd(ad.counts_of(code[v] for v in part["dx"]), whole)
            for _, part in frame.groupby("zone", sort=True)]
    assert got.tolist() == pytest.approx(mine, abs=1e-12)
    assert max(mine) > 0.01
