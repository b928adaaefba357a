"""The OLA dbt entry points (dbt_deid.dbt_side.glue.ola, ola.settings, ola.records) and k from the
population in the release config."""

from __future__ import annotations

import pandas as pd
import pytest

from dbt_deid.config import parse_release
from dbt_deid.dbt_side.entry import suppression_map
from dbt_deid.dbt_side.glue.ola import ola_hierarchies, ola_search_frame
from dbt_deid.errors import ConfigError, DataError
from dbt_deid.ola import run_ola
from dbt_deid.ola.budget import DEFAULT_MAX_NODES
from dbt_deid.ola.records import record_suppression, record_suppression_map
from dbt_deid.ola.settings import ola_settings

AGES = [str(a) for a in range(20, 40)]


def _long() -> pd.DataFrame:
    """deid_hierarchy-like rows: age 0 = value, 1 = decade half, 2 = decade, 3 = *;
    sex 0 = value, 1 = *."""
    rows = []
    for a in AGES:
        v = int(a)
        lo5 = v - v % 5
        for lvl, g in enumerate([a, f"{lo5}-{lo5 + 4}", f"{v - v % 10}s", "*"]):
            rows.append(("age", lvl, a, g))
    for s in ("F", "M"):
        rows += [("sex", 0, s, s), ("sex", 1, s, "*")]
    return pd.DataFrame(rows, columns=["qi_name", "level", "original_value",
                                       "generalized_value"])


def _patterns() -> pd.DataFrame:
    rows = [(a, s, 1 + (int(a) + (s == "M")) % 3) for a in AGES for s in ("F", "M")]
    return pd.DataFrame(rows, columns=["age", "sex", "n"])


def _release(**changes) -> dict:
    release = {
        "source": "src", "record_id": "id",
        "quasi_identifiers": {"age": {"rule": {"type": "interval", "levels": [
            {"width": 5}, {"width": 10}, {"width": 100}]}}, "sex": {"hierarchy": "sex_h"}},
        "k": 5, "max_suppression": 0.1, "generalization": {"search": "ola"},
    }
    release.update(changes)
    return release


def test_settings_defaults_and_errors() -> None:
    assert ola_settings({"quasi_identifiers": {"a": {}}}) is None
    assert ola_settings({"generalization": {"search": "fixed"}}) is None
    s = ola_settings(_release())
    assert s is not None and (s.metric, s.suppression, dict(s.max_levels)) == (
        "entropy", "records", {})
    assert (s.budget.max_nodes, s.budget.max_seconds) == (DEFAULT_MAX_NODES, None)
    s = ola_settings(_release(generalization={"search": "ola", "max_nodes": 100,
                                              "max_seconds": 2.5}))
    assert (s.budget.max_nodes, s.budget.max_seconds) == (100, 2.5)
    for bad, setting in (
        ({"search": "bfs"}, "generalization.search"),
        ({"search": "ola", "metric": "gain"}, "generalization.metric"),
        ({"search": "ola", "suppression": "cell"}, "generalization.suppression"),
        ({"search": "ola", "max_levels": {"zip": 1}}, "generalization.max_levels"),
        ({"search": "ola", "max_levels": {"age": -1}}, "generalization.max_levels.age"),
        ({"search": "fixed", "metric": "loss"}, "need search: ola"),
        ({"search": "ola", "levels": 1}, "unknown settings"),
        ({"search": "ola", "max_node": 10}, r"unknown settings \['max_node'\]"),
        ({"search": "fixed", "max_nodes": 10}, "need search: ola"),
        ({"search": "ola", "max_nodes": 0}, "generalization.max_nodes must be an integer"),
        ({"search": "ola", "max_nodes": None}, "generalization.max_nodes must be an integer"),
        ({"search": "ola", "max_nodes": 2.5}, "generalization.max_nodes must be an integer"),
        ({"search": "ola", "max_nodes": True}, "generalization.max_nodes must be an integer"),
        ({"search": "ola", "max_seconds": 0}, "generalization.max_seconds must be a number"),
        ({"search": "ola", "max_seconds": "1"}, "generalization.max_seconds must be a number"),
        ({"search": "ola", "max_seconds": True}, "generalization.max_seconds must be a number"),
    ):
        with pytest.raises(ConfigError, match=setting):
            ola_settings(_release(generalization=bad))


