"""Counting over the per-annotation outcome table: the paper's worked examples (Scaiano
et al. 2016)."""

from __future__ import annotations

import pandas as pd
import pytest

from dbt_deid.text_risk import (
    all_or_nothing_recall,
    annotation_outcomes,
    direct_counts,
    direct_leak_probability,
    direct_measures,
    document_type_counts,
    masking_recall,
    micro_recall,
    quasi_counts,
    quasi_measures,
    validate_inputs,
)


def _outcomes(rows: list[tuple[str, str, str, bool]], value: str = "v") -> pd.DataFrame:
    """(doc_id, type, kind, caught) rows, one token each, caught_typed = caught."""
    return pd.DataFrame([
        {"doc_id": d, "annotation_id": f"a{i}", "type": t, "kind": k, "value": f"{value}{i}",
         "tokens": 1, "tokens_masked": int(c), "caught": c, "caught_typed": c}
        for i, (d, t, k, c) in enumerate(rows)
    ])


def _section_231() -> pd.DataFrame:
    """100 documents, 250 last names: 230 caught in 80 documents, 1 missed in each of 20."""
    rows = []
    for d in range(80):
        for _ in range(3 if d < 70 else 2):  # 70 * 3 + 10 * 2 = 230
            rows.append((f"d{d}", "LAST_NAME", "direct", True))
    for d in range(80, 100):
        rows.append((f"d{d}", "LAST_NAME", "direct", False))
    return _outcomes(rows)


def test_section_231_micro_vs_all_or_nothing() -> None:
    out = _section_231()
    assert len(out) == 250
    assert micro_recall(out) == pytest.approx(0.92)
    assert all_or_nothing_recall(out, types=["LAST_NAME"]) == pytest.approx(0.8)
    counts = direct_counts(out)
    assert counts.to_dict("records") == [{"type": "LAST_NAME", "s": 100, "s_caught": 80}]
    m = direct_measures(counts, n=100)
    assert m.loc[0, "w"] == 1.0 and m.loc[0, "r"] == pytest.approx(0.8)
    # equation 11: probability of re-identification 0.2, not 1 - 0.92 = 0.08
    assert direct_leak_probability(m["w"], m["r"]) == pytest.approx(0.2)


def test_section_232_pooled_recall_hides_last_names() -> None:
    rows = [(f"d{d}", "FIRST_NAME", "direct", d != 0) for d in range(1000)]
    rows += [(f"d{d}", "LAST_NAME", "direct", d < 2) for d in range(10)]
    out = _outcomes(rows)
    assert micro_recall(out) == pytest.approx(1001 / 1010)
    assert masking_recall(out) == pytest.approx(1001 / 1010)
    assert all_or_nothing_recall(out, types=["LAST_NAME"]) == pytest.approx(0.2)
    m = direct_measures(direct_counts(out), n=1000).set_index("type")
    assert m.loc["LAST_NAME", "w"] == pytest.approx(0.01)
    assert m.loc["LAST_NAME", "r"] == pytest.approx(0.2)
    assert m.loc["FIRST_NAME", "r"] == pytest.approx(0.999)
    # equation 11 by hand: 1 - (1 - 1 * 0.001) * (1 - 0.01 * 0.8)
    assert direct_leak_probability(m["w"], m["r"]) == pytest.approx(1 - 0.999 * 0.992)


def test_document_type_counts_and_pooled_all_or_nothing() -> None:
    out = _outcomes([
        ("d1", "NAME", "direct", True), ("d1", "NAME", "direct", True),
        ("d1", "ID", "direct", False), ("d2", "NAME", "direct", True),
        ("d2", "DATE", "quasi", False),
    ])
    per = document_type_counts(out)
    assert per[["doc_id", "type", "instances", "caught"]].values.tolist() == [
        ["d1", "ID", 1, 0], ["d1", "NAME", 2, 2], ["d2", "DATE", 1, 0], ["d2", "NAME", 1, 1],
    ]
    assert all_or_nothing_recall(out, kind="direct") == pytest.approx(0.5)  # d1 leaks its ID
    assert micro_recall(out, kind="direct") == pytest.approx(0.75)


