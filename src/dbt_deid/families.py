"""Disclosing all levels of a hierarchical QI (El Emam et al. 2011, "Disclosing All Levels of the
Hierarchy", Tables 4, 5, 7 and 8).

A *family* is one concept released as several columns, ranked from finest to coarsest, e.g.
diagnosis: MRDx (0), CMG (1), block (2), chapter (3). ``generalizes`` links a level to the finer
level it is a total-order generalization of (block -> MRDx, chapter -> block); a level without a
link (CMG) is derived from the finest level but not a generalization of any other (a non-total
order). Every level can be derived from the finest one.

Table 4, with Q the adversary's knowledge level and M the most detailed level analysts need:

* M >= Q: suppress at S = M and release only levels at or above M;
* M < Q: suppress at S = Q and release level M too, except where it generalizes to a suppressed
  value at Q (downward propagation).

The levels evaluated by the suppression are those at or above S that are not total-order
generalizations of another evaluated level (Table 8: CMG and block, not chapter). The generated
combinations cross the demographic QIs with one evaluated level of each family (Tables 5, 7, 8).

Propagation (applied to the pattern table, repeated with the suppression until stable): when an
evaluated level is suppressed in a record, every released level finer than it (from which it can
be derived: the finest level, the ``generalizes`` chain below it, and every finer level over the
same source column) is suppressed, and every level that generalizes it in the total order is
suppressed (Table 5: block suppressions carried to chapter), so those levels need no evaluation
of their own.

A released level that no verified combination contains is published only where propagation
protects it (:func:`check_unchecked_levels`): a level finer than the adversary's level needs the
suppression of every checked level of its family carried to it ("it would be necessary to ensure
that suppressed CMG_CODE values could not be derived from the MRDx codes"); a level the
adversary may know (at or above S) must be in a combination unless it is a total-order
generalization of a checked level carried along with it (Table 5, combination 1d skipped).
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.patterns import SUPPRESSED, PatternTable
from dbt_deid.settings_schema import check_names


@dataclass(frozen=True)
class Family:
    """One hierarchical QI released at several levels."""

    name: str
    levels: tuple[str, ...]
    generalizes: Mapping[str, str]
    adversary_rank: int
    analyst_rank: int
    evaluate_all: bool = False

    @property
    def suppression_rank(self) -> int:
        """S = max(M, Q) (Table 4)."""
        return max(self.adversary_rank, self.analyst_rank)

    def rank(self, level: str) -> int:
        return self.levels.index(level)

    def generalizations_of(self, level: str) -> set[str]:
        """Levels that generalize ``level`` in the total order (transitively)."""
        out: set[str] = set()
        frontier = {level}
        while frontier:
            nxt = {g for g, f in self.generalizes.items() if f in frontier} - out
            out |= nxt
            frontier = nxt
        return out

    def finer_than(self, level: str) -> set[str]:
        """Levels from which ``level`` can be derived: the finest level and the total-order
        chain below ``level``."""
        out: set[str] = set()
        cur = level
        while cur in self.generalizes:
            cur = self.generalizes[cur]
            out.add(cur)
        if level != self.levels[0]:
            out.add(self.levels[0])
        return out

    @property
    def released(self) -> tuple[str, ...]:
        """Levels in the published table: rank >= M."""
        return tuple(lv for lv in self.levels if self.rank(lv) >= self.analyst_rank)

    @property
    def verified(self) -> tuple[str, ...]:
        """Levels an adversary may know (rank >= S): every combination with one of them must
        reach k after propagation."""
        s = self.suppression_rank
        return tuple(lv for lv in self.levels if self.rank(lv) >= s)

    @property
    def evaluated(self) -> tuple[str, ...]:
        """Levels the suppression works on: verified levels that do not generalize another
        verified level (their classes follow from propagation)."""
        verified = set(self.verified)
        if self.evaluate_all:  # Table 7: every disclosed level evaluated, no upward propagation
            return self.verified
        return tuple(
            lv for lv in self.verified
            if not (self.finer_than(lv) & verified and self._is_total_generalization(lv, verified))
        )

    def _is_total_generalization(self, level: str, among: set[str]) -> bool:
        cur = level
        while cur in self.generalizes:
            cur = self.generalizes[cur]
            if cur in among:
                return True
        return False


def parse_family(name: str, spec: Mapping, qi_names: Sequence[str]) -> Family:
    """Validate ``hierarchical_qis.<name>``; each bad value names its setting."""
    where = f"hierarchical_qis.{name}"
    if not isinstance(spec, Mapping):
        raise ConfigError(f"{where} must be a mapping")
    check_names(where, spec, "family")
    levels = spec.get("levels")
    if not isinstance(levels, Sequence) or isinstance(levels, str) or len(levels) < 1:
        raise ConfigError(f"{where}.levels must be a non-empty list of QI names, finest first")
    for lv in levels:
        if lv not in qi_names:
            raise ConfigError(f"{where}.levels names unknown quasi-identifier {lv!r}")
    if len(set(levels)) != len(levels):
        raise ConfigError(f"{where}.levels repeats a level")
    gen = spec.get("generalizes", {}) or {}
    if not isinstance(gen, Mapping):
        raise ConfigError(f"{where}.generalizes must map a level to the finer level it generalizes")
    for coarse, fine in gen.items():
        if coarse not in levels or fine not in levels:
            raise ConfigError(f"{where}.generalizes links {coarse!r} -> {fine!r}: not both levels")
        if levels.index(coarse) <= levels.index(fine):
            raise ConfigError(f"{where}.generalizes: {coarse!r} must be coarser than {fine!r}")

    def _rank(key: str, default: int) -> int:
        value = spec.get(key, default)
        if isinstance(value, str):
            if value not in levels:
                raise ConfigError(f"{where}.{key} names unknown level {value!r}")
            return list(levels).index(value)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < len(levels):
            raise ConfigError(f"{where}.{key} must be a level name or rank 0..{len(levels) - 1}")
        return value

    evaluate_all = spec.get("evaluate_all_levels", False)
    if not isinstance(evaluate_all, bool):
        raise ConfigError(f"{where}.evaluate_all_levels must be true or false")
    return Family(
        name=name, levels=tuple(levels), generalizes=dict(gen),
        adversary_rank=_rank("adversary_level", 0), analyst_rank=_rank("analyst_level", 0),
        evaluate_all=evaluate_all,
    )


def generate_combinations(
    demographics: Sequence[str], families: Sequence[Family], *, verified: bool = False
) -> list[tuple[str, ...]]:
    """Demographics x one evaluated (or verified) level of each family (Tables 5, 7, 8)."""
    choices = [f.verified if verified else f.evaluated for f in families]
    if not choices:
        return [tuple(demographics)]
    return [tuple(demographics) + tuple(pick) for pick in itertools.product(*choices)]


def propagation_pairs(
    families: Sequence[Family], columns: Mapping[str, str] | None = None,
    checked: Collection[str] = (),
) -> list[tuple[str, str]]:
    """(source, target): when ``source`` (a verified or checked level) is suppressed, suppress
    ``target``.

    ``columns`` maps each level to its source column (lower case). Every released level over the
    same column as ``source``, finer or coarser, is among its targets, with or without a
    ``generalizes`` link and whatever the declared order: one of two levels over one column is
    derivable from the other (only the bins tell which, and the declared order is not checked
    against them), and a coarser bin of a suppressed value reveals part of it (El Emam et al.
    2011, Table 4: a level is disclosed "except when it generalizes to a suppressed value"). Review
    r11, F2: a 10-year age between 5-year and 20-year levels showed the suppressed 20-year bin in
    999 rows; review r11b, F3: a 20-year age2 in its own combination showed the bin of a
    suppressed 10-year age in 458 rows (13 records below k for an adversary knowing age).

    ``checked`` are the QIs of the verified combinations: a family level in one that is below
    the suppression level (explicit combinations) is a source for the levels over its column too.
    """
    columns = columns or {}
    pairs: list[tuple[str, str]] = []
    for fam in families:
        released = set(fam.released)
        verified = set(fam.verified)
        for ev in fam.levels:
            if ev not in verified and ev not in checked:
                continue
            targets: set[str] = set()
            if ev in verified:
                targets = fam.finer_than(ev)
                if not fam.evaluate_all:
                    targets = targets | fam.generalizations_of(ev)
            col = columns.get(ev)
            if col is not None:
                targets = targets | {lv for lv in fam.levels
                                     if lv != ev and columns.get(lv) == col}
            for target in sorted(targets & released):
                pairs.append((ev, target))
    return pairs


def check_unchecked_levels(
    families: Sequence[Family], checked: set[str], pairs: Sequence[tuple[str, str]]
) -> None:
    """Refuse a released family level that no verified combination contains unless propagation
    protects it (El Emam et al. 2011, Table 4; review r11, F1 and F2).

    ``checked`` are the QIs of the verified combinations, ``pairs`` the propagation pairs. A level
    finer than S (analysts' level M < Q) is published "except when it generalizes to a suppressed
    value at level S = Q": the suppression of *every* checked level of the family must reach it.
    A level at or above S may be known to the adversary, so it must itself be checked, unless it
    is a ``generalizes`` (total-order) generalization of a checked level whose suppression, and
    that of every other checked level, reaches it: its classes are then unions of that level's
    (Table 5: block suppressions carried to chapter without evaluating chapter). Raises one
    ConfigError naming the family, the level and what to do.
    """
    sources: dict[str, set[str]] = {}
    for src, dst in pairs:
        sources.setdefault(dst, set()).add(src)
    for fam in families:
        here = [lv for lv in fam.levels if lv in checked]
        s_level = fam.levels[fam.suppression_rank]
        for lv in fam.released:
            if lv in checked:
                continue
            where = (f"hierarchical_qis.{fam.name}: level {lv!r} is released but in no verified"
                     f" combination")
            missing = [q for q in here if q not in sources.get(lv, set())]
            known = fam.rank(lv) >= fam.suppression_rank
            drop = ("drop it (remove it from quasi_identifiers and from"
                    f" hierarchical_qis.{fam.name}.levels)")
            if not here:
                why = ("and no level of the family is in one, so nothing would protect it. Put it"
                       f" in a combination, or {drop}")
            elif known and not any(lv in fam.generalizations_of(q) for q in here):
                why = (f"and an adversary may know it (it is at or above the suppression level"
                       f" {s_level!r}, S = max(adversary_level, analyst_level)), so its classes"
                       f" would never be checked. Put it in a combination, ")
                if any(fam.rank(lv) < fam.rank(q) for q in here):
                    why += ("raise adversary_level above it if no adversary can know it (Table 4:"
                            " a level finer than the adversary's is suppressed with the checked"
                            " levels), ")
                else:
                    why += ("link it with generalizes to the checked level it is a total-order"
                            " generalization of (its suppression is then carried to it), ")
                why += f"or {drop}"
            elif missing:
                q = missing[0]
                if not known:
                    drop = "drop it (set analyst_level above it, or remove it)"
                if lv in fam.generalizations_of(q):  # evaluate_all_levels: nothing goes upwards
                    how = ("evaluate_all_levels carries no suppression to coarser levels over"
                           " another source column. Put it in a combination")
                else:
                    how = (f"{lv!r} reads another source column than {q!r} and is neither"
                           f" finer than it by a generalizes chain nor a generalizes"
                           f" generalization of it. Put it in a combination, link it with"
                           f" generalizes so that the suppression of {q!r} reaches it")
                why = (f"and a suppressed {q!r} (a checked level) would stay readable in it:"
                       f" {how}, or {drop}")
            else:
                continue
            raise ConfigError(f"{where} {why}")


def propagate(table: PatternTable, pairs: Sequence[tuple[str, str]]) -> int:
    """Apply the pairs to a pattern table until nothing changes; return record cells suppressed."""
    cells = 0
    index = {c: i for i, c in enumerate(table.columns)}
    usable = [(index[s], index[t]) for s, t in pairs if s in index and t in index]
    changed = True
    while changed:
        changed = False
        for s, t in usable:
            hit = (table.codes[:, s] == SUPPRESSED) & (table.codes[:, t] != SUPPRESSED)
            if hit.any():
                cells += int(table.counts[hit].sum())
                table.codes[hit, t] = SUPPRESSED
                changed = True
    return cells


def released_order(families: Sequence[Family], qi_names: Sequence[str]) -> list[str]:
    """QIs in the published table: family levels below M are not released."""
    dropped = {lv for f in families for lv in f.levels if lv not in f.released}
    return [q for q in qi_names if q not in dropped]


__all__ = [
    "Family", "check_total_order_codes", "check_total_orders", "check_unchecked_levels",
    "generate_combinations", "parse_family", "propagate",
    "propagation_pairs", "released_order",
]


def check_total_orders(table: PatternTable, families: Sequence[Family]) -> None:
    """Each ``generalizes`` link must be a function on the pattern table's records: one coarser
    value per finer value (see :func:`check_total_order_codes`)."""
    check_total_order_codes(
        {c: table.codes[:, i] for i, c in enumerate(table.columns)}, table.counts, families)


def check_total_order_codes(
    codes: Mapping[str, np.ndarray], counts: np.ndarray, families: Sequence[Family],
    *, where: str = "",
) -> None:
    """Each ``generalizes`` link must be a function: one coarser value per finer value.

    ``codes`` maps a column to its integer codes (one row per pattern or record state,
    ``SUPPRESSED`` cells ignored), ``counts`` the records of each row. Propagating suppressions
    upward instead of evaluating the coarser level (Table 5), and publishing a coarser level in
    no combination because its classes are unions of the finer level's, are only sound for a
    total order; raises DataError naming the family, the columns and how many values and
    records break it, never a value (a value of a small class would be written in the log:
    review r11b, G1). A full suppression checks its pattern table; a refresh of a release line
    checks its current records (``where`` says which).
    """
    for fam in families:
        for coarse, fine in fam.generalizes.items():
            if coarse not in codes or fine not in codes:
                continue
            f, c = codes[fine], codes[coarse]
            ok = (f != SUPPRESSED) & (c != SUPPRESSED)
            # One int64 per (finer, coarser) pair: unique on a 1-D array is a plain sort.
            packed = np.unique(f[ok].astype(np.int64) * (2**31) + c[ok].astype(np.int64))
            fine_codes = packed // (2**31)
            dup = np.unique(fine_codes[1:][fine_codes[1:] == fine_codes[:-1]])
            if len(dup):
                records = int(np.asarray(counts)[ok & np.isin(f, dup)].sum())
                raise DataError(
                    f"hierarchical_qis.{fam.name}: {coarse!r} does not generalize {fine!r} in a"
                    f" total order{where}: {len(dup)} value(s) of column {fine!r} map to more"
                    f" than one value of column {coarse!r} ({records} record(s)); fix the"
                    f" source data or the rule of {coarse!r}, or remove the generalizes link"
                    f" (then {coarse!r} needs a combination of its own)"
                )
