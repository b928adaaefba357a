"""Node evaluation, metrics and node choice of OLA, checked against brute force on records."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dbt_deid.errors import ConfigError
from dbt_deid.ola import run_ola
from dbt_deid.ola.evaluate import NodeEvaluator
from dbt_deid.ola.lattice import Lattice
from dbt_deid.ola.metrics import METRICS, Metrics
from dbt_deid.tools.synthetic.tables import random_problem


def _brute(frame, hierarchies, node, k):
    """Every quantity straight from the records and the formulas (no shortcuts)."""
    n = len(frame)
    gen = {}
    for (c, h), lvl in zip(hierarchies.items(), node, strict=True):
        gen[c] = h.labels[lvl][h.maps[lvl][h.encode(frame[c])]]
    g = pd.DataFrame(gen)
    size = g.groupby(list(gen)).size().rename("size")
    size = g.join(size, on=list(gen))["size"].to_numpy()
    small = size < k
    suppressed = int(small.sum())
    entropy = 0.0
    loss = 0.0
    for (c, h), lvl in zip(hierarchies.items(), node, strict=True):
        orig = frame[c].astype(str).to_numpy()
        f = pd.Series(orig).map(pd.Series(orig).value_counts()).to_numpy()
        big_f = pd.Series(gen[c]).map(pd.Series(gen[c]).value_counts()).to_numpy()
        cost = np.where(small, -np.log2(f / n), -np.log2(f / big_f))
        entropy += float(cost.sum())
        leaves = pd.Series(h.labels[lvl][h.maps[lvl]]).value_counts()
        under = pd.Series(gen[c]).map(leaves).to_numpy()
        cell = (under - 1) / (h.n_leaves - 1) if h.n_leaves > 1 else np.zeros(n)
        loss += float(np.where(small, 1.0, cell).sum())
    kept = g[~small].groupby(list(gen)).size().to_numpy()
    disc = float((kept ** 2).sum() + n * suppressed)
    prec = 0.0  # per cell: level / height, a suppressed cell 1 (the top)
    for lvl, h in zip(node, hierarchies.values(), strict=True):
        prec += float(np.where(small, 1.0, lvl / h.height if h.height else 0.0).sum())
    prec /= n * len(node)
    return suppressed, {"entropy": entropy, "precision": prec, "discernibility": disc,
                        "loss": loss / (n * len(node))}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_node_matches_brute_force(seed: int) -> None:
    frame, hierarchies = random_problem(seed, n_qis=3, n_records=150)
    k = 3
    ev = NodeEvaluator.from_frame(frame, hierarchies, k, 0.1, count_column=None)
    metrics = Metrics(ev.hierarchies, ev.leaf_table, k)
    lattice = Lattice.from_heights({c: h.height for c, h in hierarchies.items()})
    for node in lattice.all_nodes():
        suppressed, want = _brute(frame, hierarchies, node, k)
        t = ev.table(node)
        assert int(t.counts.sum()) == len(frame)
        assert t.suppressed(k) == suppressed, node
        assert ev.is_passing(node) == (suppressed <= math.floor(0.1 * len(frame)))
        for m in METRICS:
            assert metrics.value(m, t) == pytest.approx(want[m], rel=1e-9, abs=1e-9), (node, m)


def test_rolled_up_tables_equal_fresh_ones() -> None:
    frame, hierarchies = random_problem(7, n_qis=4, n_records=300)
    lattice = Lattice.from_heights({c: h.height for c, h in hierarchies.items()})
    nodes = list(lattice.all_nodes())
    warm = NodeEvaluator.from_frame(frame, hierarchies, 2, 0.0, count_column=None)
    for node in nodes:  # bottom-up: each table rolled up from a cached specialization
        warm.table(node)
    for node in reversed(nodes):
        fresh = NodeEvaluator.from_frame(frame, hierarchies, 2, 0.0, count_column=None)
        a, b = warm.table(node), fresh.table(node)
        np.testing.assert_array_equal(a.counts, b.counts)
        np.testing.assert_array_equal(a.codes, b.codes)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("search", ["paths", "ola"])
def test_search_matches_exhaustive_search(seed: int, metric: str, search: str) -> None:
    rng = np.random.default_rng(seed)
    frame, hierarchies = random_problem(seed, n_qis=int(rng.integers(2, 5)), n_records=250)
    k = int(rng.integers(2, 8))
    max_sup = float(rng.choice([0.0, 0.02, 0.1, 0.3, 1.0]))
    args = (frame, hierarchies, k, max_sup, metric)
    ola = run_ola(*args, count_column=None, all_metrics=True, search=search)
    full = run_ola(*args, count_column=None, search="exhaustive", all_metrics=True)
    assert [r.node for r in ola.k_minimal] == [r.node for r in full.k_minimal]
    assert ola.chosen == full.chosen and ola.best_k_minimal == full.best_k_minimal
    assert ola.metric_value == full.metric_value
    assert ola.suppressed == full.suppressed
    assert ola.search.evaluated <= full.evaluated == full.lattice_size
    if ola.chosen is not None:
        assert ola.suppressed <= math.floor(max_sup * len(frame))
        # the paper's choice is the best k-minimal node; the released node is at least as good
        best_kmin = min(r.metrics[metric] for r in full.k_minimal)
        assert ola.optimal.metrics[metric] <= best_kmin + 1e-9 * max(1.0, abs(best_kmin))


def test_pattern_table_and_records_agree() -> None:
    frame, hierarchies = random_problem(3, n_qis=3, n_records=400)
    patterns = frame.groupby(list(hierarchies)).size().reset_index(name="n")
    a = run_ola(patterns, hierarchies, 4, 0.05)
    b = run_ola(frame, hierarchies, 4, 0.05, count_column=None)
    assert a.chosen == b.chosen and a.metric_value == b.metric_value
    assert a.suppressed == b.suppressed


def test_result_frames_and_apply() -> None:
    frame, hierarchies = random_problem(5, n_qis=3, n_records=300)
    hier_frames = {
        c: pd.DataFrame([[h.labels[lvl][h.maps[lvl][i]] for lvl in range(h.height + 1)]
                         for i in range(h.n_leaves)])
        for c, h in hierarchies.items()
    }
    r = run_ola(frame, hier_frames, 3, 0.05, "loss", {"q0": 1}, count_column=None)
    assert r.chosen is not None and r.chosen[0] <= 1
    levels = r.chosen_levels_frame()
    assert list(levels["column"]) == ["q0", "q1", "q2"]
    assert list(levels["level"]) == list(r.chosen)
    assert levels["max_level"].iloc[0] == 1
    report = r.node_report_frame()
    assert len(report) == len(r.reports()) and report["chosen"].sum() == 1
    assert report["k_minimal"].sum() == len(r.k_minimal) and report["best_k_minimal"].sum() == 1
    assert report.loc[report["chosen"], "loss"].iloc[0] == r.metric_value
    out = r.apply(frame, count_column=None)
    assert int(out["suppressed"].sum()) == r.suppressed
    kept = out[~out["suppressed"]]
    assert kept.groupby(list(hierarchies)).size().min() >= 3
    assert out.loc[out["suppressed"], list(hierarchies)].isna().all().all()


@pytest.mark.parametrize(
    ("k", "sup", "metric", "match"),
    [(1, 0.1, "entropy", "k must be"), (3, 1.5, "entropy", "max_suppression"),
     (3, -0.1, "entropy", "max_suppression"), (3, 0.1, "bogus", "metric")],
)
def test_bad_settings(k, sup, metric, match) -> None:
    frame, hierarchies = random_problem(1)
    with pytest.raises(ConfigError, match=match):
        run_ola(frame, hierarchies, k, sup, metric, count_column=None)


def test_no_passing_node_when_k_exceeds_records() -> None:
    frame, hierarchies = random_problem(2, n_records=10)
    r = run_ola(frame, hierarchies, 11, 0.5, count_column=None)
    assert r.chosen is None and r.k_minimal == [] and r.evaluated == 1
    assert r.chosen_levels_frame()["level"].isna().all()


def test_wide_key_fallback_gives_the_same_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    from dbt_deid.ola import evaluate

    frame, hierarchies = random_problem(11, n_qis=4, n_records=300)
    lattice = Lattice.from_heights({c: h.height for c, h in hierarchies.items()})
    keyed = NodeEvaluator.from_frame(frame, hierarchies, 3, 0.05, count_column=None)
    monkeypatch.setattr(evaluate, "_KEY_LIMIT", 1)
    rows = NodeEvaluator.from_frame(frame, hierarchies, 3, 0.05, count_column=None)
    assert keyed.leaf_table.keys is not None and rows.leaf_table.keys is None
    for node in lattice.all_nodes():
        a, b = keyed.table(node), rows.table(node)
        oa, ob = np.lexsort(a.codes.T[::-1]), np.lexsort(b.codes.T[::-1])  # same classes
        np.testing.assert_array_equal(a.counts[oa], b.counts[ob])
        np.testing.assert_array_equal(a.codes[oa], b.codes[ob])


def test_counts_packed_next_to_keys_when_the_node_leaves_room(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With too many key bits to pack a count of n next to every key, roll-ups still pack
    (per-node bounds on the keys and on the class sizes), and the tables do not change."""
    from dbt_deid.ola import evaluate

    frame, hierarchies = random_problem(5, n_qis=4, n_records=400)
    lattice = Lattice.from_heights({c: h.height for c, h in hierarchies.items()})
    monkeypatch.setattr(evaluate, "_COMPILED", False)  # the numpy path's packing
    plain = NodeEvaluator.from_frame(frame, hierarchies, 3, 0.05, count_column=None)
    bound = NodeEvaluator.from_frame(frame, hierarchies, 3, 0.05, count_column=None)
    bound._count_bits = 63 - bound._key_bits + 1  # force the per-node bounds
    seen = []
    orig = evaluate.group_keys

    def spy(keys, counts, key_bits, count_bits):
        seen.append(key_bits + count_bits <= 63)
        assert int(keys.max()) < 1 << key_bits
        out = orig(keys, counts, key_bits, count_bits)
        assert int(out[1].max()) < 1 << count_bits  # every class fits the count field
        return out

    monkeypatch.setattr(evaluate, "group_keys", spy)
    for node in lattice.all_nodes():
        a, b = plain.table(node), bound.table(node)
        np.testing.assert_array_equal(a.keys, b.keys)
        np.testing.assert_array_equal(a.counts, b.counts)
    assert seen and all(seen)
    assert bound._key_bits + bound._count_bits > 63


