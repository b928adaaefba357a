"""``python -m dbt_deid suppress``: conformance cases, missing values, bad input."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from dbt_deid.tools.cli import main
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


def _write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\r\n").writerows([header, *rows])


def _read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(newline="", encoding="utf-8") as f:
        header, *rows = list(csv.reader(f))
    return header, rows


def _suppress(src: Path, out: Path, *args: str) -> int:
    return main(["suppress", "--input", str(src), "--output", str(out), *args])


def test_carriage_returns_and_quotes_round_trip(tmp_path, capsys) -> None:
    """Issue 13 item 4: a lone carriage return was written unquoted (4 rows read back as 6)."""
    header = ["id", "a", "note"]
    rows = [["1", "x\ry", "p\rq"], ["2", "x\ry", 'say "hi", then\nleave'], ["3", "x\ry", "\r"],
            ["4", "x\ry", ""]]
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    _write_csv(src, header, rows)
    assert _suppress(src, out, "--k", "2", "--combination", "a") == 0
    assert _read_csv(out) == (header, rows)
    back = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert len(back) == 4 and back["note"].tolist() == [r[2] for r in rows]


@pytest.mark.parametrize("name", ["n", "rank_from", "pattern_index", "a__suppressed", "row_key",
                                  "q0"])
def test_user_columns_never_collide_with_internal_names(tmp_path, capsys, name) -> None:
    """Issue 13 item 4: a QI named ``n`` was overwritten with the count column (every cell 1)."""
    header = ["a", name, "other"]
    rows = [["x", str(v), f"o{i}"] for i, v in enumerate([7, 7, 7, 7, 8, 8, 8, 8, 9])]
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    _write_csv(src, header, rows)
    assert _suppress(src, out, "--k", "3", "--combination", f"a,{name}") == 0
    got_header, got = _read_csv(out)
    assert got_header == header
    # The rare value and one record of each other value (grown into the fully suppressed
    # class) are suppressed; the others keep their values.
    assert all(g[1] in ("", r[1]) for g, r in zip(got, rows, strict=True))
    assert sorted(g[1] for g in got) == ["", "", "", "7", "7", "7", "8", "8", "8"]
    assert [r[2] for r in got] == [r[2] for r in rows]
    summary = json.loads(capsys.readouterr().out)
    assert summary["combinations"][0]["columns"] == ["a", name]


def _by_id(path: Path) -> dict[str, list[str]]:
    _, rows = _read_csv(path)
    return {r[0]: r for r in rows}


@pytest.mark.parametrize("record_id", [None, "id"])
def test_output_does_not_depend_on_row_order(tmp_path, capsys, record_id) -> None:
    """Issue 13 item 6: the fully suppressed class (the outlier) is grown with two records of
    the big class; which two must not depend on the row order."""
    header = ["id", "a", "b"]
    rows = [[f"r{i}", "x", "1"] for i in range(6)] + [["r6", "y", "2"]]
    extra = [] if record_id is None else ["--record-id", record_id]
    outputs = []
    for i, order in enumerate([rows, rows[::-1], rows[3:] + rows[:3]]):
        src, out = tmp_path / f"in{i}.csv", tmp_path / f"out{i}.csv"
        _write_csv(src, header, order)
        assert _suppress(src, out, "--k", "3", "--combination", "a,b", *extra) == 0
        outputs.append(_by_id(out))
        assert [r[0] for r in _read_csv(out)[1]] == [r[0] for r in order]  # input order kept
    assert outputs[0] == outputs[1] == outputs[2]
    assert sum(r[1] == "" for r in outputs[0].values()) == 3


def test_identical_rows_are_interchangeable(tmp_path, capsys) -> None:
    """Without a record id, rows identical in every cell get the same multiset of outcomes
    whatever their order, written in input order (the first identical row first)."""
    header = ["a", "b"]
    rows = [["x", "1"]] * 5 + [["x", "2"]] * 3 + [["y", "3"]]
    results = []
    for i, order in enumerate([rows, rows[::-1], rows[4:] + rows[:4]]):
        src, out = tmp_path / f"in{i}.csv", tmp_path / f"out{i}.csv"
        _write_csv(src, header, order)
        assert _suppress(src, out, "--k", "3", "--combination", "a,b") == 0
        got = _read_csv(out)[1]
        results.append(sorted(zip(map(tuple, order), map(tuple, got), strict=True)))
    assert results[0] == results[1] == results[2]


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        ("a,a,b\nx,y,z\n", [], "more than once"),
        ("a,b\nx,1\n\nx,1\n", [], "line 3 is blank"),
        ("a,b\nx,1\nx\n", [], "line 3 has 1 fields"),
        ("a,b\nx,1\n<missing>,1\n", [], "holds the value '<missing>'"),
        ("a,b\nx,1\nx,1\n", ["--missing-label", ""], "must not be empty"),
        ("a,b\nx,1\nx,1\n", ["--record-id", "b"], "duplicate value"),
        ("a,b\nx,1\nx,\n", ["--record-id", "b"], "is empty in 1 row"),
        ("a,b\nx,1\nx,2\n", ["--record-id", "c"], "unknown column 'c'"),
        ("a,b\nx,1\nx,2\n", ["--delimiter", '"'], "--delimiter"),
        ("a,b\nx,1\nx,2\n", ["--weight", "b=0.5"], "weight given for unknown column 'b'"),
    ],
)
def test_bad_files_fail_closed(tmp_path, capsys, text, args, message) -> None:
    """A renamed column, a dropped or padded record, or a missing value merged with a real
    value would go unnoticed: each is one error instead."""
    src = tmp_path / "in.csv"
    src.write_text(text, encoding="utf-8")
    rc = _suppress(src, tmp_path / "o.csv", "--k", "2", "--combination", "a", *args)
    err = capsys.readouterr().err
    assert rc == 2 and message in err, err
    assert not (tmp_path / "o.csv").exists()


def test_one_column_file_with_missing_and_suppressed_cells(tmp_path, capsys) -> None:
    """A suppressed cell of a one-column file is written as "" (a blank line would be lost)."""
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text('a\n""\n""\n""\nx\nx\ny\n', encoding="utf-8")
    assert _suppress(src, out, "--k", "2", "--combination", "a") == 0
    # y is suppressed; the fully suppressed class takes the first of the identical missing rows
    assert out.read_text().splitlines() == ["a", '""', "<missing>", "<missing>", "x", "x", '""']
    header, rows = _read_csv(out)
    assert rows == [[""], ["<missing>"], ["<missing>"], ["x"], ["x"], [""]]


def test_records_with_suppression_counts_rows(tmp_path, capsys) -> None:
    header = ["a", "b", "c"]
    rows = [["x", "1", "p"]] * 4 + [["x", "2", "p"]] * 3 + [["y", "1", "q"], ["y", "2", "q"]]
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    _write_csv(src, header, rows)
    assert _suppress(src, out, "--k", "3", "--combination", "a,b", "--combination", "c") == 0
    summary = json.loads(capsys.readouterr().out)
    got = _read_csv(out)[1]
    assert summary["records_with_suppression"] == sum(any(v == "" for v in r) for r in got) > 0
