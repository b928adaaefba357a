"""Input frames of a text de-identification evaluation and their validation.

Three tables describe an evaluation corpus (Scaiano, El Emam et al. 2016, section 2.2):

* ``documents``: ``doc_id``, ``text``; one document = one patient (section 2.2.1).
* ``annotations`` (the gold standard): ``doc_id``, ``annotation_id``, ``type``, ``kind``
  (``direct`` or ``quasi``, section 2.2.4), ``value`` (the identifier value, used to count
  distinct quasi-identifier values ``n_q`` and instances per value ``m``; empty means the span's
  text), ``start``, ``end`` (character span, end exclusive).
* ``detections`` (the tool's output): ``doc_id``, ``start``, ``end``, ``detected_type``.

:func:`validate_inputs` checks them and returns clean copies (integer spans, string ids). Every
problem raises :class:`~dbt_deid.errors.DataError` naming the table, the column and the value.
Identifier *values* (annotation ``value`` or document text) are never put in messages or logs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from dbt_deid.errors import DataError

DOCUMENT_COLUMNS: tuple[str, ...] = ("doc_id", "text")
ANNOTATION_COLUMNS: tuple[str, ...] = (
    "doc_id", "annotation_id", "type", "kind", "value", "start", "end",
)
DETECTION_COLUMNS: tuple[str, ...] = ("doc_id", "start", "end", "detected_type")
KINDS: tuple[str, ...] = ("direct", "quasi")


@dataclass(frozen=True)
class TextInputs:
    """Validated input frames plus the annotation type registry (type -> kind)."""

    documents: pd.DataFrame
    annotations: pd.DataFrame
    detections: pd.DataFrame
    types: dict[str, str]

    @property
    def n_documents(self) -> int:
        """``n`` of Table 4: the number of documents."""
        return int(len(self.documents))


def _require_columns(frame: pd.DataFrame, table: str, columns: tuple[str, ...]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(
            f"table {table!r} lacks column(s) {missing}; it has {list(frame.columns)}"
        )


def _ids(frame: pd.DataFrame, table: str, column: str) -> pd.Series:
    """String ids; a missing or empty id raises."""
    col = frame[column]
    bad = col.isna() | (col.astype(str).str.strip() == "")
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise DataError(f"table {table!r} column {column!r}: empty value in row {row}")
    return col.astype(str).str.strip()


def _positions(frame: pd.DataFrame, table: str, column: str) -> pd.Series:
    """Non-negative integer character offsets (CSV strings accepted)."""
    col = frame[column]
    num = pd.to_numeric(col, errors="coerce")
    bad = num.isna() | (num != num.round())
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise DataError(
            f"table {table!r} column {column!r}: value {col.iloc[row]!r} in row {row} is not an"
            " integer character offset"
        )
    out = num.astype("int64")
    if (out < 0).any():
        row = int((out < 0).to_numpy().nonzero()[0][0])
        raise DataError(
            f"table {table!r} column {column!r}: value {int(out.iloc[row])} in row {row} is"
            " negative"
        )
    return out


def _check_spans(frame: pd.DataFrame, table: str, lengths: pd.Series, key: str) -> None:
    """``start < end <= len(text)`` for every row (``frame`` has clean ids and offsets)."""
    if len(frame) == 0:
        return
    unknown = ~frame["doc_id"].isin(lengths.index)
    if unknown.any():
        value = frame["doc_id"][unknown].iloc[0]
        raise DataError(
            f"table {table!r} column 'doc_id': value {value!r} is not in table 'documents'"
        )
    empty = frame["start"] >= frame["end"]
    if empty.any():
        r = frame[empty].iloc[0]
        raise DataError(
            f"table {table!r} column 'end': value {int(r['end'])} is not greater than start"
            f" {int(r['start'])} ({key} {r[key]!r} of document {r['doc_id']!r})"
        )
    doc_len = frame["doc_id"].map(lengths).astype("int64")
    beyond = frame["end"] > doc_len
    if beyond.any():
        i = int(beyond.to_numpy().nonzero()[0][0])
        r = frame.iloc[i]
        raise DataError(
            f"table {table!r} column 'end': value {int(r['end'])} exceeds the length"
            f" {int(doc_len.iloc[i])} of document {r['doc_id']!r} ({key} {r[key]!r})"
        )


def _type_registry(
    annotations: pd.DataFrame, types: Mapping[str, str] | None
) -> dict[str, str]:
    """type -> kind from the annotations, checked against a declared registry if given."""
    registry: dict[str, str] = {}
    if types is not None:
        for t, k in types.items():
            if k not in KINDS:
                raise DataError(
                    f"type registry: kind {k!r} of type {t!r} is not one of {list(KINDS)}"
                )
            registry[str(t)] = k
    for t, k in annotations[["type", "kind"]].drop_duplicates().itertuples(index=False):
        if types is not None and t not in registry:
            raise DataError(
                f"table 'annotations' column 'type': value {t!r} is not a declared type"
                f" {sorted(registry)}"
            )
        if registry.setdefault(t, k) != k:
            raise DataError(
                f"table 'annotations' column 'kind': type {t!r} is tagged both"
                f" {registry[t]!r} and {k!r}"
            )
    return registry


def validate_inputs(
    documents: pd.DataFrame,
    annotations: pd.DataFrame,
    detections: pd.DataFrame,
    *,
    types: Mapping[str, str] | None = None,
    allow_unannotated: bool = False,
) -> TextInputs:
    """Validate the three input tables and return clean copies.

    Checks: required columns; non-empty unique ``documents.doc_id``; unique
    ``(doc_id, annotation_id)``; ``kind`` in ``{direct, quasi}`` and one kind per type; integer
    spans with ``0 <= start < end <= len(text)``; every ``doc_id`` known; every
    ``detected_type`` a known annotation type (those annotated, plus ``types`` if given, which
    then must declare every annotated type); every document has at least one gold annotation
    unless ``allow_unannotated`` (an unannotated document still counts in ``n``, Table 4).
    An empty ``value`` is filled with the span's text.

    Raises:
        DataError: naming the table, column and offending value.
    """
    _require_columns(documents, "documents", DOCUMENT_COLUMNS)
    _require_columns(annotations, "annotations", ANNOTATION_COLUMNS)
    _require_columns(detections, "detections", DETECTION_COLUMNS)
    if len(documents) == 0:
        raise DataError("table 'documents' has no rows")

    docs = pd.DataFrame({"doc_id": _ids(documents, "documents", "doc_id")})
    docs["text"] = documents["text"].fillna("").astype(str).to_numpy()
    dup = docs["doc_id"].duplicated()
    if dup.any():
        raise DataError(
            f"table 'documents' column 'doc_id': value {docs['doc_id'][dup].iloc[0]!r} repeats"
        )
    docs = docs.reset_index(drop=True)
    lengths = pd.Series(docs["text"].str.len().to_numpy(), index=docs["doc_id"].to_numpy())

    ann = pd.DataFrame({
        "doc_id": _ids(annotations, "annotations", "doc_id"),
        "annotation_id": _ids(annotations, "annotations", "annotation_id"),
        "type": _ids(annotations, "annotations", "type"),
        "kind": _ids(annotations, "annotations", "kind").str.lower(),
        "value": annotations["value"].fillna("").astype(str),
        "start": _positions(annotations, "annotations", "start"),
        "end": _positions(annotations, "annotations", "end"),
    }).reset_index(drop=True)
    bad_kind = ~ann["kind"].isin(KINDS)
    if bad_kind.any():
        raise DataError(
            f"table 'annotations' column 'kind': value {ann['kind'][bad_kind].iloc[0]!r} is not"
            f" one of {list(KINDS)}"
        )
    dup = ann.duplicated(["doc_id", "annotation_id"])
    if dup.any():
        r = ann[dup].iloc[0]
        raise DataError(
            f"table 'annotations' column 'annotation_id': value {r['annotation_id']!r} repeats"
            f" in document {r['doc_id']!r}"
        )
    _check_spans(ann, "annotations", lengths, "annotation_id")
    registry = _type_registry(ann, types)
    if not allow_unannotated:
        bare = ~docs["doc_id"].isin(ann["doc_id"])
        if bare.any():
            raise DataError(
                f"table 'documents' column 'doc_id': value {docs['doc_id'][bare].iloc[0]!r} has"
                f" no rows in table 'annotations' ({int(bare.sum())} such document(s));"
                " annotate it or allow unannotated documents"
            )
    text_of = dict(zip(docs["doc_id"], docs["text"], strict=True))
    blank = ann["value"].str.strip() == ""
    if blank.any():
        ann.loc[blank, "value"] = [
            text_of[d][s:e]
            for d, s, e in ann.loc[blank, ["doc_id", "start", "end"]].itertuples(index=False)
        ]

    det = pd.DataFrame({
        "doc_id": _ids(detections, "detections", "doc_id"),
        "start": _positions(detections, "detections", "start"),
        "end": _positions(detections, "detections", "end"),
        "detected_type": _ids(detections, "detections", "detected_type"),
    }).reset_index(drop=True)
    det["detection_id"] = pd.RangeIndex(len(det)).astype(str)
    unknown = ~det["detected_type"].isin(list(registry))
    if unknown.any():
        raise DataError(
            f"table 'detections' column 'detected_type': value"
            f" {det['detected_type'][unknown].iloc[0]!r} is not a known type {sorted(registry)}"
        )
    _check_spans(det, "detections", lengths, "detection_id")
    return TextInputs(docs, ann, det.drop(columns="detection_id"), registry)
