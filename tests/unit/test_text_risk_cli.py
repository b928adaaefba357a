"""CLI ``text-risk`` / ``text-demo`` end to end and the demo corpus gates (Scaiano et al. 2016)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from dbt_deid.text_risk import Settings, assess_corpus
from dbt_deid.tools.cli import main
from dbt_deid.tools.synthetic.text import demo_corpus, rule_detector

FAST = ["--iterations", "5000"]


def _demo(tmp_path: Path, miss: str, capsys: pytest.CaptureFixture[str]) -> Path:
    out = tmp_path / f"demo_{miss}"
    assert main(["text-demo", "--out", str(out), "--docs", "150", "--miss-rate", miss,
                 "--seed", "3"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["documents"] == 150
    return out


def _risk_args(d: Path) -> list[str]:
    return ["text-risk", "--documents", str(d / "documents.csv"),
            "--annotations", str(d / "annotations.csv"),
            "--detections", str(d / "detections.csv")]


def test_demo_corpus_is_consistent_and_seeded() -> None:
    docs, anns = demo_corpus(20, seed=5)
    for d, s, e, v in anns[["doc_id", "start", "end", "value"]].itertuples(index=False):
        assert docs.set_index("doc_id").loc[d, "text"][s:e] == v
    docs2, anns2 = demo_corpus(20, seed=5)
    pd.testing.assert_frame_equal(anns, anns2)
    det = rule_detector(docs, miss_rate=0.0, confusion=0.0)
    assert len(det) == len(anns)  # the rules find every gold span, nothing else
    pd.testing.assert_frame_equal(rule_detector(docs, miss_rate=0.3, seed=2),
                                  rule_detector(docs, miss_rate=0.3, seed=2))


def test_demo_passes_at_low_and_fails_at_high_miss_rate() -> None:
    docs, anns = demo_corpus(300, seed=1)
    st = Settings(iterations=20_000, seed=1)
    low = assess_corpus(docs, anns, rule_detector(docs, miss_rate=0.002, seed=1), st)
    assert low.direct_gate.passed and low.quasi_gate.passed and low.passed
    high = assess_corpus(docs, anns, rule_detector(docs, miss_rate=0.1, seed=1), st)
    assert not high.direct_gate.passed and not high.passed
    very_high = assess_corpus(docs, anns, rule_detector(docs, miss_rate=0.4, seed=1), st)
    assert not very_high.quasi_gate.passed  # r_q < 0.7: no HIPS factor
    # masking recall ignores name-label confusion, conventional recall does not
    assert low.recalls["masking_direct"] > low.recalls["micro_direct"]


def test_cli_pass_and_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _demo(tmp_path, "0", capsys)
    assert main(_risk_args(good) + FAST + ["--seed", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["verdicts"]["passed"] is True
    assert report["documents"] == 150
    assert report["intervals"]["direct"]["upper"] == 0.0
    assert report["settings"]["tau"] == 0.05
    bad = _demo(tmp_path, "0.2", capsys)
    args = _risk_args(bad) + FAST + ["--cell-size", "5", "--attempt", "0.1,0.2,0.4", "--h", "0.1"]
    assert main(args) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["verdicts"]["direct"]["passed"] is False
    assert report["settings"]["tau"] == pytest.approx(0.2)
    assert report["settings"]["attempt"] == [0.1, 0.2, 0.4]
    # same seed, same output
    assert main(args) == 1
    assert json.loads(capsys.readouterr().out) == report


def test_cli_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = _demo(tmp_path, "0", capsys)
    anns = pd.read_csv(d / "annotations.csv", dtype=str, keep_default_na=False)
    anns.loc[0, "end"] = "100000"
    anns.to_csv(d / "annotations.csv", index=False)
    assert main(_risk_args(d) + FAST) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: table 'annotations' column 'end'")
    assert main(_risk_args(d) + ["--attempt", "0.5,0.1"]) == 2
    assert "--attempt" in capsys.readouterr().err
    assert main(_risk_args(d) + ["--tau", "0.1", "--cell-size", "5"]) == 2
    assert main(["text-risk", "--documents", str(tmp_path / "nope.csv"),
                 "--annotations", "x", "--detections", "y"]) == 2
    assert main(["text-demo", "--out", str(tmp_path / "x"), "--type-miss-rate", "FOO=1"]) == 2
