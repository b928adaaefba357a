"""Integer encoding of the two tables at every generalization level, done once per data set.

Patients become rows ``0..N-1``; claims are sorted by patient then time (``year``, ``dsfc``,
``claim_id``) so that each patient's claims are the contiguous rows
``offsets[i]:offsets[i + 1]`` in time order (the order the "ordered pair" sensitivity analysis
of El Emam et al. 2012 uses). Every quasi-identifier gets integer codes at each level of its
hierarchy (:func:`dbt_deid.longitudinal.hierarchies.level_codes`); QIs without a hierarchy have one
level (El Emam et al. 2012: "For the remaining quasi-identifiers there was only one level of
predetermined generalization"). A lattice *dimension* groups the columns generalized together
(DaysInHospital Y2 and Y3 share one level, Table 4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.longitudinal.hierarchies import check_hierarchy, height, level_codes
from dbt_deid.longitudinal.preprocess import DEFAULT_CLAIM_QIS

DEFAULT_DEMOGRAPHIC_QIS = ("age", "sex", "dih_y2", "dih_y3")
DEFAULT_DIMENSIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("age", ("age",)),
    ("days_in_hospital", ("dih_y2", "dih_y3")),
    ("los", ("los",)),
    ("dsfc", ("dsfc",)),
)


@dataclass(frozen=True)
class LongitudinalSpec:
    """Which columns are quasi-identifiers and how they form the lattice.

    ``dimensions``: (lattice dimension name, columns it generalizes), in lattice order; every
    column of a dimension must have a hierarchy with the same height.
    """

    demographic_qis: tuple[str, ...] = DEFAULT_DEMOGRAPHIC_QIS
    claim_qis: tuple[str, ...] = DEFAULT_CLAIM_QIS
    dimensions: tuple[tuple[str, tuple[str, ...]], ...] = DEFAULT_DIMENSIONS
    member: str = "member_id"
    time_order: tuple[str, ...] = ("year", "dsfc", "claim_id")

    @property
    def dimension_names(self) -> tuple[str, ...]:
        return tuple(d for d, _ in self.dimensions)

    def levels(self, node: Sequence[int]) -> dict[str, int]:
        """Level of every QI column at ``node`` (0 for columns outside the lattice)."""
        if len(node) != len(self.dimensions):
            raise ConfigError(
                f"node {tuple(node)} has {len(node)} levels; the lattice has"
                f" {len(self.dimensions)} dimensions {list(self.dimension_names)}"
            )
        out = dict.fromkeys((*self.demographic_qis, *self.claim_qis), 0)
        for (_, cols), lvl in zip(self.dimensions, node, strict=True):
            for c in cols:
                if c in out:
                    out[c] = int(lvl)
        return out


@dataclass
class EncodedData:
    """Both tables as integer codes per level; see the module docstring."""

    spec: LongitudinalSpec
    members: pd.Index
    demo_codes: dict[str, list[np.ndarray]]
    demo_cards: dict[str, list[int]]
    claim_patient: np.ndarray
    offsets: np.ndarray
    claim_codes: dict[str, list[np.ndarray]]
    claim_cards: dict[str, list[int]]
    claim_ids: np.ndarray
    heights: dict[str, int] = field(default_factory=dict)

    @property
    def n_patients(self) -> int:
        return len(self.members)

    @property
    def n_claims(self) -> int:
        return len(self.claim_patient)

    @property
    def claims_per_patient(self) -> np.ndarray:
        return np.diff(self.offsets)

    def dimension_heights(self) -> tuple[int, ...]:
        return tuple(self.heights[cols[0]] for _, cols in self.spec.dimensions)

    def subset_claims(self, keep: np.ndarray) -> EncodedData:
        """The same patients and codes with only the claims where ``keep`` (boolean, in this
        object's claim order) is true, e.g. D2 = truncated claims from D1."""
        keep = np.asarray(keep, dtype=bool)
        if keep.shape != (self.n_claims,):
            raise DataError(f"claim mask has shape {keep.shape}, expected ({self.n_claims},)")
        pat = self.claim_patient[keep]
        offsets = np.r_[0, np.cumsum(np.bincount(pat, minlength=self.n_patients))]
        return replace(
            self,
            claim_patient=pat,
            offsets=offsets.astype(np.int64),
            claim_codes={q: [c[keep] for c in cs] for q, cs in self.claim_codes.items()},
            claim_ids=self.claim_ids[keep],
        )


def _single_level(name: str, values: pd.Series) -> tuple[list[np.ndarray], list[int]]:
    codes, uniques = pd.factorize(values, sort=True)
    missing = codes < 0
    codes = codes.astype(np.int32)
    codes[missing] = len(uniques)
    return [codes], [len(uniques) + 1]


def encode(
    patients: pd.DataFrame,
    claims: pd.DataFrame,
    hierarchies: Mapping[str, pd.DataFrame],
    spec: LongitudinalSpec | None = None,
) -> EncodedData:
    """Encode ``patients`` (one row per member) and ``claims`` for node evaluation.

    ``hierarchies`` maps a column to its hierarchy frame (``level_0``, ``level_1``, ...); every
    column of a lattice dimension needs one. Claims of members absent from ``patients`` are a
    DataError (count given, ids never).
    """
    spec = spec or LongitudinalSpec()
    member = spec.member
    for frame, cols, what in (
        (patients, (member, *spec.demographic_qis), "patients"),
        (claims, (member, *spec.claim_qis), "claims"),
    ):
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise DataError(f"{what} lack column(s) {missing}")
    if patients[member].duplicated().any():
        raise DataError(f"patients repeat {member}: one row per patient is required")
    heights: dict[str, int] = {}
    qis = {*spec.demographic_qis, *spec.claim_qis}
    for dim, cols in spec.dimensions:
        if not cols or any(c not in qis for c in cols):
            raise ConfigError(f"lattice dimension {dim!r} must list quasi-identifier columns,"
                              f" got {list(cols)}")
        hs = set()
        for c in cols:
            if c not in hierarchies:
                raise ConfigError(f"lattice dimension {dim!r}: column {c!r} has no hierarchy")
            check_hierarchy(c, hierarchies[c])
            hs.add(height(hierarchies[c]))
        if len(hs) != 1:
            raise ConfigError(f"lattice dimension {dim!r}: its columns' hierarchies differ in"
                              " height")
    members = pd.Index(patients[member].to_numpy())
    row = members.get_indexer(claims[member].to_numpy())
    if (row < 0).any():
        raise DataError(f"{int((row < 0).sum())} claim(s) belong to no patient in the patients"
                        " table")
    order_cols = [c for c in spec.time_order if c in claims.columns]
    keys = [claims[c].to_numpy() for c in reversed(order_cols)] + [row]
    order = np.lexsort(keys)
    claims = claims.iloc[order]
    row = row[order].astype(np.int32)

    def enc(frame: pd.DataFrame, col: str) -> tuple[list[np.ndarray], list[int]]:
        if col in hierarchies:
            codes, cards = level_codes(col, frame[col], hierarchies[col])
            heights[col] = len(codes) - 1
            return codes, cards
        heights[col] = 0
        return _single_level(col, frame[col])

    demo_codes, demo_cards, claim_codes, claim_cards = {}, {}, {}, {}
    for c in spec.demographic_qis:
        demo_codes[c], demo_cards[c] = enc(patients, c)
    for c in spec.claim_qis:
        claim_codes[c], claim_cards[c] = enc(claims, c)
    offsets = np.r_[0, np.cumsum(np.bincount(row, minlength=len(members)))].astype(np.int64)
    ids = claims["claim_id"].to_numpy() if "claim_id" in claims.columns else order
    return EncodedData(spec, members, demo_codes, demo_cards, row, offsets, claim_codes,
                       claim_cards, np.asarray(ids), heights)
