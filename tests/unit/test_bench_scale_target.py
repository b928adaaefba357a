"""``bench/bench_scale.py`` reuses its dbt target folders between runs: a parse saved there by
another checkout of the repository pointed dbt at that checkout's seed files (a removed
worktree: the 2.4M build failed loading the seeds, 2026-11-24). ``claim_target`` drops such a
parse and keeps the folder's own."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def load_bench():
    """The bench script as a module (it imports bench_seed000 from its own folder)."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("bench_scale",
                                                      REPO / "bench" / "bench_scale.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(REPO / "bench"))
    return module


def test_a_parse_saved_by_another_checkout_is_dropped_and_the_own_one_kept(tmp_path) -> None:
    claim_target = load_bench().claim_target
    here, elsewhere = tmp_path / "here" / "demo", tmp_path / "other" / "demo"
    here.mkdir(parents=True)
    elsewhere.mkdir(parents=True)
    target = tmp_path / "target_24M"
    target.mkdir()
    saved = target / "partial_parse.msgpack"

    saved.write_bytes(b"parse of a folder with no stamp")
    claim_target(target, here)
    assert not saved.exists()

    saved.write_bytes(b"parse of this checkout")
    claim_target(target, here)
    assert saved.exists()

    claim_target(target, elsewhere)
    assert not saved.exists()
    claim_target(tmp_path / "new_target", here)
    assert (tmp_path / "new_target" / "dbt_deid_project_dir.txt").read_text() == str(here.resolve())
