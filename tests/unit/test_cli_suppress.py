"""``python -m dbt_deid suppress``: conformance cases, missing values, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from dbt_deid.cli import main
from tests.independent_check import smallest_class, smallest_consistent_set


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_walkthrough_via_cli(conformance_dir, tmp_path, capsys) -> None:
    out = tmp_path / "out.csv"
    rc = main(["suppress", "--input", str(conformance_dir / "walkthrough_k3" / "input.csv"),
               "--k", "3", "--combination", "sex,year_of_birth,diagnosis", "--output", str(out)])
    assert rc == 0
    expected = _read(conformance_dir / "walkthrough_k3" / "expected_after_phase2.csv")
    assert _read(out).equals(expected)
    summary = json.loads(capsys.readouterr().out)
    assert summary["cells_suppressed"] == 18
    assert summary["combinations"][0]["ok"] is True


def test_table6_via_cli(conformance_dir, tmp_path, capsys) -> None:
    src = conformance_dir / "combinations_vs_complete_k2" / "input.csv"
    combos = ["--combination", "prov_all,age_group,gender_code,mrdx",
              "--combination", "prov_all,age_group,gender_code,cmg_code"]
    out = tmp_path / "comb.csv"
    assert main(["suppress", "--input", str(src), "--k", "2", *combos, "--output", str(out)]) == 0
    assert _read(out).equals(_read(src))
    out2 = tmp_path / "complete.csv"
    assert main(["suppress", "--input", str(src), "--k", "2", *combos, "--complete",
                 "--output", str(out2)]) == 0
    got = _read(out2)
    empty = (got == "").sum()
    assert empty.sum() == 4 and sorted(empty[empty > 0].index) in (["mrdx"], ["cmg_code"])


def test_missing_values_stay_distinguishable_from_suppression(tmp_path, capsys) -> None:
    rows = ["id,sex,proc"] + [f"{i},F," for i in range(6)] + [f"{i},M,X1" for i in range(6, 12)]
    rows += ["12,F,RARE"]
    src = tmp_path / "in.csv"
    src.write_text("\n".join(rows) + "\n")
    out = tmp_path / "out.csv"
    assert main(["suppress", "--input", str(src), "--k", "3", "--combination", "sex,proc",
                 "--output", str(out)]) == 0
    got = _read(out)
    # Missing is a category of its own, written as the label; a suppressed cell is empty. The
    # outlier's fully suppressed class is grown to k with two records of the missing class.
    assert got.loc[12, "proc"] == "" and got.loc[12, "sex"] == ""
    assert (got.loc[:5, "proc"] == "<missing>").sum() == 4
    assert ((got.loc[:5, "proc"] == "") == (got.loc[:5, "sex"] == "")).all()
    assert (got.loc[6:11, "proc"] == "X1").all()
    assert (got["id"] == _read(src)["id"]).all()  # other columns unchanged


def test_cli_output_holds_the_guarantee_on_adult(adult_dir, tmp_path, capsys) -> None:
    src = adult_dir / "adult.csv"
    out = tmp_path / "adult_out.csv"
    rc = main(["suppress", "--input", str(src), "--delimiter", ";", "--k", "10",
               "--combination", "sex,age,race", "--combination", "age,education,marital-status",
               "--weight", "age=0.5", "--output", str(out)])
    assert rc == 0
    truth = pd.read_csv(src, sep=";", dtype=str)
    released = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False).replace("", None)
    assert len(released) == len(truth)
    assert (released["salary-class"] == truth["salary-class"]).all()
    for b in (["sex", "age", "race"], ["age", "education", "marital-status"]):
        assert smallest_class(released, b) >= 10
        assert smallest_consistent_set(truth, released, b) >= 10


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--k", "1", "--combination", "sex"], "k must be an integer >= 2"),
        (["--k", "3", "--combination", "sex,zip"], "unknown column(s) ['zip']"),
        (["--k", "3", "--combination", "sex", "--weight", "sex=abc"], "weight must be a number"),
        (["--k", "3", "--combination", "sex", "--weight", "sex=3"], "weight of 'sex'"),
        (["--k", "300", "--combination", "sex"], "fewer than k = 300"),
    ],
)
def test_bad_input_gives_one_error(conformance_dir, tmp_path, capsys, args, message) -> None:
    src = conformance_dir / "walkthrough_k3" / "input.csv"
    rc = main(["suppress", "--input", str(src), "--output", str(tmp_path / "o.csv"), *args])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("error: ") and message in err
    assert not (tmp_path / "o.csv").exists()


def test_missing_input_file_and_empty_file(tmp_path, capsys) -> None:
    assert main(["suppress", "--input", str(tmp_path / "nope.csv"), "--k", "2",
                 "--combination", "a", "--output", str(tmp_path / "o.csv")]) == 2
    empty = tmp_path / "empty.csv"
    empty.write_text("a,b\n")
    assert main(["suppress", "--input", str(empty), "--k", "2", "--combination", "a",
                 "--output", str(tmp_path / "o.csv")]) == 2
    assert "has no records" in capsys.readouterr().err


def test_python_dash_m_entry_point(conformance_dir, tmp_path) -> None:
    out = tmp_path / "o.csv"
    proc = subprocess.run(
        [sys.executable, "-m", "dbt_deid", "suppress", "--input",
         str(conformance_dir / "walkthrough_k3" / "input.csv"), "--k", "3",
         "--combination", "sex,year_of_birth,diagnosis", "--output", str(out)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["cells_suppressed"] == 18
