"""A seeded synthetic annotated corpus and a rule-based detector with tunable recall.

:func:`demo_corpus` writes short clinical-style notes (one per synthetic patient, section 2.2.1)
with gold annotations of direct identifiers (``FIRST_NAME``, ``LAST_NAME``, ``MRN``, ``PHONE``)
and quasi-identifiers (``DATE``, ``AGE``, ``CITY``, ``ZIP``, ``ORGANIZATION``). Values repeat
inside a note (names, dates), so all-or-nothing recall and ``m`` differ from the naive ones.

:func:`rule_detector` finds identifiers with regular expressions and dictionaries, then drops each
detection with a per-type miss probability and swaps first/last-name labels with a confusion
probability (masking recall ignores the label, conventional recall does not). All synthetic;
no real person is described.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError

DEMO_TYPES: dict[str, str] = {
    "FIRST_NAME": "direct", "LAST_NAME": "direct", "MRN": "direct", "PHONE": "direct",
    "DATE": "quasi", "AGE": "quasi", "CITY": "quasi", "ZIP": "quasi", "ORGANIZATION": "quasi",
}

FIRST_NAMES = (
    "Aubrey", "Beatrix", "Cedric", "Delphine", "Evander", "Florian", "Gwendolyn", "Horatio",
    "Isolde", "Jasper", "Katarina", "Leopold", "Marisol", "Nikolai", "Ophelia", "Percival",
    "Quentin", "Rosalind", "Sebastian", "Theodora", "Ulrich", "Valentina", "Winifred", "Xavier",
    "Yolanda", "Zachariah",
)
LAST_NAMES = (
    "Abernathy", "Blackwood", "Castellano", "Dunmore", "Everhart", "Fairweather", "Galloway",
    "Hargreaves", "Iverson", "Jankowski", "Kingsley", "Lindqvist", "Montgomery", "Northcott",
    "Okonkwo", "Pemberton", "Quimby", "Rutherford", "Sandoval", "Thistlewood", "Underhill",
    "Vasquez", "Whitcombe", "Yarborough", "Zielinski",
)
CITIES = (
    "Ashbury", "Brookhaven", "Cedarville", "Dunwich", "Elmstead", "Fernwood", "Glenrock",
    "Harborview", "Ironwood", "Juniper Falls", "Kestrel Bay", "Larchmont",
)
ORGANIZATIONS = (
    "Mercy Valley Hospital", "Northgate Medical Centre", "Saint Brigid Clinic",
    "Riverside Health Institute", "Lakeshore Children's Hospital", "Summit Family Practice",
)

_RULES: dict[str, re.Pattern[str]] = {
    "FIRST_NAME": re.compile(r"\b(?:" + "|".join(FIRST_NAMES) + r")\b"),
    "LAST_NAME": re.compile(r"\b(?:" + "|".join(LAST_NAMES) + r")\b"),
    "MRN": re.compile(r"\b[A-Z]{2}\d{6}\b"),
    "PHONE": re.compile(r"\(\d{3}\) \d{3}-\d{4}"),
    "DATE": re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),
    "AGE": re.compile(r"\b\d{1,3}(?=-year-old)"),
    "CITY": re.compile(r"\b(?:" + "|".join(CITIES) + r")\b"),
    "ZIP": re.compile(r"\b\d{5}\b"),
    "ORGANIZATION": re.compile("|".join(re.escape(o) for o in ORGANIZATIONS)),
}

_FILLER = (
    "Vital signs were stable.", "No acute distress noted.", "Medication list reviewed.",
    "Labs pending at the time of this note.", "Plan discussed with the care team.",
    "Denies chest pain or shortness of breath.", "Tolerating a regular diet.",
)


class _Note:
    """Builds a note's text and records the gold spans as pieces are appended."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.spans: list[tuple[str, str, int, int]] = []

    def text(self, s: str) -> None:
        self.parts.append(s)
        self.length += len(s)

    def ident(self, type_: str, value: str) -> None:
        self.spans.append((type_, value, self.length, self.length + len(value)))
        self.text(value)


def _date(rng: np.random.Generator) -> str:
    return f"{int(rng.integers(2008, 2016))}-{int(rng.integers(1, 13)):02d}-" \
        f"{int(rng.integers(1, 29)):02d}"


