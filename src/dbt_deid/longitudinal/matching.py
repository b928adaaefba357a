"""Adversary background knowledge and counting the patients that match it (El Emam et al. 2012,
"Adversary Knowledge and Power", "Node Computation").

Knowledge about patient i (drawn once, independent of the lattice node): the demographics, and
for every claim QI h the values of p_ih of i's claims chosen without replacement, as a
*multiset* (the inexact knowledge and inexact order assumptions: not which values share a
claim, nor their order). The draw stores claim rows, so a node only maps them to generalized
values; the same draws are used at every node (common random numbers), which makes the
high-risk share monotone over the lattice.

A patient j matches at a node when j has i's generalized demographics and, for every QI h and
value v, at least as many claims with value v on h as the multiset holds. Sensitivity variants
(El Emam et al. 2012, "Sensitivity Analysis"):

* ``whole_claim``: the adversary also knows one claim whole (its values co-occur); that claim is
  among the drawn ones for every QI, and j must have a claim with the same generalized tuple;
* ``ordered_pair``: for every QI with p_ih >= 2 the adversary knows the order of one pair of
  the drawn values (a before b); j must have a claim with a strictly before one with b.

Counting never scans all patients: :class:`NodeIndex` renumbers patients so each generalized
demographic block is a contiguous id range and keeps, per claim QI value, the sorted ids of the
patients having it (an inverted index, ``keys = column * N + id``) plus a count table
``counts[column, id]`` (the multiplicities). For each knowledge set the candidates are the
smallest posting list restricted to the block (two binary searches), which are then filtered by
the other (value, multiplicity) requirements. All knowledge sets are processed together in
vectorized chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.longitudinal.encoding import EncodedData

VARIANTS = ("values", "whole_claim", "ordered_pair")
#: How drawn values are matched (:mod:`dbt_deid.longitudinal.adversary`).
MATCHINGS = ("distinct", "set", "multiset")
_CHUNK_PAIRS = 1 << 22


@dataclass
class Knowledge:
    """Drawn background knowledge for S entries (node-independent: claim rows, not values).

    ``patient``: (S,) patient row each entry is about. ``picks[h]``: (entry, claim row) arrays
    of the claims whose QI-h values are known. ``whole_claim``: (S,) claim row known whole, -1
    if none. ``ordered[h]``: (entry, earlier claim row, later claim row) for the ordered pair.
    """

    patient: np.ndarray
    picks: dict[str, tuple[np.ndarray, np.ndarray]]
    variant: str = "values"
    whole_claim: np.ndarray | None = None
    ordered: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
    matching: str = "multiset"

    @property
    def size(self) -> int:
        return len(self.patient)


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flattened ``arange(s, s + n)`` for each (s, n), and the owning range of each element."""
    lengths = np.asarray(lengths, dtype=np.int64)
    owner = np.repeat(np.arange(len(lengths)), lengths)
    first = np.cumsum(lengths) - lengths
    flat = np.arange(int(lengths.sum()), dtype=np.int64) - first[owner] + np.asarray(starts)[owner]
    return flat, owner


def check_matching(matching: str) -> str:
    if matching not in MATCHINGS:
        raise ConfigError(f"knowledge_matching must be one of {list(MATCHINGS)}, got"
                          f" {matching!r}")
    return matching


def check_variant(variant: str) -> str:
    if variant not in VARIANTS:
        raise ConfigError(f"knowledge variant must be one of {list(VARIANTS)}, got {variant!r}")
    return variant


