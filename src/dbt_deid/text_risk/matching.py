"""Comparing gold annotations with detections: the per-annotation "caught or not" table.

Two notions of a caught annotation (Scaiano, El Emam et al. 2016):

* *masking* (section 2.3.2, token-level evaluation): every token of the annotation is masked by
  some detection, whatever type the tool gave it. A token is a maximal run of letters and digits
  inside the annotation span (punctuation identifies nobody); it is masked when a single detection
  covers it (``d.start <= token.start and d.end >= token.end``). This is the notion used for every
  risk measure (equations 10-22): what matters is whether the value leaked.
* *typed* (conventional, equation 1): a detection *of the same type* covers the whole annotation
  span. Used only for the conventional micro-average recall baseline.

Both are joins that map onto SQL (see :func:`annotation_tokens` and :func:`annotation_outcomes`).
"""

from __future__ import annotations

import re

import pandas as pd

TOKEN_PATTERN = re.compile(r"[^\W_]+")

TOKEN_COLUMNS: tuple[str, ...] = ("doc_id", "annotation_id", "token_start", "token_end")
OUTCOME_COLUMNS: tuple[str, ...] = (
    "doc_id", "annotation_id", "type", "kind", "value", "tokens", "tokens_masked", "caught",
    "caught_typed",
)


def annotation_tokens(documents: pd.DataFrame, annotations: pd.DataFrame) -> pd.DataFrame:
    """One row per token of every annotation: ``doc_id, annotation_id, token_start, token_end``.

    Tokens are runs of letters/digits of ``text[start:end]``; an annotation with none (only
    punctuation) is one token spanning the annotation. Offsets are document offsets.
    """
    text_of = dict(zip(documents["doc_id"], documents["text"], strict=True))
    rows: list[tuple[str, str, int, int]] = []
    for doc, ann, start, end in annotations[
        ["doc_id", "annotation_id", "start", "end"]
    ].itertuples(index=False):
        found = False
        for m in TOKEN_PATTERN.finditer(text_of[doc], int(start), int(end)):
            rows.append((doc, ann, m.start(), m.end()))
            found = True
        if not found:
            rows.append((doc, ann, int(start), int(end)))
    return pd.DataFrame(rows, columns=list(TOKEN_COLUMNS)).astype(
        {"token_start": "int64", "token_end": "int64"}
    )


def token_outcomes(tokens: pd.DataFrame, detections: pd.DataFrame) -> pd.DataFrame:
    """``tokens`` plus a boolean ``masked``: some detection (any type) covers the token.

    SQL: ``exists (select 1 from detections d where d.doc_id = t.doc_id and d.start <=
    t.token_start and d."end" >= t.token_end)``.
    """
    pairs = tokens.merge(detections[["doc_id", "start", "end"]], on="doc_id", how="inner")
    covered = pairs[(pairs["start"] <= pairs["token_start"]) & (pairs["end"] >= pairs["token_end"])]
    keys = ["doc_id", "annotation_id", "token_start", "token_end"]
    hit = covered[keys].drop_duplicates().assign(masked=True)
    out = tokens.merge(hit, on=keys, how="left")
    out["masked"] = out["masked"].fillna(False).astype(bool)
    return out


def annotation_outcomes(
    documents: pd.DataFrame, annotations: pd.DataFrame, detections: pd.DataFrame
) -> pd.DataFrame:
    """The per-annotation outcome table every counting function takes.

    Columns: ``doc_id, annotation_id, type, kind, value, tokens`` (token count),
    ``tokens_masked``, ``caught`` (all tokens masked: masking recall, section 2.3.2) and
    ``caught_typed`` (a same-type detection covers the span: conventional recall, equation 1).

    SQL shape: ``group by doc_id, annotation_id`` over :func:`token_outcomes`
    (``count(*) as tokens, sum(masked::int) as tokens_masked, bool_and(masked) as caught``) left
    joined to an ``exists`` on same-type covering detections.
    """
    tok = token_outcomes(annotation_tokens(documents, annotations), detections)
    per_ann = tok.groupby(["doc_id", "annotation_id"], sort=False).agg(
        tokens=("masked", "size"), tokens_masked=("masked", "sum")
    ).reset_index()
    out = annotations[["doc_id", "annotation_id", "type", "kind", "value", "start", "end"]].merge(
        per_ann, on=["doc_id", "annotation_id"], how="left"
    )
    out["tokens"] = out["tokens"].astype("int64")
    out["tokens_masked"] = out["tokens_masked"].astype("int64")
    out["caught"] = out["tokens_masked"] == out["tokens"]
    pairs = out[["doc_id", "annotation_id", "type", "start", "end"]].merge(
        detections.rename(columns={"start": "d_start", "end": "d_end"}),
        left_on=["doc_id", "type"], right_on=["doc_id", "detected_type"], how="inner",
    )
    typed = pairs[(pairs["d_start"] <= pairs["start"]) & (pairs["d_end"] >= pairs["end"])]
    typed_keys = set(zip(typed["doc_id"], typed["annotation_id"], strict=True))
    out["caught_typed"] = [
        k in typed_keys for k in zip(out["doc_id"], out["annotation_id"], strict=True)
    ]
    return out[list(OUTCOME_COLUMNS)].reset_index(drop=True)
