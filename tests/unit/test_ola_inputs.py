"""Hierarchy loading/validation, k from the population (El Emam et al. 2012 eq. 3) and the ola
CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.ola import Hierarchy, k_from_population, run_ola
from dbt_deid.tools.cli import main

AGE = "1;0-4;*\n2;0-4;*\n7;5-9;*\n8;5-9;*\n"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_load_hierarchy_levels(tmp_path: Path) -> None:
    h = Hierarchy.from_csv("age", _write(tmp_path / "h.csv", AGE))
    assert h.height == 2 and h.n_leaves == 4
    assert list(h.labels[1]) == ["0-4", "5-9"]
    assert h.maps[1].tolist() == [0, 0, 1, 1] and h.maps[2].tolist() == [0, 0, 0, 0]
    assert h.leaves_under[1].tolist() == [2, 2]
    assert h.encode(pd.Series([7, 1, 8])).tolist() == [2, 0, 3]
    assert h.up(1, 2).tolist() == [0, 0]
    comma = Hierarchy.from_csv("age", _write(tmp_path / "c.csv", AGE.replace(";", ",")), ",")
    assert [list(x) for x in comma.labels] == [list(x) for x in h.labels]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("1;0-4;*\n1;0-4;*\n", "'age' lists value '1' twice"),
        ("1;0-4;*\n2;0-4\n", "ragged: row 2 has 2 fields"),
        ("1;a;x;*\n2;a;y;*\n", "not a tree: level 1 value 'a'"),
        ("1;;*\n", "empty field"),
        ("", "empty"),
    ],
)
def test_bad_hierarchies(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(DataError, match=match):
        Hierarchy.from_csv("age", _write(tmp_path / "h.csv", text))


def test_value_missing_from_hierarchy_names_column_and_value(tmp_path: Path) -> None:
    h = Hierarchy.from_csv("age", _write(tmp_path / "h.csv", AGE))
    with pytest.raises(DataError, match=r"column 'age'.*'42' not in its hierarchy"):
        h.encode(["1", "42"])
    frame = pd.DataFrame({"age": ["1", "2", "99"]})
    with pytest.raises(DataError, match="'99'"):
        run_ola(frame, {"age": h}, 2, 0.5, count_column=None)
    with pytest.raises(DataError, match="null"):
        h.encode(pd.Series(["1", None]))


def test_k_from_population() -> None:
    assert k_from_population(20, 0.2) == 4  # the paper's example
    assert k_from_population(20, 1.0) == 20
    assert k_from_population(20, 0.3) == 6
    assert k_from_population(20, 0.01) == 1
    assert k_from_population(30, 0.1) == 3
    for alpha in (0, -0.1, 1.01, True, "0.5"):
        with pytest.raises(ConfigError, match="alpha"):
            k_from_population(20, alpha)
    with pytest.raises(ConfigError, match="F_j"):
        k_from_population(0, 0.5)


# -- CLI --------------------------------------------------------------------------------------

def _cli_files(tmp_path: Path) -> list[str]:
    rows = ["age,sex,other"]
    for i in range(40):
        rows.append(f"{[1, 2, 7, 8][i % 4]},{'MF'[i % 3 == 0]},x{i}")
    rows.append("8,F,lonely")
    data = _write(tmp_path / "data.csv", "\n".join(rows) + "\n")
    age = _write(tmp_path / "age.csv", AGE)
    sex = _write(tmp_path / "sex.csv", "M;*\nF;*\n")
    return ["ola", "--input", str(data), "--hierarchy", f"age={age}",
            "--hierarchy", f"sex={sex}", "--hierarchy-delimiter", ";"]


def test_cli_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = _cli_files(tmp_path)
    assert main([*base, "--k", "8", "--max-suppression", "0.05", "--all-metrics"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["records"] == 41 and out["lattice_size"] == 3 * 2
    assert set(out["chosen"]) == {"age", "sex"}
    assert out["suppressed_records"] <= 2
    assert 1 <= out["nodes_evaluated"] <= 6
    assert out["k_minimal"] and all(set(n["metrics"]) == {"entropy", "precision",
                                                           "discernibility", "loss"}
                                    for n in out["k_minimal"])
    assert out["metric"] == "entropy" and out["metric_value"] is not None
    assert main([*base, "--k", "8", "--max-suppression", "0.05", "--metric", "precision",
                 "--max-level", "age=0"]) == 0
    capped = json.loads(capsys.readouterr().out)
    assert capped["chosen"]["age"] == 0 and capped["lattice_size"] == 2


def test_cli_beyond_max_nodes_runs_the_heuristic_and_says_so(tmp_path: Path, capsys) -> None:
    """Issue 36: a lattice over --max-nodes is no longer an error; the heuristic search
    (Lightning) chooses the node and the JSON says which search produced it."""
    base = _cli_files(tmp_path)
    assert main([*base, "--k", "3", "--max-suppression", "0.1"]) == 0
    optimal = json.loads(capsys.readouterr().out)
    assert optimal["search"] == "optimal" and optimal["heuristic"] is None
    assert main([*base, "--k", "3", "--max-suppression", "0.1", "--max-nodes", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["search"] == "heuristic" and out["k_minimal"] == []
    h = out["heuristic"]
    assert h["algorithm"] == "lightning" and h["proved_optimal"] and h["gap_bound"] == 0.0
    assert out["chosen"] == optimal["chosen"] and out["chosen_is_optimal"]
    assert out["metric_value"] == pytest.approx(optimal["metric_value"])


def test_cli_no_passing_node_exits_1(tmp_path: Path, capsys) -> None:
    assert main([*_cli_files(tmp_path), "--k", "100", "--max-suppression", "0"]) == 1
    assert json.loads(capsys.readouterr().out)["chosen"] is None


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--k", "1", "--max-suppression", "0.1"], "--k must be >= 2"),
        (["--k", "3", "--max-suppression", "1.5"], r"--max-suppression must be in \[0, 1\]"),
        (["--k", "3", "--max-suppression", "0.1", "--max-level", "age=9"], "max level of 'age'"),
        (["--k", "3", "--max-suppression", "0.1", "--max-level", "zip=1"], "no --hierarchy"),
        (["--k", "3", "--max-suppression", "0.1", "--max-level", "age"], "COLUMN=VALUE"),
        (["--k", "3", "--max-suppression", "0.1", "--hierarchy", "zip=x.csv"], "unknown column"),
        (["--k", "3", "--max-suppression", "0.1", "--max-nodes", "2", "--heuristic-seconds",
          "0"], "--heuristic-seconds must be a number > 0"),
        (["--k", "3", "--max-suppression", "0.1", "--heuristic-nodes", "0"],
         "--heuristic-nodes must be an integer >= 1"),
        (["--k", "3", "--max-suppression", "0.1", "--max-nodes", "0"],
         "--max-nodes must be an integer >= 1"),
        (["--k", "3", "--max-suppression", "0.1", "--max-seconds", "-1"],
         "--max-seconds must be a number > 0"),
    ],
)
def test_cli_bad_input(tmp_path: Path, capsys, extra: list[str], match: str) -> None:
    assert main([*_cli_files(tmp_path), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")
    assert re.search(match, err[0])


def test_cli_value_not_in_hierarchy(tmp_path: Path, capsys) -> None:
    base = _cli_files(tmp_path)
    _write(tmp_path / "sex.csv", "M;*\n")
    assert main([*base, "--k", "3", "--max-suppression", "0.1"]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "'sex'" in err and "'F'" in err


def test_cli_missing_files(tmp_path: Path, capsys) -> None:
    assert main(["ola", "--input", str(tmp_path / "none.csv"), "--hierarchy", "a=b.csv",
                 "--k", "2", "--max-suppression", "0"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_cli_verbose_logs_progress_with_counts_only(tmp_path: Path, caplog) -> None:
    import logging

    caplog.set_level(logging.INFO, logger="dbt_deid.ola")
    assert main(["-v", *_cli_files(tmp_path), "--k", "2", "--max-suppression", "0.5"]) == 0
    log = caplog.text
    assert "OLA k-minimal search:" in log and "nodes done" in log and "evaluated" in log
    assert "OLA optimum search:" in log
    assert "lonely" not in log and "x1" not in log  # counts only, never values