def demo_corpus(n_docs: int = 300, seed: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(documents, annotations)`` of ``n_docs`` synthetic notes (seeded)."""
    if n_docs < 1:
        raise ConfigError(f"number of demo documents must be at least 1, got {n_docs}")
    rng = np.random.default_rng(seed)
    docs: list[dict[str, str]] = []
    anns: list[dict[str, object]] = []
    for i in range(n_docs):
        doc_id = f"note{i + 1:04d}"
        first = str(rng.choice(FIRST_NAMES))
        last = str(rng.choice(LAST_NAMES))
        city = str(rng.choice(CITIES))
        org = str(rng.choice(ORGANIZATIONS))
        mrn = f"{chr(65 + int(rng.integers(26)))}{chr(65 + int(rng.integers(26)))}" \
            f"{int(rng.integers(100000, 1000000))}"
        admit, discharge = _date(rng), _date(rng)
        note = _Note()
        note.text("Patient ")
        note.ident("FIRST_NAME", first)
        note.text(" ")
        note.ident("LAST_NAME", last)
        note.text(" (MRN ")
        note.ident("MRN", mrn)
        note.text(") is a ")
        note.ident("AGE", str(int(rng.integers(18, 95))))
        note.text("-year-old resident of ")
        note.ident("CITY", city)
        if rng.random() < 0.7:
            note.text(", ")
            note.ident("ZIP", f"{int(rng.integers(10000, 100000))}")
        note.text(". Admitted to ")
        note.ident("ORGANIZATION", org)
        note.text(" on ")
        note.ident("DATE", admit)
        note.text(". ")
        for _ in range(int(rng.integers(1, 3))):
            note.text(str(rng.choice(_FILLER)) + " ")
        if rng.random() < 0.6:
            note.text("Mx. ")
            note.ident("LAST_NAME", last)
            note.text(" reports improvement since ")
            note.ident("DATE", admit)
            note.text(". ")
        if rng.random() < 0.5:
            note.text("Contact phone ")
            note.ident("PHONE", f"({int(rng.integers(200, 1000))}) "
                                f"{int(rng.integers(200, 1000))}-{int(rng.integers(0, 10000)):04d}")
            note.text(". ")
        note.text("Discharged on ")
        note.ident("DATE", discharge)
        note.text("; ")
        note.ident("FIRST_NAME", first)
        note.text(" will follow up at ")
        note.ident("ORGANIZATION", org)
        note.text(".")
        text = "".join(note.parts)
        docs.append({"doc_id": doc_id, "text": text})
        for j, (t, v, s, e) in enumerate(note.spans):
            anns.append({"doc_id": doc_id, "annotation_id": f"{doc_id}-a{j + 1:02d}", "type": t,
                         "kind": DEMO_TYPES[t], "value": v, "start": s, "end": e})
    return pd.DataFrame(docs), pd.DataFrame(anns)


def _miss_rates(miss_rate: float | Mapping[str, float]) -> dict[str, float]:
    if isinstance(miss_rate, Mapping):
        unknown = sorted(set(miss_rate) - set(DEMO_TYPES))
        if unknown:
            raise ConfigError(f"miss rate given for unknown type(s) {unknown}")
        rates = {t: float(miss_rate.get(t, 0.0)) for t in DEMO_TYPES}
    else:
        rates = dict.fromkeys(DEMO_TYPES, float(miss_rate))
    for t, p in rates.items():
        if not 0.0 <= p <= 1.0:
            raise ConfigError(f"miss rate of {t} must be in [0, 1], got {p}")
    return rates


def rule_detector(
    documents: pd.DataFrame,
    *,
    miss_rate: float | Mapping[str, float] = 0.05,
    confusion: float = 0.05,
    seed: int = 1,
) -> pd.DataFrame:
    """Detections ``doc_id, start, end, detected_type`` of the demo rules (seeded).

    Each rule match is dropped with probability ``miss_rate`` (one rate, or per type; types not
    given have rate 0); a kept first/last name is labelled as the other name type with
    probability ``confusion``. A ZIP inside a longer digit run is not matched (word boundaries).
    """
    rates = _miss_rates(miss_rate)
    if not 0.0 <= confusion <= 1.0:
        raise ConfigError(f"confusion must be in [0, 1], got {confusion}")
    rng = np.random.default_rng(seed)
    swap = {"FIRST_NAME": "LAST_NAME", "LAST_NAME": "FIRST_NAME"}
    rows: list[tuple[str, int, int, str]] = []
    for doc_id, text in documents[["doc_id", "text"]].itertuples(index=False):
        for type_, pattern in _RULES.items():
            for m in pattern.finditer(text):
                if rng.random() < rates[type_]:
                    continue
                label = type_
                if type_ in swap and rng.random() < confusion:
                    label = swap[type_]
                rows.append((doc_id, m.start(), m.end(), label))
    return pd.DataFrame(rows, columns=["doc_id", "start", "end", "detected_type"])