def test_hierarchies_rebased_restricted_and_missing_label() -> None:
    patterns = pd.DataFrame({"age": ["20-24", "25-29", "<missing>"], "sex": ["F", "M", "F"],
                             "n": [3, 4, 5]})
    hs = ola_hierarchies(_long(), patterns, {"age": 1, "sex": 0}, "<missing>")
    age = hs["age"]
    assert list(age.columns) == ["level0", "level1", "level2"]
    assert age.values.tolist() == [["20-24", "20s", "*"], ["25-29", "20s", "*"],
                                   ["<missing>"] * 3]
    assert hs["sex"].values.tolist() == [["F", "*"], ["M", "*"]]


def test_hierarchy_that_is_not_a_tree_above_the_minimum_is_an_error() -> None:
    long = _long()
    long.loc[(long["qi_name"] == "age") & (long["original_value"] == "24")
             & (long["level"] == 2), "generalized_value"] = "other"
    patterns = pd.DataFrame({"age": ["20-24"], "sex": ["F"], "n": [1]})
    with pytest.raises(DataError, match="not .*tree|a tree"):
        ola_hierarchies(long, patterns, {"age": 1, "sex": 0}, "<missing>")


def test_search_frame_matches_run_ola() -> None:
    frame = ola_search_frame(_patterns(), _long(), _release(), logger=_Quiet())
    hs = ola_hierarchies(_long(), _patterns(), {"age": 0, "sex": 0}, "<missing>")
    direct = run_ola(_patterns(), hs, 5, 0.1)
    chosen = frame[frame["chosen"]]
    assert len(chosen) == 1
    assert (int(chosen["age"].item()), int(chosen["sex"].item())) == direct.chosen
    assert chosen["suppressed"].item() == direct.suppressed
    top = frame[frame["role"] == "top"]
    assert (top["age"].item(), top["sex"].item(), top["height"].item()) == (3, 1, 4)
    assert frame["message"].isna().all()
    assert set(frame["k"]) == {5} and set(frame["lattice_size"]) == {8}


def test_search_frame_with_minimum_and_maximum_levels() -> None:
    release = _release(quasi_identifiers={
        "age": {"rule": {"type": "interval", "levels": [{"width": 5}, {"width": 10},
                                                         {"width": 100}]}, "level": 1},
        "sex": {"hierarchy": "sex_h"}}, generalization={"search": "ola",
                                                         "max_levels": {"age": 2}})
    patterns = _patterns()
    lo5 = patterns["age"].astype(int) // 5 * 5
    patterns["age"] = lo5.astype(str) + "-" + (lo5 + 4).astype(str)
    patterns = patterns.groupby(["age", "sex"], as_index=False)["n"].sum()
    frame = ola_search_frame(patterns, _long(), release, logger=_Quiet())
    assert frame["age"].between(1, 2).all()
    top = frame[frame["role"] == "top"]
    assert (top["age"].item(), top["height"].item()) == (2, 2)
    with pytest.raises(ConfigError, match="max_levels.age must be between the minimum level 1"):
        ola_search_frame(patterns, _long(), _release(
            quasi_identifiers=release["quasi_identifiers"],
            generalization={"search": "ola", "max_levels": {"age": 4}}), logger=_Quiet())