def test_quasi_counts_m_and_n_q() -> None:
    # 4 documents; d1: DATE x (3 instances of one value), CITY x 1; d2: DATE two values; d3: none
    rows = [
        {"doc_id": "d1", "type": "DATE", "value": "2015-01-02", "caught": True},
        {"doc_id": "d1", "type": "DATE", "value": " 2015-01-02", "caught": True},
        {"doc_id": "d1", "type": "DATE", "value": "2015-01-02", "caught": False},
        {"doc_id": "d1", "type": "CITY", "value": "Ottawa", "caught": True},
        {"doc_id": "d2", "type": "DATE", "value": "2015-01-02", "caught": True},
        {"doc_id": "d2", "type": "DATE", "value": "2016-03-04", "caught": True},
        {"doc_id": "d3", "type": "NAME", "value": "X", "caught": True},
    ]
    out = pd.DataFrame(rows).assign(
        annotation_id=lambda f: [f"a{i}" for i in range(len(f))],
        kind=lambda f: ["direct" if t == "NAME" else "quasi" for t in f["type"]],
        tokens=1, tokens_masked=lambda f: f["caught"].astype(int), caught_typed=True,
    )
    counts = quasi_counts(out)
    assert counts.to_dict("records") == [{"instances": 6, "caught": 5, "values": 4, "s_q": 2}]
    q = quasi_measures(counts, n=4)
    assert q.r_q == pytest.approx(5 / 6)
    assert q.m == pytest.approx(6 / 4)
    assert q.n_q == pytest.approx(4 / 4)
    assert q.s_q == 2 and q.present


def test_no_quasi_identifiers_is_absent() -> None:
    q = quasi_measures(quasi_counts(_section_231()), n=100)
    assert not q.present and q.n_q == 0.0


def test_direct_measures_rejects_inconsistent_counts() -> None:
    from dbt_deid.errors import DataError

    bad = pd.DataFrame([{"type": "NAME", "s": 5, "s_caught": 6}])
    with pytest.raises(DataError, match="'NAME'"):
        direct_measures(bad, n=10)


def _table2_inputs(detections: list[tuple[int, int, str]]):
    text = "Seen at Thompson's Ohio Children's Hospital today."
    start = text.index("Thompson's")
    end = text.index(" today")
    docs = pd.DataFrame([{"doc_id": "d1", "text": text}])
    anns = pd.DataFrame([{"doc_id": "d1", "annotation_id": "a1", "type": "ORG",
                          "kind": "quasi", "value": "", "start": start, "end": end}])
    dets = pd.DataFrame(
        [{"doc_id": "d1", "start": s, "end": e, "detected_type": t} for s, e, t in detections],
        columns=["doc_id", "start", "end", "detected_type"],
    )
    types = {"ORG": "quasi", "NAME": "direct", "STATE": "quasi"}
    inp = validate_inputs(docs, anns, dets, types=types)
    return text, inp


def test_table2_masked_by_other_types_is_caught_but_not_typed() -> None:
    text = "Seen at Thompson's Ohio Children's Hospital today."
    t = text.index("Thompson's")
    o = text.index("Ohio")
    c = text.index("Children's")
    h_end = text.index(" today")
    _, inp = _table2_inputs([(t, t + 10, "NAME"), (o, o + 4, "STATE"), (c, h_end, "ORG")])
    out = annotation_outcomes(inp.documents, inp.annotations, inp.detections)
    row = out.iloc[0]
    assert row["value"] == "Thompson's Ohio Children's Hospital"  # empty value -> span text
    assert row["tokens"] == 6  # Thompson, s, Ohio, Children, s, Hospital
    assert row["tokens_masked"] == 6
    assert bool(row["caught"]) and not bool(row["caught_typed"])
    assert micro_recall(out) == 0.0 and masking_recall(out) == 1.0


def test_partial_detection_leaks() -> None:
    text = "Seen at Thompson's Ohio Children's Hospital today."
    c = text.index("Children's")
    _, inp = _table2_inputs([(c, text.index(" today"), "ORG")])
    out = annotation_outcomes(inp.documents, inp.annotations, inp.detections)
    assert out.loc[0, "tokens_masked"] == 3
    assert not out.loc[0, "caught"] and not out.loc[0, "caught_typed"]
    assert masking_recall(out) == pytest.approx(0.5)


def test_exact_same_type_detection_is_typed_catch() -> None:
    text = "Seen at Thompson's Ohio Children's Hospital today."
    _, inp = _table2_inputs([(0, len(text), "ORG")])
    out = annotation_outcomes(inp.documents, inp.annotations, inp.detections)
    assert bool(out.loc[0, "caught"]) and bool(out.loc[0, "caught_typed"])
