"""Validation of the documents / annotations / detections frames (Scaiano et al. 2016 inputs)."""

from __future__ import annotations

import pandas as pd
import pytest

from dbt_deid.errors import DataError
from dbt_deid.text_risk import validate_inputs

TEXT = "Jane Roe was seen on 2015-03-02 in Ottawa."


def _frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    docs = pd.DataFrame([{"doc_id": "d1", "text": TEXT}, {"doc_id": "d2", "text": "Roe again."}])
    anns = pd.DataFrame([
        {"doc_id": "d1", "annotation_id": "a1", "type": "NAME", "kind": "direct",
         "value": "Jane Roe", "start": "0", "end": "8"},
        {"doc_id": "d1", "annotation_id": "a2", "type": "DATE", "kind": "quasi",
         "value": "2015-03-02", "start": "21", "end": "31"},
        {"doc_id": "d2", "annotation_id": "a1", "type": "NAME", "kind": "Direct",
         "value": "", "start": "0", "end": "3"},
    ])
    dets = pd.DataFrame([{"doc_id": "d1", "start": "0", "end": "8", "detected_type": "NAME"}])
    return docs, anns, dets


def test_valid_inputs_are_cleaned() -> None:
    inp = validate_inputs(*_frames())
    assert inp.n_documents == 2
    assert inp.types == {"NAME": "direct", "DATE": "quasi"}
    assert inp.annotations["start"].dtype == "int64"
    assert inp.annotations.loc[2, "kind"] == "direct"
    assert inp.annotations.loc[2, "value"] == "Roe"  # empty value -> span text


@pytest.mark.parametrize(
    ("table", "column", "value", "pattern"),
    [
        ("annotations", "end", "0", r"'annotations' column 'end': value 0 is not greater"),
        ("annotations", "end", "99", r"'annotations' column 'end': value 99 exceeds the length"),
        ("annotations", "start", "x", r"'annotations' column 'start': value 'x'"),
        ("annotations", "start", "-1", r"'annotations' column 'start': value -1 .* negative"),
        ("annotations", "kind", "indirect", r"'annotations' column 'kind': value 'indirect'"),
        ("annotations", "doc_id", "d9", r"'annotations' column 'doc_id': value 'd9' is not in"),
        ("detections", "end", "500", r"'detections' column 'end': value 500 exceeds"),
        ("detections", "detected_type", "EMAIL",
         r"'detections' column 'detected_type': value 'EMAIL' is not a known type"),
    ],
)
def test_bad_values_name_table_column_value(
    table: str, column: str, value: str, pattern: str
) -> None:
    docs, anns, dets = _frames()
    frame = anns if table == "annotations" else dets
    frame.loc[0, column] = value
    with pytest.raises(DataError, match=pattern):
        validate_inputs(docs, anns, dets)


def test_document_without_annotations() -> None:
    docs, anns, dets = _frames()
    anns = anns[anns["doc_id"] != "d2"]
    with pytest.raises(DataError, match=r"'documents' column 'doc_id': value 'd2' has no rows"):
        validate_inputs(docs, anns, dets)
    assert validate_inputs(docs, anns, dets, allow_unannotated=True).n_documents == 2


def test_type_registry_checks() -> None:
    docs, anns, dets = _frames()
    with pytest.raises(DataError, match=r"'annotations' column 'type': value 'DATE'"):
        validate_inputs(docs, anns, dets, types={"NAME": "direct"})
    inp = validate_inputs(docs, anns, dets.assign(detected_type="EMAIL"),
                          types={"NAME": "direct", "DATE": "quasi", "EMAIL": "direct"})
    assert inp.types["EMAIL"] == "direct"
    anns.loc[1, "type"] = "NAME"  # NAME tagged both direct and quasi
    with pytest.raises(DataError, match=r"type 'NAME' is tagged both"):
        validate_inputs(docs, anns, dets)


def test_structural_errors() -> None:
    docs, anns, dets = _frames()
    with pytest.raises(DataError, match=r"'detections' lacks column\(s\) \['detected_type'\]"):
        validate_inputs(docs, anns, dets.drop(columns="detected_type"))
    with pytest.raises(DataError, match=r"'documents' column 'doc_id': value 'd1' repeats"):
        validate_inputs(pd.concat([docs, docs.iloc[:1]]), anns, dets)
    dup = pd.concat([anns, anns.iloc[:1]])
    with pytest.raises(DataError, match=r"'annotation_id': value 'a1' repeats in document 'd1'"):
        validate_inputs(docs, dup, dets)
    with pytest.raises(DataError, match=r"'documents' has no rows"):
        validate_inputs(docs.iloc[:0], anns, dets)


def test_no_detections_is_valid() -> None:
    docs, anns, dets = _frames()
    assert len(validate_inputs(docs, anns, dets.iloc[:0]).detections) == 0