def draw_knowledge(
    data: EncodedData,
    patients: np.ndarray,
    power: np.ndarray,
    rng: np.random.Generator,
    variant: str = "values",
    matching: str = "multiset",
) -> Knowledge:
    """Draw knowledge about each patient row in ``patients`` from ``data``'s claims.

    ``power``: (N, H) integer p_ih for the claim QIs in ``data.spec.claim_qis`` order; at most
    n_i claims are drawn. Per QI, the p_ih claims are a uniform sample without replacement of
    the patient's claims (independent across QIs). With ``matching="distinct"`` they are a
    uniform sample without replacement of the patient's *distinct* original values of the QI
    (one claim per value, at random): at most as many as the patient has distinct values
    (:mod:`dbt_deid.longitudinal.adversary`).
    """
    variant = check_variant(variant)
    matching = check_matching(matching)
    patients = np.asarray(patients, dtype=np.int64)
    qis = data.spec.claim_qis
    if power.shape != (data.n_patients, len(qis)):
        raise DataError(f"power has shape {power.shape}, expected ({data.n_patients},"
                        f" {len(qis)})")
    n_i = data.claims_per_patient[patients]
    starts = data.offsets[patients]
    flat, entry = _ranges(starts, n_i)
    whole = None
    if variant == "whole_claim":
        has = n_i > 0
        pick = np.floor(rng.random(len(patients)) * np.maximum(n_i, 1)).astype(np.int64)
        whole = np.where(has, starts + pick, -1)
    picks: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    ordered: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    first = np.cumsum(n_i) - n_i
    is_whole = flat == whole[entry] if whole is not None else None
    for h, q in enumerate(qis):
        p = np.minimum(power[patients, h], n_i)
        # a random order of each entry's claims (entries are contiguous and increasing in
        # ``flat``): sort by entry + a key in [0.25, 1); the whole claim (key 0) goes first
        key = entry + (0.25 + 0.75 * rng.random(len(flat)))
        if is_whole is not None:
            key[is_whole] = entry[is_whole]
        order = np.argsort(key, kind="quicksort")
        e_sorted = entry[order]
        if matching == "distinct":
            # the first claim (in the random order) of each distinct original value
            value = data.claim_codes[q][0][flat[order]].astype(np.int64)
            card = int(data.claim_cards[q][0])
            _, first_of = np.unique(e_sorted * card + value, return_index=True)
            order = order[np.sort(first_of)]
            e_sorted = entry[order]
            counts = np.bincount(e_sorted, minlength=len(patients))
            rank = np.arange(len(order)) - (np.cumsum(counts) - counts)[e_sorted]
        else:
            rank = np.arange(len(order)) - first[e_sorted]
        keep = rank < p[e_sorted]
        sel = order[keep]
        picks[q] = (entry[sel], flat[sel])
        if variant == "ordered_pair":
            r = rank[keep]
            e_k = e_sorted[keep]
            two = (r < 2) & (p[e_k] >= 2)
            rows = flat[sel][two]
            ents = e_k[two]
            # pairs are consecutive: rank 0 then rank 1 of the same entry
            a, b = rows[0::2], rows[1::2]
            ordered[q] = (ents[0::2], np.minimum(a, b), np.maximum(a, b))
    return Knowledge(patients, picks, variant, whole, ordered if variant == "ordered_pair"
                     else None, matching)