def test_search_frame_flags_and_node_budget() -> None:
    frame = ola_search_frame(_patterns(), _long(), _release(max_suppression=1.0),
                             logger=_Quiet())
    kmin = frame[frame["role"] == "k_minimal"]
    assert kmin["k_minimal"].all() and kmin["best_k_minimal"].sum() == 1
    assert frame["chosen"].sum() == 1 and (frame["chosen"] == frame["optimal"]).all()
    chosen = frame[frame["chosen"]]
    assert chosen["role"].item() in ("k_minimal", "optimal")
    assert chosen["entropy"].item() <= kmin["entropy"].min() + 1e-9
    assert (frame["search"] == "optimal").all()
    # beyond max_nodes the heuristic search chooses the node, and every row says so
    wide = ola_search_frame(_patterns(), _long(), _release(
        max_suppression=1.0, generalization={"search": "ola", "max_nodes": 4}), logger=_Quiet())
    assert (wide["search"] == "heuristic").all()
    assert not wide["k_minimal"].any() and wide["chosen"].sum() == 1
    picked = wide[wide["chosen"]]
    assert picked["role"].item() == "heuristic" and picked["passes"].item()
    # the heuristic proves the optimum on this 8-node lattice: the same node and score
    assert picked["optimal"].item()
    assert picked["entropy"].item() == pytest.approx(chosen["entropy"].item())
    with pytest.raises(ConfigError, match="generalization.heuristic_seconds"):
        ola_search_frame(_patterns(), _long(), _release(
            generalization={"search": "ola", "heuristic_seconds": 0}), logger=_Quiet())


def test_no_node_passes_message_names_the_limits() -> None:
    release = _release(max_suppression=0.0, generalization={
        "search": "ola", "max_levels": {"age": 0, "sex": 0}})
    frame = ola_search_frame(_patterns(), _long(), release, logger=_Quiet())
    assert not frame["chosen"].any()
    # the one node evaluated (the bottom, here also the top) is kept for the risk-utility picture
    evaluated = frame[frame["role"] == "evaluated"]
    assert len(evaluated) == 1 and not evaluated["passes"].item()
    frame = frame[frame["role"] != "evaluated"]
    assert list(frame["role"]) == ["top"] and not frame["passes"].item()
    msg = frame["message"].iloc[0]
    n = int(_patterns()["n"].sum())
    small = int(frame["suppressed"].item())
    assert f"{small} records" in msg and f"of the {n} records" in msg
    assert "max_suppression to at least" in msg
    assert "tau:" in msg
    assert "age (0 of 3), sex (0 of 1)" in msg


def test_heuristic_with_no_passing_node_gives_the_relax_message() -> None:
    """Beyond max_nodes the heuristic checks the top node first; when it fails the report has
    only the top row, marked heuristic, and the same relax message as the optimal search."""
    release = _release(k=60, max_suppression=0.0, generalization={
        "search": "ola", "max_levels": {"age": 1, "sex": 0}, "max_nodes": 1})
    frame = ola_search_frame(_patterns(), _long(), release, logger=_Quiet())
    assert not frame.loc[frame["role"] == "evaluated", "passes"].any()
    frame = frame[frame["role"] != "evaluated"]
    assert list(frame["role"]) == ["top"] and not frame["chosen"].any()
    assert list(frame["search"]) == ["heuristic"]
    assert "max_suppression to at least" in frame["message"].iloc[0]


def test_record_suppression_grows_the_suppressed_class_to_k() -> None:
    p = pd.DataFrame({"a": ["x", "y", "z", "w"], "n": [2, 9, 6, 5]})
    assert record_suppression(p, 5).tolist() == [2, 3, 0, 0]  # 2 small + 3 from the largest
    p2 = pd.DataFrame({"a": ["x", "y", "z"], "n": [1, 5, 5]})
    assert record_suppression(p2, 5).tolist() == [1, 0, 5]  # whole class of size k
    assert record_suppression(pd.DataFrame({"a": ["x"], "n": [7]}), 5).tolist() == [0]
    with pytest.raises(DataError, match="cannot reach k"):
        record_suppression(pd.DataFrame({"a": ["x", "y"], "n": [1, 2]}), 5)
    m = record_suppression_map(p, ["a"], 5)
    assert m.values.tolist() == [["x", 2, 1, 2, True], ["y", 3, 1, 3, True]]


def test_suppression_map_in_records_mode() -> None:
    patterns = pd.DataFrame({"age": ["20s", "30s", "40s"], "sex": ["F", "F", "M"],
                             "n": [7, 3, 8]})
    out = suppression_map(patterns, _release(), logger=_Quiet())
    assert out["age"].tolist() == ["30s", "40s"] and out["n"].tolist() == [3, 2]
    assert out["age__suppressed"].all() and out["sex__suppressed"].all()
    cells = suppression_map(patterns, _release(generalization={
        "search": "ola", "suppression": "cells"}), logger=_Quiet())
    assert not (cells["age__suppressed"] & cells["sex__suppressed"]).all()