def test_tiny_cache_gives_the_same_search() -> None:
    frame, hierarchies = random_problem(4, n_qis=4, n_records=300)
    lattice = Lattice.from_heights({c: h.height for c, h in hierarchies.items()})
    from dbt_deid.ola.search import ola_search

    big = NodeEvaluator.from_frame(frame, hierarchies, 3, 0.05, count_column=None)
    tiny = NodeEvaluator(big.hierarchies, big.leaf_table.codes, big.leaf_table.counts, 3, 0.05,
                         cache_bytes=64)
    a, b = ola_search(lattice, big.is_passing), ola_search(lattice, tiny.is_passing)
    assert a.k_minimal == b.k_minimal and a.evaluations == b.evaluations
    assert tiny._bytes <= 64 < big._bytes


def test_dense_counting_gives_the_same_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Large roll-ups count classes in a dense array instead of sorting keys: same tables."""
    from dbt_deid.ola import evaluate

    frame, hierarchies = random_problem(12, n_qis=4, n_records=400)
    lattice = Lattice.from_heights({c: h.height for c, h in hierarchies.items()})
    sorted_ev = NodeEvaluator.from_frame(frame, hierarchies, 3, 0.05, count_column=None)
    monkeypatch.setattr(evaluate, "_DENSE_MIN_ROWS", 0)
    monkeypatch.setattr(evaluate, "_DENSE_RATIO", 10**9)
    dense_ev = NodeEvaluator.from_frame(frame, hierarchies, 3, 0.05, count_column=None)
    for node in reversed(list(lattice.all_nodes())):  # top-down: every roll-up from the leaves
        a, b = sorted_ev.table(node), dense_ev.table(node)
        np.testing.assert_array_equal(a.keys, b.keys)
        np.testing.assert_array_equal(a.counts, b.counts)
        np.testing.assert_array_equal(a.codes, b.codes)


@pytest.mark.parametrize("seed", [0, 5])
def test_class_terms_equal_per_qi_sums_exactly(seed: int) -> None:
    """The one-gather class terms (all QIs at once) give bit for bit the per-QI sums added in
    QI order, for the small classes (entropy) and the kept ones (loss)."""
    from dbt_deid.ola.metrics import _KEPT, _SMALL

    frame, hierarchies = random_problem(seed, n_qis=4, n_records=400)
    ev = NodeEvaluator.from_frame(frame, hierarchies, 4, 0.2, count_column=None)
    metrics = Metrics(ev.hierarchies, ev.leaf_table, 4)
    lattice = Lattice.from_heights({c: h.height for c, h in hierarchies.items()})
    checked = 0
    for node in lattice.all_nodes():
        t = ev.table(node)
        assert t.keys is not None
        small = t.small(4)
        for rows, select, per_level, name in [
                (small, _SMALL, metrics._entropy_extra, "entropy"),
                (None, None, metrics._loss, "loss"),
                (None if small is None else ~small, _KEPT, metrics._loss, "loss")]:
            if small is None and select is not None:
                continue
            counts = (t.counts if rows is None else t.counts[rows]).astype(np.float64)
            want = 0.0
            for j, lvl in enumerate(node):
                cost = np.asarray(per_level[j][lvl], dtype=np.float64)
                if cost[t.layout.orig[j][lvl]].any():
                    want += float((counts * cost[t.column(j, rows)]).sum())
            assert metrics._class_terms(t, select, per_level, name) == want, (node, name)
            checked += 1
    assert checked > lattice.size


def test_packed_node_containment_picks_the_same_bases() -> None:
    """The scan of recently cached tables for a base compares nodes packed one guarded field
    per QI; it picks the same tables as the plain level-by-level comparison."""
    frame, hierarchies = random_problem(3, n_qis=5, n_records=400)
    ev = NodeEvaluator.from_frame(frame, hierarchies, 3, 0.05, count_column=None)
    lattice = Lattice.from_heights({c: h.height for c, h in hierarchies.items()})
    nodes = list(lattice.all_nodes())
    rng = np.random.default_rng(0)
    for i in rng.choice(len(nodes), size=len(nodes) // 4, replace=False).tolist():
        ev.table(nodes[i])
    assert ev._node_shift is not None
    packed = [ev._base_for(n).node for n in nodes]
    ev._node_shift = None
    plain = [ev._base_for(n).node for n in nodes]
    assert packed == plain
    far = [n for n, b in zip(nodes, packed, strict=True) if sum(n) - sum(b) > 1 and any(b)]
    assert far  # the scan, not only the direct specializations, chose some bases


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_compiled_rollups_give_the_numpy_tables(monkeypatch: pytest.MonkeyPatch,
                                                seed: int) -> None:
    """The numba loops (kernels.map_pack / merge_sorted) build the same tables, bit for bit,
    as the numpy reference path, and count the same suppressed records, whatever the order in
    which nodes are rolled up (bottom-up: from direct specializations; top-down: from the
    leaves or step tables) and with per-node key/count bounds."""
    from dbt_deid.ola import evaluate, kernels

    assert kernels.map_pack is not None  # the compiled path is what the tests exercise
    frame, hierarchies = random_problem(seed, n_qis=5, n_records=500)
    lattice = Lattice.from_heights({c: h.height for c, h in hierarchies.items()})
    for order in (list(lattice.all_nodes()), list(reversed(list(lattice.all_nodes())))):
        compiled = NodeEvaluator.from_frame(frame, hierarchies, 3, 0.05, count_column=None)
        monkeypatch.setattr(evaluate, "_COMPILED", False)
        reference = NodeEvaluator.from_frame(frame, hierarchies, 3, 0.05, count_column=None)
        reference_tables = {node: reference.table(node) for node in order}
        monkeypatch.setattr(evaluate, "_COMPILED", True)
        bounded = NodeEvaluator.from_frame(frame, hierarchies, 3, 0.05, count_column=None)
        bounded._count_bits = 63 - bounded._key_bits + 1  # force the per-node bounds
        for node in order:
            r = reference_tables[node]
            for ev in (compiled, bounded):
                t = ev.table(node)
                np.testing.assert_array_equal(t.keys, r.keys)
                np.testing.assert_array_equal(t.counts, r.counts)
                assert t.suppressed(3) == r.suppressed(3)
                for k in (3, 2, 3):
                    a, b = t.small(k), r.small(k)
                    assert (a is None) == (b is None)
                    if a is not None:
                        np.testing.assert_array_equal(a, b)
                    assert t.suppressed(k) == r.suppressed(k)
        assert compiled.tables_built == reference.tables_built


@pytest.mark.parametrize("seed", [3, 21])
def test_compiled_metric_terms_give_the_numpy_values(monkeypatch: pytest.MonkeyPatch,
                                                     seed: int) -> None:
    """Every metric computed with kernels.class_terms equals the numpy gather's value to the
    last bit (the same products, summed by the same numpy calls), with and without
    suppression (k = 2 and k = 4)."""
    from dbt_deid.ola import evaluate
    from dbt_deid.ola.metrics import METRICS, Metrics

    frame, hierarchies = random_problem(seed, n_qis=5, n_records=500)
    lattice = Lattice.from_heights({c: h.height for c, h in hierarchies.items()})
    for k in (2, 4):
        ev = NodeEvaluator.from_frame(frame, hierarchies, k, 0.05, count_column=None)
        metrics = Metrics(ev.hierarchies, ev.leaf_table, ev.k)
        suppressing = 0
        for node in lattice.all_nodes():
            t = ev.table(node)
            compiled = {m: metrics.value(m, t) for m in METRICS}
            monkeypatch.setattr(evaluate, "_COMPILED", False)
            reference = {m: metrics.value(m, t) for m in METRICS}
            monkeypatch.setattr(evaluate, "_COMPILED", True)
            assert compiled == reference  # exact float equality
            suppressing += t.suppressed(k) > 0
        assert 0 < suppressing < lattice.size