class NodeIndex:
    """Patients of ``data`` indexed at one node (see the module docstring)."""

    def __init__(self, data: EncodedData, node: tuple[int, ...], *, variant: str = "values",
                 known: Sequence[str] | None = None):
        """``known``: the demographic QIs the adversary knows (blocks are their classes;
        default every demographic QI)."""
        self.data = data
        self.node = tuple(int(v) for v in node)
        self.variant = check_variant(variant)
        spec = data.spec
        self.levels = spec.levels(self.node)
        for c, lvl in self.levels.items():
            if lvl > data.heights[c]:
                raise ConfigError(f"node {self.node}: level {lvl} of {c!r} exceeds its"
                                  f" hierarchy height {data.heights[c]}")
        n = data.n_patients
        self.n = n
        # demographic blocks -> contiguous new ids
        block = np.zeros(n, dtype=np.int64)
        self.known = tuple(spec.demographic_qis if known is None else known)
        for c in self.known:
            lvl = self.levels[c]
            block = block * data.demo_cards[c][lvl] + data.demo_codes[c][lvl]
            block = np.unique(block, return_inverse=True)[1].astype(np.int64)
        perm = np.argsort(block, kind="stable")
        self.new_id = np.empty(n, dtype=np.int64)
        self.new_id[perm] = np.arange(n)
        sorted_block = block[perm]
        self.block_lo = np.searchsorted(sorted_block, block, side="left")
        self.block_hi = np.searchsorted(sorted_block, block, side="right")
        # claim value columns
        self.col_off: dict[str, int] = {}
        self.claim_cols: dict[str, np.ndarray] = {}
        total = 0
        for q in spec.claim_qis:
            lvl = self.levels[q]
            self.col_off[q] = total
            self.claim_cols[q] = data.claim_codes[q][lvl]
            total += data.claim_cards[q][lvl]
        self.n_cols = total
        pid = self.new_id[data.claim_patient]
        counts = np.zeros(total * n, dtype=np.uint16)
        for q in spec.claim_qis:
            np.add.at(counts, (self.col_off[q] + self.claim_cols[q]).astype(np.int64) * n + pid, 1)
        self.counts = counts.reshape(total, n)
        nz = np.flatnonzero(counts)
        self.keys = nz  # = column * n + new id, sorted
        self._tuple_keys: np.ndarray | None = None
        self._first: np.ndarray | None = None
        self._last: np.ndarray | None = None
        if variant == "whole_claim":
            self._tuple_keys = np.unique(pid.astype(np.int64) * self._tuple_space()
                                         + self.tuple_code(data, np.arange(data.n_claims)))
        if variant == "ordered_pair":
            pos = (np.arange(data.n_claims) - data.offsets[data.claim_patient]).astype(np.int16)
            self._first = np.full(total * n, np.iinfo(np.int16).max, dtype=np.int16)
            self._last = np.full(total * n, -1, dtype=np.int16)
            for q in spec.claim_qis:
                k = (self.col_off[q] + self.claim_cols[q]).astype(np.int64) * n + pid
                np.minimum.at(self._first, k, pos)
                np.maximum.at(self._last, k, pos)

    # -- helpers shared with the knowledge side (codes of *another* EncodedData) -------------
    def _tuple_space(self) -> int:
        space = 1
        for q in self.data.spec.claim_qis:
            space *= self.data.claim_cards[q][self.levels[q]]
        if space * max(self.n, 1) >= 2**62:
            raise DataError("too many distinct claim tuples for the whole-claim variant")
        return space

    def tuple_code(self, source: EncodedData, rows: np.ndarray) -> np.ndarray:
        """Mixed-radix code of the generalized claim tuple of ``source`` claim rows."""
        code = np.zeros(len(rows), dtype=np.int64)
        for q in self.data.spec.claim_qis:
            lvl = self.levels[q]
            code = code * self.data.claim_cards[q][lvl] + source.claim_codes[q][lvl][rows]
        return code

    def column_of(self, source: EncodedData, q: str, rows: np.ndarray) -> np.ndarray:
        return self.col_off[q] + source.claim_codes[q][self.levels[q]][rows].astype(np.int64)

    # -- requirements --------------------------------------------------------------------------
    def requirements(self, source: EncodedData, know: Knowledge) -> _Requirements:
        """(entry, column, multiplicity) triples of ``know`` at this node, sorted by entry."""
        ents, cols = [], []
        for q in self.data.spec.claim_qis:
            e, rows = know.picks[q]
            ents.append(e)
            cols.append(self.column_of(source, q, rows))
        e = np.concatenate(ents) if ents else np.zeros(0, np.int64)
        c = np.concatenate(cols) if cols else np.zeros(0, np.int64)
        key, cnt = np.unique(e * self.n_cols + c, return_counts=True)
        if know.matching != "multiset":
            cnt = np.ones_like(cnt)        # a set: the patient needs each value once
        req = _Requirements(key // self.n_cols, key % self.n_cols, cnt.astype(np.uint16))
        if know.whole_claim is not None:
            has = know.whole_claim >= 0
            req.tuple_entry = np.flatnonzero(has)
            req.tuple_code = self.tuple_code(source, know.whole_claim[has])
        if know.ordered is not None:
            pe, pa, pb = [], [], []
            for q, (e2, a, b) in know.ordered.items():
                pe.append(e2)
                pa.append(self.column_of(source, q, a))
                pb.append(self.column_of(source, q, b))
            req.pair_entry = np.concatenate(pe)
            req.pair_a = np.concatenate(pa)
            req.pair_b = np.concatenate(pb)
        return req

    # -- filtering -----------------------------------------------------------------------------
    def _filter(
        self, req: _Requirements, pe: np.ndarray, cand: np.ndarray, know: Knowledge
    ) -> np.ndarray:
        """Indices of the (entry, candidate new id) pairs that satisfy every requirement."""
        keep = np.arange(len(pe))
        n_req = np.bincount(req.entry, minlength=know.size)
        first = np.cumsum(n_req) - n_req
        t = 0
        while len(keep):
            e = pe[keep]
            has = n_req[e] > t
            if not has.any():
                break
            r = first[e[has]] + t
            ok = self.counts[req.column[r], cand[keep[has]]] >= req.count[r]
            drop = np.zeros(len(keep), dtype=bool)
            drop[np.flatnonzero(has)[~ok]] = True
            keep = keep[~drop]
            t += 1
        if req.tuple_entry is not None and len(keep):
            code = np.full(know.size, -1, dtype=np.int64)
            code[req.tuple_entry] = req.tuple_code
            c = code[pe[keep]]
            need = c >= 0
            q = cand[keep[need]] * self._tuple_space() + c[need]
            tk = self._tuple_keys
            pos = np.minimum(np.searchsorted(tk, q), len(tk) - 1)
            found = tk[pos] == q
            drop = np.zeros(len(keep), dtype=bool)
            drop[np.flatnonzero(need)[~found]] = True
            keep = keep[~drop]
        if req.pair_entry is not None and len(req.pair_entry) and len(keep):
            order = np.argsort(req.pair_entry, kind="stable")
            pent = req.pair_entry[order]
            pa, pb = req.pair_a[order], req.pair_b[order]
            n_pair = np.bincount(pent, minlength=know.size)
            pfirst = np.cumsum(n_pair) - n_pair
            t = 0
            while len(keep):
                e = pe[keep]
                has = n_pair[e] > t
                if not has.any():
                    break
                r = pfirst[e[has]] + t
                cid = cand[keep[has]]
                ok = self._first[pa[r] * self.n + cid] < self._last[pb[r] * self.n + cid]
                drop = np.zeros(len(keep), dtype=bool)
                drop[np.flatnonzero(has)[~ok]] = True
                keep = keep[~drop]
                t += 1
        return keep

    def count_matches(
        self, source: EncodedData, know: Knowledge, cap: int | None = None
    ) -> np.ndarray:
        """Number of patients matching each knowledge entry (drawn from ``source``, which has
        the same patients and codes as this index's data, e.g. D1 for an index on D2).

        With ``cap`` the counts are ``min(count, cap)``: an entry stops being checked once
        ``cap`` matches are found, which is all node evaluation needs (high risk is count < k),
        and most entries match k patients among their first candidates."""
        if source.n_patients != self.n:
            raise DataError("knowledge and index must be about the same patients")
        self._check_variant(know)
        req = self.requirements(source, know)
        s = know.size
        lo = self.block_lo[know.patient]
        hi = self.block_hi[know.patient]
        # size of every requirement's posting list inside the entry's block
        base = req.column * self.n
        a = np.searchsorted(self.keys, base + lo[req.entry])
        b = np.searchsorted(self.keys, base + hi[req.entry])
        size = b - a
        start_len = hi - lo
        start_pos = lo.copy()
        from_keys = np.zeros(s, dtype=bool)
        if len(size):
            # most selective requirement first: it gives the candidates, the rest filter them
            order = np.lexsort((size, req.entry))
            req.entry, req.column, req.count = req.entry[order], req.column[order], req.count[
                order]
            size, a = size[order], a[order]
            head = np.r_[True, req.entry[1:] != req.entry[:-1]]
            be = req.entry[head]
            better = size[head] < start_len[be]
            start_len[be[better]] = size[head][better]
            start_pos[be[better]] = a[head][better]
            from_keys[be[better]] = True
        if cap is None:
            return self._count_ranges(req, know, np.arange(s), start_pos, start_len, from_keys)
        if isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap < 1:
            raise ConfigError(f"cap must be a positive integer, got {cap!r}")
        counts = np.zeros(s, dtype=np.int64)
        done = np.zeros(s, dtype=np.int64)
        active = np.flatnonzero(start_len > 0)
        width = max(4 * int(cap), 16)
        while len(active):
            take = np.minimum(width, start_len[active] - done[active])
            counts[active] += self._count_ranges(
                req, know, active, start_pos[active] + done[active], take, from_keys[active])
            done[active] += take
            active = active[(counts[active] < cap) & (done[active] < start_len[active])]
            width *= 4
        return np.minimum(counts, cap)

    def _count_ranges(
        self, req: _Requirements, know: Knowledge, entries: np.ndarray, pos: np.ndarray,
        lengths: np.ndarray, from_keys: np.ndarray,
    ) -> np.ndarray:
        """Matches of ``entries`` among their candidates ``pos .. pos + length`` (positions in
        the posting keys when ``from_keys``, else new patient ids), in chunks of bounded size."""
        out = np.zeros(len(entries), dtype=np.int64)
        bounds = np.cumsum(lengths)
        lo_e = 0
        n_e = len(entries)
        while lo_e < n_e:
            hi_e = int(np.searchsorted(bounds, bounds[lo_e - 1] + _CHUNK_PAIRS if lo_e else
                                       _CHUNK_PAIRS, side="right"))
            hi_e = max(hi_e, lo_e + 1)
            sel = np.arange(lo_e, min(hi_e, n_e))
            flat, owner = _ranges(pos[sel], lengths[sel])
            local = sel[owner]
            pe = entries[local]
            cand = np.where(from_keys[local], self.keys[np.minimum(flat, len(self.keys) - 1)]
                            % self.n, flat)
            kept = self._filter(req, pe, cand, know)
            out += np.bincount(local[kept], minlength=n_e)
            lo_e = hi_e
        return out

    def contains(self, source: EncodedData, know: Knowledge, rows: np.ndarray) -> np.ndarray:
        """Whether patient row ``rows[s]`` matches knowledge entry s (e.g. is the attack's
        target in its matching set?)."""
        self._check_variant(know)
        req = self.requirements(source, know)
        pe = np.arange(know.size)
        same_block = self.block_lo[know.patient] == self.block_lo[rows]
        kept = self._filter(req, pe, self.new_id[rows], know)
        out = np.zeros(know.size, dtype=bool)
        out[kept] = True
        return out & same_block

    def _check_variant(self, know: Knowledge) -> None:
        if know.variant != "values" and know.variant != self.variant:
            raise ConfigError(f"knowledge variant {know.variant!r} needs an index built with"
                              f" variant={know.variant!r}, not {self.variant!r}")


@dataclass
class _Requirements:
    entry: np.ndarray
    column: np.ndarray
    count: np.ndarray
    tuple_entry: np.ndarray | None = None
    tuple_code: np.ndarray | None = None
    pair_entry: np.ndarray | None = None
    pair_a: np.ndarray | None = None
    pair_b: np.ndarray | None = None


def brute_force_count(
    data: EncodedData, node: tuple[int, ...], source: EncodedData, know: Knowledge, entry: int,
    known: Sequence[str] | None = None,
) -> int:
    """Reference count for tests: scan every patient of ``data`` with Python multisets."""
    from collections import Counter

    spec = data.spec
    known = tuple(spec.demographic_qis if known is None else known)
    levels = spec.levels(node)
    i = int(know.patient[entry])

    def demo(d: EncodedData, row: int) -> tuple[int, ...]:
        return tuple(int(d.demo_codes[c][levels[c]][row]) for c in known)

    def tup(d: EncodedData, r: int) -> tuple[int, ...]:
        return tuple(int(d.claim_codes[q][levels[q]][r]) for q in spec.claim_qis)

    need = {}
    for q in spec.claim_qis:
        e, rows = know.picks[q]
        need[q] = Counter(int(v) for v in source.claim_codes[q][levels[q]][rows[e == entry]])
        if know.matching != "multiset":
            need[q] = Counter(set(need[q]))
    whole = None
    if know.whole_claim is not None and know.whole_claim[entry] >= 0:
        whole = tup(source, int(know.whole_claim[entry]))
    pairs = []
    if know.ordered is not None:
        for q, (e, a, b) in know.ordered.items():
            for aa, bb in zip(a[e == entry], b[e == entry], strict=True):
                lv = levels[q]
                pairs.append((q, int(source.claim_codes[q][lv][aa]),
                              int(source.claim_codes[q][lv][bb])))
    target = demo(source, i)
    n = 0
    for j in range(data.n_patients):
        if demo(data, j) != target:
            continue
        rows = range(int(data.offsets[j]), int(data.offsets[j + 1]))
        ok = all(
            all(Counter(int(data.claim_codes[q][levels[q]][r]) for r in rows)[v] >= c
                for v, c in need[q].items())
            for q in spec.claim_qis
        )
        if ok and whole is not None:
            ok = any(tup(data, r) == whole for r in rows)
        for q, va, vb in pairs:
            if not ok:
                break
            seq = [int(data.claim_codes[q][levels[q]][r]) for r in rows]
            ok = any(seq[x] == va and vb in seq[x + 1:] for x in range(len(seq)))
        n += ok
    return n