def test_population_k() -> None:
    base = _release(k=None)
    del base["k"]
    cfg = parse_release({**base, "population_threshold": 20, "sampling_fraction": 0.25})
    assert (cfg.k, cfg.tau) == (5, 0.2)
    assert parse_release({**base, "population_threshold": 20, "sampling_fraction": 0.2}).k == 4
    with pytest.raises(ConfigError, match=r"sampling_fraction must be a number in \(0, 1\]"):
        parse_release({**base, "population_threshold": 20, "sampling_fraction": 1.5})
    with pytest.raises(ConfigError, match="sampling_fraction is required"):
        parse_release({**base, "population_threshold": 20})
    with pytest.raises(ConfigError, match="not both"):
        parse_release({**base, "population_threshold": 20, "sampling_fraction": 0.5, "tau": 0.2})
    with pytest.raises(ConfigError, match="population_threshold must be an integer"):
        parse_release({**base, "population_threshold": 0, "sampling_fraction": 0.5})
    with pytest.raises(ConfigError, match="population_threshold 20 x sampling_fraction 0.05"):
        parse_release({**base, "population_threshold": 20, "sampling_fraction": 0.05})


class _Quiet:
    def info(self, msg: str) -> None:
        pass


def test_node_report_keeps_every_evaluated_node() -> None:
    """Issue 36 item 4: the node report holds every node the search evaluated (as many rows
    with a metric value as the search's own count), each once, with its suppression and its
    value of the release's metric; exactly one is the released node."""
    from dbt_deid.dbt_side.glue.ola import REPORT_COLUMNS

    frame = ola_search_frame(_patterns(), _long(), _release(k=10, max_suppression=0.0),
                             logger=_Quiet())
    plotted = frame[frame["role"] != "top"]
    assert len(plotted) == int(frame["nodes_evaluated"].iloc[0])
    assert not plotted[["age", "sex"]].duplicated().any()
    assert plotted["entropy"].notna().all()
    assert int(plotted["chosen"].sum()) == 1
    kept = plotted[plotted["role"] == "evaluated"]
    assert len(kept) and (~kept["passes"]).any()  # failing nodes are kept too
    assert (kept["suppressed_share"] == kept["suppressed"] / kept["records"]).all()
    assert set(frame.columns) == {"age", "sex", *REPORT_COLUMNS}


def test_trace_keeps_the_first_nodes_and_the_released_one_beyond_the_limit(monkeypatch) -> None:
    """Beyond the limit the first evaluated nodes are kept, the released node always, and the
    result counts the others."""
    from dbt_deid.ola import run as run_module

    monkeypatch.setattr(run_module, "TRACE_LIMIT", 2)
    hs = ola_hierarchies(_long(), _patterns(), {"age": 0, "sex": 0}, "?")
    full = run_ola(_patterns(), hs, 10, 0.0)
    assert full.evaluated > 3 and full.trace_dropped >= 1
    assert full.chosen is not None and full.chosen in {e.node for e in full.trace}
    assert len(full.trace) + full.trace_dropped == full.evaluated
    assert len(full.trace) <= 3


def test_max_levels_below_the_released_level_is_refused_by_the_resolver() -> None:
    """The rule the parse-time check held before settings were checked once (issue 33): a
    QI's maximum acceptable level is at least its minimum, ``quasi_identifiers.<q>.level``;
    the resolver (plan node, ``python -m dbt_deid check``) names it, not only the lattice."""
    release = {"quasi_identifiers": {"age": {"level": 2}, "sex": {}},
               "generalization": {"search": "ola", "max_levels": {"age": 1}}}
    with pytest.raises(ConfigError, match=r"generalization\.max_levels\.age must be an integer"
                       r" >= the minimum level quasi_identifiers\.age\.level \(2\), got 1"):
        ola_settings(release)
    release["generalization"]["max_levels"] = {"age": 2}
    assert dict(ola_settings(release).max_levels) == {"age": 2}
