"""Synthetic discharge abstracts shaped like El Emam et al. 2011 Table 2 (CIHI's DAD).

Deterministic for a given seed. Quasi-identifiers and their levels:

* ``province``: 10 categories (9 provinces, territories grouped); region level (West, Central =
  Ontario, East, North) from the ``province_hierarchy`` lookup.
* ``los_days``: total length of stay in days; rule-based levels in the release config (days up to
  a week then weeks, top-coded at 6 months; weeks top-coded at 6 months).
* ``age``: years; 5-year groups top-coded at 90 (20 categories) by a rule.
* ``gender``: F, M, O, U, Z (Z = missing code in the DAD), from the ``gender_hierarchy`` lookup.
* ``mrdx``: ICD-10-like 4-character diagnosis; levels DIAG3 (3 characters), block and chapter
  from ``diagnosis_hierarchy`` (8,967 / 1,435 / 195 / 23 codes in the universe, as Table 2).
* ``cmg``: a case-mix-group-like grouping (545 groups) driven by the diagnosis block, age and
  whether there was an intervention, with noise: not a pure function of any diagnosis prefix.
* ``cci_code``: intervention code (8,780 codes, 569 short forms by a 7-character prefix); about
  46% of records have none (NULL, a missing value, not a suppression).

Frequencies are skewed: most stays are under a week, newborns (age 0, diagnosis ``Z38x``) are
frequent, rare codes are rare (Zipf-like).
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

PAPER_ROWS = 2_375_331
PROVINCES = ["ON", "BC", "AB", "MB", "SK", "NS", "NB", "NL", "PE", "TERR"]
PROVINCE_SHARE = [0.385, 0.135, 0.12, 0.045, 0.04, 0.035, 0.028, 0.02, 0.006, 0.006]
REGION = {
    "ON": "Central", "BC": "West", "AB": "West", "MB": "West", "SK": "West",
    "NS": "East", "NB": "East", "NL": "East", "PE": "East", "TERR": "North",
}
GENDERS = ["F", "M", "O", "U", "Z"]
GENDER_SHARE = [0.5535, 0.4459, 0.0002, 0.0001, 0.0003]
N_CHAPTERS, N_BLOCKS, N_DIAG3, N_MRDX = 23, 195, 1435, 8967
N_CMG, N_CCI, N_SHORT_CCI = 545, 8780, 569
NO_INTERVENTION_SHARE = 0.46


@dataclass(frozen=True)
class CodeUniverse:
    """The diagnosis and intervention codes with their hierarchy and base frequencies."""

    mrdx: np.ndarray
    diag3: np.ndarray
    block: np.ndarray
    chapter: np.ndarray
    mrdx_weight: np.ndarray
    block_index: np.ndarray
    cci: np.ndarray
    cci_weight: np.ndarray


def _zipf_weights(n: int, exponent: float, rng: np.random.Generator) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1) ** exponent
    rng.shuffle(w)
    return w / w.sum()


@lru_cache(maxsize=4)
def code_universe(seed: int = 2011) -> CodeUniverse:
    """Deterministic ICD-10-like and CCI-like code universes with Table 2's cardinalities."""
    rng = np.random.default_rng(seed)
    letters = list("ABCDEFGHIJKLMNOPQRSTVXZ")  # 23 chapters, as ICD-10's letters
    # 3-character codes: chapter letter + 2 digits, spread over the chapters.
    per_chapter = np.full(N_CHAPTERS, N_DIAG3 // N_CHAPTERS)
    per_chapter[: N_DIAG3 - per_chapter.sum()] += 1
    diag3, chapter_of3 = [], []
    for ch, n in zip(letters, per_chapter, strict=True):
        nums = rng.choice(100, size=n, replace=False)
        if ch == "Z" and 38 not in nums:
            nums[0] = 38  # liveborn infants (Z38) exist
        nums = np.sort(nums)
        diag3 += [f"{ch}{x:02d}" for x in nums]
        chapter_of3 += [f"Chapter {ch}"] * n
    diag3_arr = np.array(diag3)
    # Blocks: contiguous runs of 3-character codes inside a chapter (195 blocks).
    # Every chapter start is a cut, so blocks nest in chapters (a total order).
    chapter_starts = np.flatnonzero(np.r_[True, np.array(chapter_of3[1:]) != chapter_of3[:-1]])
    others = np.setdiff1d(np.arange(1, N_DIAG3), chapter_starts)
    extra_cuts = rng.choice(others, size=N_BLOCKS - len(chapter_starts), replace=False)
    cuts = np.sort(np.r_[chapter_starts[1:], extra_cuts])
    block_id = np.searchsorted(cuts, np.arange(N_DIAG3), side="right")
    block_label = np.empty(N_DIAG3, dtype=object)
    for b in np.unique(block_id):
        members = diag3_arr[block_id == b]
        block_label[block_id == b] = f"{members[0]}-{members[-1]}"
    # 4-character codes: 3-character code + one digit (8,967 in all).
    extra = rng.multinomial(N_MRDX - N_DIAG3, np.full(N_DIAG3, 1 / N_DIAG3)) + 1
    extra = np.minimum(extra, 10)
    while extra.sum() < N_MRDX:
        i = rng.integers(N_DIAG3)
        if extra[i] < 10:
            extra[i] += 1
    mrdx, parent = [], []
    for i, (code, n) in enumerate(zip(diag3_arr, extra, strict=True)):
        mrdx += [f"{code}{d}" for d in range(n)]
        parent += [i] * n
    parent_arr = np.array(parent)
    # Hierarchical skew: frequent 3-character codes, and frequent codes within each of them.
    parent_weight = _zipf_weights(N_DIAG3, 1.15, rng)
    within = np.concatenate([1.0 / np.arange(1, n + 1) ** 1.5 for n in extra])
    within /= np.bincount(parent_arr, weights=within)[parent_arr]
    weight = parent_weight[parent_arr] * within
    weight /= weight.sum()
    # Newborn (Z38x) and childbirth codes are frequent.
    mrdx_arr = np.array(mrdx)
    # CCI-like codes: section.anatomy.intervention (the short form, 7 characters) then a
    # qualifier. 60 anatomy groups, so the section+anatomy prefix has a few hundred values.
    anatomy = [a + b for a in "ABGHKMNOPQRSTVW" for b in "ABCD"]
    short_set: set[str] = set()
    while len(short_set) < N_SHORT_CCI:
        sec = rng.choice([1, 2, 3, 5, 6, 7, 8], p=[0.55, 0.15, 0.12, 0.08, 0.04, 0.03, 0.03])
        short_set.add(f"{sec}.{anatomy[rng.integers(len(anatomy))]}.{rng.integers(10, 100)}")
    short = sorted(short_set)
    per_short = rng.multinomial(N_CCI - N_SHORT_CCI, np.full(N_SHORT_CCI, 1 / N_SHORT_CCI)) + 1
    cci, cci_parent = [], []
    for i, (s, n) in enumerate(zip(short, per_short, strict=True)):
        suffixes = rng.choice(26 * 26, size=n, replace=False)
        cci += [
            f"{s}.{string.ascii_uppercase[x // 26]}{string.ascii_uppercase[x % 26]}"
            for x in suffixes
        ]
        cci_parent += [i] * n
    cci_parent_arr = np.array(cci_parent)
    cci_within = np.concatenate([1.0 / np.arange(1, n + 1) ** 1.5 for n in per_short])
    cci_within /= np.bincount(cci_parent_arr, weights=cci_within)[cci_parent_arr]
    cci_weight = _zipf_weights(N_SHORT_CCI, 1.2, rng)[cci_parent_arr] * cci_within
    cci_weight /= cci_weight.sum()
    return CodeUniverse(
        mrdx=mrdx_arr,
        diag3=diag3_arr[parent_arr],
        block=block_label[parent_arr].astype(str),
        chapter=np.array(chapter_of3)[parent_arr],
        mrdx_weight=weight,
        block_index=block_id[parent_arr],
        cci=np.array(cci),
        cci_weight=cci_weight,
    )


def diagnosis_hierarchy(seed: int = 2011) -> pd.DataFrame:
    """Lookup hierarchy MRDx -> DIAG3 -> block -> chapter -> '*' (one row per code)."""
    u = code_universe(seed)
    return pd.DataFrame(
        {"mrdx": u.mrdx, "diag3": u.diag3, "diag_block": u.block, "diag_chapter": u.chapter,
         "any_diagnosis": "*"}
    )


def generate_discharges(rows: int = 50_000, seed: int = 42, code_seed: int = 2011) -> pd.DataFrame:
    """``rows`` synthetic discharge abstracts (deterministic for ``seed``).

    Columns: abstract_id, health_card_number and patient_name (direct identifiers), province,
    age, gender, los_days, mrdx, cmg, cci_code (QIs), admission_date, total_cost_cad and
    discharge_disposition (other columns).
    """
    return discharge_table(rows, seed, code_seed).to_pandas()


def discharge_table(rows: int = 50_000, seed: int = 42, code_seed: int = 2011,
                    first_id: int = 1, start: str = "2008-04-01") -> pa.Table:
    """The records of :func:`generate_discharges` as an Arrow table, for loading in batches.

    One fiscal year of abstracts (El Emam et al. 2011, Table 2: the DAD 2008/09 file) from
    ``start``; ``first_id`` numbers the records (ids ``first_id .. first_id + rows - 1``), so
    several years can be appended to one table without building it in memory.
    """
    if rows <= 0:
        raise ValueError(f"rows must be positive, got {rows}")
    rng = np.random.default_rng(seed)
    u = code_universe(code_seed)
    newborn = rng.random(rows) < 0.11
    obstetric = (~newborn) & (rng.random(rows) < 0.10)
    age = np.clip(np.round(rng.normal(68, 17, rows)), 1, 105).astype(np.int64)
    young = rng.random(rows) < 0.25
    age = np.where(young, rng.integers(1, 60, rows), age)
    age = np.where(obstetric, np.clip(np.round(rng.normal(30, 5.5, rows)), 14, 50), age)
    age = np.where(newborn, 0, age).astype(np.int64)
    # Categories are drawn as indices (the same random stream as drawing the labels) and turned
    # into text by Arrow at the end: building millions of Python/NumPy strings is the slow part.
    gender = rng.choice(len(GENDERS), size=rows, p=GENDER_SHARE)
    gender = np.where(obstetric, GENDERS.index("F"), gender)
    province = rng.choice(len(PROVINCES), size=rows,
                          p=np.array(PROVINCE_SHARE) / sum(PROVINCE_SHARE))
    los = np.ceil(rng.lognormal(1.2, 1.0, rows)).astype(np.int64)
    los = np.where(newborn, rng.integers(1, 4, rows), los)
    los = np.where(obstetric, rng.integers(1, 5, rows), los)
    los = np.minimum(los, 400)

    mrdx_idx = rng.choice(len(u.mrdx), size=rows, p=u.mrdx_weight)
    z38 = np.flatnonzero(np.char.startswith(u.mrdx.astype(str), "Z38"))
    o_codes = np.flatnonzero(np.char.startswith(u.mrdx.astype(str), "O"))
    mrdx_idx = np.where(newborn, rng.choice(z38[:4], size=rows), mrdx_idx)
    mrdx_idx = np.where(obstetric, rng.choice(o_codes[:30], size=rows), mrdx_idx)

    has_cci = rng.random(rows) >= NO_INTERVENTION_SHARE
    cci_idx = rng.choice(len(u.cci), size=rows, p=u.cci_weight)

    # CMG: block x coarse age x intervention flag hashed into 545 groups, 5% noise.
    age_band = np.digitize(age, [1, 18, 65, 80])
    cmg_key = (u.block_index[mrdx_idx] * 7 + age_band * 2 + has_cci) * 2654435761 % N_CMG
    noise = rng.random(rows) < 0.05
    cmg_key = np.where(noise, (cmg_key + rng.integers(1, 5, rows)) % N_CMG, cmg_key)

    admission = np.datetime64(start) + rng.integers(0, 365, rows).astype("timedelta64[D]")
    cost = np.round(los * rng.lognormal(7.0, 0.5, rows), 2)
    dispositions = ["home", "home_with_support", "transfer", "died", "other"]
    disposition = rng.choice(len(dispositions), size=rows, p=[0.72, 0.12, 0.09, 0.04, 0.03])
    ids = np.arange(first_id, first_id + rows, dtype=np.int64)
    cmg_labels = [f"CMG{i:03d}" for i in range(N_CMG)]
    return pa.table(
        {
            "abstract_id": ids,
            "health_card_number": _prefixed("HCN", ids * 7919 + seed, 10),
            "patient_name": _prefixed("Patient ", ids, 0),
            "province": _labels(PROVINCES, province),
            "age": age,
            "gender": _labels(GENDERS, gender),
            "los_days": los,
            "mrdx": _labels(u.mrdx, mrdx_idx),
            "cmg": _labels(cmg_labels, cmg_key),
            "cci_code": _labels(u.cci, cci_idx, mask=~has_cci),
            "admission_date": admission.astype("datetime64[s]"),
            "total_cost_cad": cost,
            "discharge_disposition": _labels(dispositions, disposition),
        }
    )


def _labels(labels: Sequence[str] | np.ndarray, index: np.ndarray,
            mask: np.ndarray | None = None) -> pa.Array:
    """``labels[index]`` as an Arrow string array (null where ``mask``)."""
    out = pc.take(pa.array([str(v) for v in labels], type=pa.string()), pa.array(index))
    if mask is not None:
        out = pc.if_else(pa.array(mask), pa.scalar(None, type=pa.string()), out)
    return out


def _prefixed(prefix: str, numbers: np.ndarray, width: int) -> pa.Array:
    """``prefix`` + the numbers as text, left-padded with zeros to ``width`` digits."""
    text = pc.cast(pa.array(numbers), pa.string())
    if width:
        text = pc.utf8_lpad(text, width=width, padding="0")
    return pc.binary_join_element_wise(prefix, text, "")
