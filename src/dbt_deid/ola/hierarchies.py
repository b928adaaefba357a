"""Generalization hierarchies (El Emam et al. 2009 (CJHP) Figure 2) loaded into integer-coded level
maps.

A hierarchy file is ARX-style: no header, one row per original value,
``original;level1;level2;...`` (the last level is usually ``*``). Level 0 is the original value.
Every level must be a function of the level below it (a tree), so a class at a finer node rolls
up to exactly one class at a coarser node; this is what lets OLA derive a node's classes from a
specialization's instead of rescanning the records.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from dbt_deid.errors import DataError


@dataclass
class Hierarchy:
    """One QI's hierarchy.

    ``labels[l][c]`` is the label of code ``c`` at level ``l`` (codes follow first appearance in
    the file, so they are deterministic); ``maps[l][leaf]`` is the level-``l`` code of leaf code
    ``leaf`` (``maps[0]`` is the identity); ``leaves_under[l][c]`` is the number of leaves
    (original values listed in the hierarchy) that generalize to code ``c`` at level ``l``.
    """

    column: str
    labels: list[np.ndarray]
    maps: list[np.ndarray]
    leaves_under: list[np.ndarray] = field(init=False)
    _index: dict[str, int] = field(init=False, repr=False)
    _up: dict[tuple[int, int], np.ndarray] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.leaves_under = [np.bincount(m, minlength=len(lab)).astype(np.int64)
                             for m, lab in zip(self.maps, self.labels, strict=True)]
        self._index = {str(v): i for i, v in enumerate(self.labels[0])}
        self._up = {}

    @property
    def height(self) -> int:
        """Number of generalization levels above the original values."""
        return len(self.maps) - 1

    @property
    def n_leaves(self) -> int:
        return len(self.labels[0])

    def up(self, lower: int, upper: int) -> np.ndarray:
        """Lookup array (int64): level-``lower`` code -> level-``upper`` code
        (``lower <= upper``)."""
        key = (lower, upper)
        if key not in self._up:
            out = np.empty(len(self.labels[lower]), dtype=np.int64)
            out[self.maps[lower]] = self.maps[upper]
            self._up[key] = out
        return self._up[key]

    def encode(self, values: Iterable[object]) -> np.ndarray:
        """Leaf codes of data values (compared as strings). A value not in the hierarchy, or a
        null, is a :class:`DataError` naming the column and the value.

        Each distinct value is looked up once: the column is factorized (hashed once; a
        dictionary-encoded or categorical column is already), then its few distinct values are
        mapped to leaf codes."""
        series = pd.Series(list(values) if not isinstance(values, pd.Series) else values)
        if series.isna().any():
            raise DataError(
                f"column {self.column!r} has a null value; give missing values a label that the"
                " hierarchy lists"
            )
        codes, uniques = pd.factorize(series, sort=False)
        names = [str(u) for u in uniques]
        lookup = np.fromiter((self._index.get(u, -1) for u in names), dtype=np.int64,
                             count=len(names))
        if (lookup < 0).any():
            bad = sorted(u for u, c in zip(names, lookup.tolist(), strict=True) if c < 0)
            shown = ", ".join(repr(v) for v in bad[:5])
            more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
            raise DataError(
                f"column {self.column!r}: value(s) {shown}{more} not in its hierarchy"
            )
        return lookup[codes].astype(np.int32)

    def label(self, level: int, codes: np.ndarray) -> np.ndarray:
        return self.labels[level][codes]

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def from_rows(cls, column: str, rows: Sequence[Sequence[object]]) -> Hierarchy:
        """Build and validate: non-empty, rectangular, no empty cells, unique originals, and
        each level a function of the level below."""
        rows = [[("" if v is None else str(v)).strip() for v in r] for r in rows]
        rows = [r for r in rows if any(r)]
        if not rows:
            raise DataError(f"hierarchy of column {column!r} is empty")
        width = len(rows[0])
        for i, r in enumerate(rows, start=1):
            if len(r) != width:
                raise DataError(
                    f"hierarchy of column {column!r} is ragged: row {i} has {len(r)} fields,"
                    f" row 1 has {width}"
                )
            if any(v == "" for v in r):
                raise DataError(f"hierarchy of column {column!r}: row {i} has an empty field")
        seen: set[str] = set()
        for r in rows:
            if r[0] in seen:
                raise DataError(f"hierarchy of column {column!r} lists value {r[0]!r} twice")
            seen.add(r[0])
        labels: list[np.ndarray] = []
        maps: list[np.ndarray] = []
        for lvl in range(width):
            col = [r[lvl] for r in rows]
            uniq = list(dict.fromkeys(col))
            lookup = {v: i for i, v in enumerate(uniq)}
            labels.append(np.array(uniq, dtype=object))
            maps.append(np.fromiter((lookup[v] for v in col), dtype=np.int32, count=len(col)))
        for lvl in range(1, width - 1):
            parent: dict[int, int] = {}
            for a, b in zip(maps[lvl].tolist(), maps[lvl + 1].tolist(), strict=True):
                if parent.setdefault(a, b) != b:
                    raise DataError(
                        f"hierarchy of column {column!r} is not a tree: level {lvl} value"
                        f" {labels[lvl][a]!r} generalizes to both {labels[lvl + 1][parent[a]]!r}"
                        f" and {labels[lvl + 1][b]!r} at level {lvl + 1}"
                    )
        return cls(column, labels, maps)

    @classmethod
    def from_frame(cls, column: str, frame: pd.DataFrame) -> Hierarchy:
        """From a DataFrame whose columns are the levels in order (header ignored)."""
        if frame.isna().to_numpy().any():
            raise DataError(f"hierarchy of column {column!r} has an empty field (null)")
        return cls.from_rows(column, frame.astype(str).to_numpy().tolist())

    @classmethod
    def from_csv(cls, column: str, path: str | Path, delimiter: str = ";") -> Hierarchy:
        """From an ARX-style CSV file (no header, ``original;level1;...``)."""
        p = Path(path)
        if not p.exists():
            raise FileNotFoundError(
                f"hierarchy file {str(p)!r} of column {column!r} does not exist"
            )
        with p.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh, delimiter=delimiter))
        return cls.from_rows(column, rows)


def load_hierarchies(
    paths: dict[str, str | Path], delimiter: str = ";"
) -> dict[str, Hierarchy]:
    """Load one hierarchy file per QI column, keeping the given column order."""
    return {c: Hierarchy.from_csv(c, p, delimiter) for c, p in paths.items()}
