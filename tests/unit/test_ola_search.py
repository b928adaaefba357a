"""OLA's lattice and search (El Emam et al. 2009): k-minimal nodes and predictive tagging."""

from __future__ import annotations

import random

import pytest

from dbt_deid.errors import ConfigError
from dbt_deid.ola import search as search_mod
from dbt_deid.ola.lattice import Lattice
from dbt_deid.ola.search import exhaustive_search, ola_search


def _random_case(seed: int) -> tuple[Lattice, list[tuple[int, ...]]]:
    rng = random.Random(seed)
    d = rng.randint(1, 5)
    mins = tuple(rng.randint(0, 1) for _ in range(d))
    maxs = tuple(m + rng.randint(0, 3) for m in mins)
    lattice = Lattice(tuple(f"q{i}" for i in range(d)), mins, maxs)
    gens = [tuple(rng.randint(lo, hi) for lo, hi in zip(mins, maxs, strict=True))
            for _ in range(rng.randint(0, 4))]
    return lattice, gens


def _monotone(gens: list[tuple[int, ...]]):
    """A monotone test: a node passes when it generalizes one of the generators."""
    return lambda node: any(Lattice.is_generalization(node, g) for g in gens)


def test_lattice_basics() -> None:
    lat = Lattice(("a", "b", "c"), (0, 1, 0), (2, 2, 1))
    assert lat.size == 3 * 2 * 2
    assert lat.bottom == (0, 1, 0) and lat.top == (2, 2, 1)
    assert lat.max_height == 4
    nodes = list(lat.all_nodes())
    assert len(nodes) == lat.size == len(set(nodes))
    assert all(lat.contains(n) for n in nodes)
    assert lat.nodes_at_height(1) == [(0, 1, 1), (0, 2, 0), (1, 1, 0)]
    assert sorted(lat.successors((1, 1, 0))) == [(1, 1, 1), (1, 2, 0), (2, 1, 0)]
    assert lat.predecessors((0, 1, 0)) == []
    assert not lat.contains((3, 1, 0))


@pytest.mark.parametrize(
    ("names", "mins", "maxs"),
    [(("a",), (0,), (-1,)), (("a", "a"), (0, 0), (1, 1)), (("a",), (0, 0), (1,)), ((), (), ())],
)
def test_lattice_rejects_bad_bounds(names, mins, maxs) -> None:
    with pytest.raises(ConfigError):
        Lattice(names, mins, maxs)


def test_from_heights_caps_levels() -> None:
    lat = Lattice.from_heights({"a": 3, "b": 2}, {"a": 1})
    assert lat.max_levels == (1, 2)
    with pytest.raises(ConfigError, match="'b'"):
        Lattice.from_heights({"a": 3, "b": 2}, {"b": 3})
    with pytest.raises(ConfigError, match="unknown"):
        Lattice.from_heights({"a": 3}, {"z": 1})


@pytest.mark.parametrize("seed", range(120))
def test_ola_finds_exactly_the_k_minimal_nodes(seed: int) -> None:
    lattice, gens = _random_case(seed)
    test = _monotone(gens)
    got = ola_search(lattice, test)
    want = exhaustive_search(lattice, test)
    assert got.k_minimal == want.k_minimal
    assert got.lattice_size == lattice.size
    assert 0 < got.evaluated <= lattice.size


@pytest.mark.parametrize("seed", range(40))
def test_predictive_tagging_never_evaluates_a_known_node(seed: int) -> None:
    lattice, gens = _random_case(seed)
    test = _monotone(gens)
    calls: list[tuple[tuple[int, ...], bool]] = []

    def recording(node: tuple[int, ...]) -> bool:
        ok = test(node)
        calls.append((node, ok))
        return ok

    result = ola_search(lattice, recording)
    assert result.evaluated == len(calls) == len({n for n, _ in calls})
    for i, (node, _) in enumerate(calls):
        for prev, ok in calls[:i]:
            # a generalization of a passing node, or a specialization of a failing node, is
            # tagged and must not be evaluated
            assert not (ok and Lattice.is_generalization(node, prev))
            assert not (not ok and Lattice.is_generalization(prev, node))
    assert result.evaluations == dict(calls)


def test_top_failing_gives_no_node_and_one_evaluation() -> None:
    lattice = Lattice(("a", "b"), (0, 0), (3, 3))
    result = ola_search(lattice, lambda node: False)
    assert result.k_minimal == [] and result.evaluated == 1


def test_all_passing_gives_the_bottom() -> None:
    lattice = Lattice(("a", "b"), (1, 0), (3, 3))
    result = ola_search(lattice, lambda node: True)
    assert result.k_minimal == [(1, 0)]
    assert result.evaluated < lattice.size


def test_single_node_lattice() -> None:
    lattice = Lattice(("a",), (2,), (2,))
    assert ola_search(lattice, lambda n: True).k_minimal == [(2,)]
    assert ola_search(lattice, lambda n: False).k_minimal == []


@pytest.mark.parametrize("seed", range(30))
def test_batch_skipping_and_small_chunks_change_nothing(seed: int,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Skipping fully tagged sub-lattices in batches and walking levels in tiny chunks are
    bookkeeping: the same nodes are evaluated, in the same order."""
    from dbt_deid.ola import lattice as lattice_mod

    lattice, gens = _random_case(seed)
    monkeypatch.setattr(search_mod, "_BATCH_SKIP", 10**9)
    plain = ola_search(lattice, _monotone(gens))
    monkeypatch.setattr(search_mod, "_BATCH_SKIP", 0)
    monkeypatch.setattr(lattice_mod, "_SUFFIX_LIMIT", 2)
    lattice_mod._suffix_table.cache_clear()
    batched = ola_search(lattice, _monotone(gens))
    lattice_mod._suffix_table.cache_clear()
    assert batched.k_minimal == plain.k_minimal
    assert list(batched.evaluations.items()) == list(plain.evaluations.items())


def test_every_node_is_tagged_and_passing_mask_matches() -> None:
    lattice, gens = _random_case(7)
    test = _monotone(gens)
    result = ola_search(lattice, test)
    assert result.passing is not None and result.passing.shape == lattice.shape
    for node in lattice.all_nodes():
        assert bool(result.passing[lattice.index(node)]) == test(node)


def test_lattice_over_the_node_budget_fails_before_any_evaluation() -> None:
    from dbt_deid.ola.budget import SearchBudget, SearchBudgetError

    lattice = Lattice(tuple(f"q{i}" for i in range(30)), (0,) * 30, (2,) * 30)
    calls: list[tuple[int, ...]] = []
    with pytest.raises(SearchBudgetError, match=r"205,891,132,094,649 nodes.*max_nodes"):
        ola_search(lattice, lambda n: calls.append(n) or True,
                   budget=SearchBudget(max_nodes=1_000_000))
    assert calls == []


def test_deadline_stops_the_search_with_the_setting_named() -> None:
    import time

    from dbt_deid.ola.budget import SearchBudget, SearchBudgetError

    lattice = Lattice(("a", "b", "c"), (0, 0, 0), (6, 6, 6))

    def slow(node: tuple[int, ...]) -> bool:
        time.sleep(0.02)
        return sum(node) >= 9

    with pytest.raises(SearchBudgetError, match=r"max_seconds = 0.05.*nodes done"):
        ola_search(lattice, slow, budget=SearchBudget(max_seconds=0.05))


def test_progress_lines_count_nodes_done_and_planned() -> None:
    from dbt_deid.ola.budget import Progress, SearchBudget

    class Capture:
        def __init__(self) -> None:
            self.lines: list[str] = []

        def info(self, msg: str) -> None:
            self.lines.append(msg)

    lattice, gens = _random_case(3)
    cap = Capture()
    ola_search(lattice, _monotone(gens), logger=cap,
               progress=Progress(cap, SearchBudget(), every=0.0))
    lines = [x for x in cap.lines if "nodes done" in x]
    assert lines and all(f"of {lattice.size:,} nodes done" in x for x in lines)
    assert lines[-1].startswith(f"OLA k-minimal search: {lattice.size:,} of")


@pytest.mark.parametrize("seed", range(150))
def test_path_search_finds_exactly_the_k_minimal_nodes(seed: int) -> None:
    from dbt_deid.ola.search import path_search

    lattice, gens = _random_case(seed)
    calls: list[tuple[tuple[int, ...], bool]] = []
    test = _monotone(gens)

    def recording(node: tuple[int, ...]) -> bool:
        ok = test(node)
        calls.append((node, ok))
        return ok

    got = path_search(lattice, recording)
    want = exhaustive_search(lattice, test)
    assert got.k_minimal == want.k_minimal
    assert (got.passing == want.passing).all()
    assert got.evaluated == len(calls) == len({n for n, _ in calls}) <= lattice.size
    for i, (node, _) in enumerate(calls):  # predictive tagging: no known node is evaluated
        for prev, ok in calls[:i]:
            assert not (ok and Lattice.is_generalization(node, prev))
            assert not (not ok and Lattice.is_generalization(prev, node))
