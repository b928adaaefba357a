"""Random suppression cases and their checks, shared by the property-based tests
(``tests/unit/test_fuzz_suppression.py``, through Hypothesis) and ``fuzz/fuzz_suppress.py``
(thousands of cases from a seed).

A case is a small CSV table: quasi-identifiers with few distinct values (so classes form, and
small ones too), missing cells, unicode, quotes, delimiters, carriage returns and line feeds in
values and names, columns named like the package's internal columns (``n``, ``rank_from``,
``<qi>__suppressed``, ...), overlapping combinations, weights, k, sometimes a record id. Every
case runs through the core (:func:`dbt_deid.suppression.run_suppression`, record and pattern
mode) and the CLI (``python -m dbt_deid suppress``, in process), and the outputs are checked by
``tests/independent_check.py`` (plain loops, none of the package's code) and against the same
case with its rows shuffled.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import tempfile
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import pandas as pd

from dbt_deid.errors import DataError
from dbt_deid.suppression import run_suppression
from dbt_deid.tools.cli import main
from tests.independent_check import release_violations

MISSING = "<missing>"
VALUES = ["a", "b", "c", "n", "1", "01", "0", "é", "日本", " ", " a", 'q"t', '"', "x,y", "x;y",
          "t\tb", "c\rr", "l\nf", "\r", "\r\n", "NULL", "nan", "None", "-", "#"]
NAMES = ["n", "count", "rank", "rank_from", "rank_to", "pattern_index", "row_key", "q0", "q1",
         "a__original", "a__suppressed", "n__suppressed", "a", "b", "é", "col x", 'qu"o',
         "NaN", "1", "名"]
OTHER_NAMES = ["note", "x,y", "semi;colon", "line\nbreak", "id"]
DELIMITERS = [",", ";", "\t", "|"]


class Chooser(Protocol):
    """The random choices a case is made of (a seeded ``random.Random`` or Hypothesis)."""

    def int(self, lo: int, hi: int) -> int: ...  # inclusive bounds


class RandomChooser:
    def __init__(self, rng) -> None:  # rng: random.Random
        self.rng = rng

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


class DrawChooser:
    """Hypothesis: ``draw`` from ``@st.composite`` (shrinks towards the low bounds)."""

    def __init__(self, draw: Callable, integers: Callable) -> None:
        self.draw, self.integers = draw, integers

    def int(self, lo: int, hi: int) -> int:
        return self.draw(self.integers(lo, hi))


def _pick(ch: Chooser, pool: Sequence):
    return pool[ch.int(0, len(pool) - 1)]


def _distinct(ch: Chooser, pool: Sequence[str], n: int, taken: set[str]) -> list[str]:
    out: list[str] = []
    left = [p for p in pool if p not in taken]
    for _ in range(n):
        v = left.pop(ch.int(0, len(left) - 1))
        out.append(v)
    return out


def _permutation(ch: Chooser, n: int) -> list[int]:
    left = list(range(n))
    return [left.pop(ch.int(0, len(left) - 1)) for _ in range(n)]


@dataclass
class Case:
    header: list[str]
    rows: list[list[str]]
    qis: list[str]
    combinations: list[list[str]]
    k: int
    weights: dict[str, float] = field(default_factory=dict)
    record_id: str | None = None
    complete: bool = False
    delimiter: str = ","
    shuffle: list[int] = field(default_factory=list)
    algorithm: str | None = None  # set by the caller (never drawn): overrides ``complete``

    @property
    def algorithm_name(self) -> str:
        return self.algorithm or ("complete" if self.complete else "combinations")

    def describe(self) -> str:
        return (f"{len(self.rows)} rows, header {self.header!r}, combinations {self.combinations},"
                f" k = {self.k}, weights {self.weights}, record id {self.record_id!r},"
                f" complete {self.complete}, algorithm {self.algorithm_name},"
                f" delimiter {self.delimiter!r}, rows {self.rows!r}")


def make_case(ch: Chooser, max_rows: int = 24) -> Case:
    n_qi = ch.int(1, 4)
    qis = _distinct(ch, NAMES, n_qi, set())
    others = _distinct(ch, NAMES + OTHER_NAMES, ch.int(0, 2), set(qis))
    record_id = None
    if ch.int(0, 2) == 0:
        record_id = _distinct(ch, ["id", "rid", "n", "名"], 1, set(qis) | set(others))[0]
        others.append(record_id)
    header = list(qis) + others
    order = _permutation(ch, len(header))
    header = [header[i] for i in order]
    n = ch.int(1, max_rows)
    alphabets = {c: [_pick(ch, VALUES + [""]) for _ in range(ch.int(1, 4))] for c in header}
    rows = []
    for i in range(n):
        row = []
        for c in header:
            if c == record_id:
                row.append(f"id{i}" if i % 3 else f"ïd {i}")
            else:
                alphabet = alphabets[c]
                # skewed: the first values are frequent, the last rare
                row.append(alphabet[min(ch.int(0, len(alphabet) - 1), ch.int(0, len(alphabet)))
                                    % len(alphabet)])
        rows.append(row)
    combinations = []
    for _ in range(ch.int(1, 3)):
        size = ch.int(1, n_qi)
        combinations.append(_distinct(ch, qis, size, set()))
    used = list(dict.fromkeys(c for b in combinations for c in b))
    weights = {}
    for c in used:
        w = ch.int(0, 5)
        if w < 4:
            weights[c] = [0.0, 0.25, 0.5, 1.0][w]
    return Case(
        header=header, rows=rows, qis=used, combinations=combinations,
        k=ch.int(2, 6), weights=weights, record_id=record_id, complete=ch.int(0, 4) == 0,
        delimiter=_pick(ch, DELIMITERS), shuffle=_permutation(ch, n),
    )


@dataclass
class Outcome:
    """What a case found: guarantee violations, false refusals (an error although the table
    has k records) and crashes (any other exception)."""

    violations: list[str] = field(default_factory=list)
    false_refusals: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.violations or self.false_refusals or self.crashes)

    def extend(self, other: Outcome) -> None:
        self.violations += other.violations
        self.false_refusals += other.false_refusals
        self.crashes += other.crashes


# -- the CLI ---------------------------------------------------------------------------------

def _write(path: Path, header: list[str], rows: list[list[str]], delimiter: str) -> None:
    # The csv module with CRLF line ends quotes every CR and LF: an independent writer.
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, delimiter=delimiter, lineterminator="\r\n").writerows([header, *rows])


def _read(path: Path, delimiter: str) -> tuple[list[str], list[list[str]]]:
    with path.open(newline="", encoding="utf-8") as f:
        header, *rows = list(csv.reader(f, delimiter=delimiter))
    return header, rows


def _run_cli(case: Case, rows: list[list[str]], workdir: Path, tag: str):
    src, out = workdir / f"in_{tag}.csv", workdir / f"out_{tag}.csv"
    _write(src, case.header, rows, case.delimiter)
    argv = ["suppress", "--input", str(src), "--output", str(out), "--k", str(case.k),
            "--delimiter", case.delimiter]
    for b in case.combinations:
        argv += ["--combination", ",".join(b)]
    for c, w in case.weights.items():
        argv += ["--weight", f"{c}={w}"]
    if case.record_id is not None:
        argv += ["--record-id", case.record_id]
    if case.algorithm is not None:
        argv += ["--algorithm", case.algorithm]
    elif case.complete:
        argv.append("--complete")
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        rc = main(argv)
    return rc, stdout.getvalue(), stderr.getvalue(), out


def check_cli(case: Case, workdir: Path) -> Outcome:
    """Run the CLI on the case and on its shuffled rows; check both outputs."""
    result = Outcome()
    try:
        rc, stdout, stderr, out = _run_cli(case, case.rows, workdir, "a")
    except (Exception, SystemExit):  # noqa: BLE001 - a crash is what the fuzz counts
        result.crashes.append("cli: " + traceback.format_exc(limit=3))
        return result
    if len(case.rows) < case.k:
        if rc != 2 or "fewer than k" not in stderr:
            result.violations.append(f"cli: {len(case.rows)} < k records: rc {rc}, {stderr!r}")
        return result
    if rc != 0:
        target = result.false_refusals if rc == 2 else result.violations
        target.append(f"cli: rc {rc}: {stderr.strip()[:300]}")
        return result
    header, got = _read(out, case.delimiter)
    if header != case.header:
        result.violations.append("cli: the output header differs from the input's")
        return result
    if len(got) != len(case.rows) or any(len(r) != len(header) for r in got):
        result.violations.append(f"cli: {len(got)} output rows for {len(case.rows)} records")
        return result
    qi_pos = [header.index(c) for c in case.qis]
    other_pos = [j for j in range(len(header)) if j not in qi_pos]
    for i, (src_row, out_row) in enumerate(zip(case.rows, got, strict=True)):
        if any(src_row[j] != out_row[j] for j in other_pos):
            result.violations.append(f"cli: row {i}: a column outside the combinations changed")
    truth = [[(r[j] if r[j] != "" else MISSING) for j in qi_pos] for r in case.rows]
    published = [[(r[j] if r[j] != "" else None) for j in qi_pos] for r in got]
    result.violations += ["cli: " + v for v in release_violations(
        case.qis, truth, published, case.combinations if not case.complete else [case.qis],
        case.k)]
    summary = json.loads(stdout)
    with_suppression = sum(any(v is None for v in r) for r in published)
    if summary["records_with_suppression"] != with_suppression:
        result.violations.append("cli: records_with_suppression is wrong")
    # The same rows in another order: the same outcome per record (per record id, or per
    # distinct row content when there is none), written in the input's order.
    shuffled = [case.rows[i] for i in case.shuffle]
    rc2, _, stderr2, out2 = _run_cli(case, shuffled, workdir, "b")
    if rc2 != 0:
        result.violations.append(f"cli: the shuffled input gave rc {rc2}: {stderr2[:200]}")
        return result
    got2 = _read(out2, case.delimiter)[1]
    back = [None] * len(got2)
    for pos, i in enumerate(case.shuffle):
        back[i] = got2[pos]
    if case.record_id is not None:
        if back != got:
            result.violations.append("cli: shuffled rows give another output (record id)")
    else:
        a = Counter(zip(map(tuple, case.rows), map(tuple, got), strict=True))
        b = Counter(zip(map(tuple, case.rows), map(tuple, back), strict=True))
        if a != b:
            result.violations.append("cli: shuffled rows give another output")
        # identical rows in input order: the outcome of the j-th copy in the output only
        # depends on j, so rows are written in input order with one outcome per copy rank
    return result


# -- the core --------------------------------------------------------------------------------

def _core_frame(case: Case, rows: list[list[str]]) -> tuple[pd.DataFrame, dict[str, str]]:
    """QIs under safe names (the core's own internal names are tested by the CLI), missing
    cells as the missing label (what the CLI and the dbt models hand the core)."""
    names = {c: f"c{j}" for j, c in enumerate(case.qis)}
    data = {names[c]: [(r[case.header.index(c)] or MISSING) for r in rows] for c in case.qis}
    frame = pd.DataFrame(data, dtype=object)
    frame["rid"] = [f"r{i:04d}" for i in range(len(rows))]
    return frame, names


def _core_release(case: Case, frame: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    result = run_suppression(
        frame, case.k, [[names[c] for c in b] for b in case.combinations],
        {names[c]: w for c, w in case.weights.items()},
        algorithm=case.algorithm_name, count_column=None,
        record_key="rid",
    )
    t = result.table
    cols = [names[c] for c in case.qis]
    codes = np.empty((len(frame), len(cols)), dtype=np.int64)
    codes[t.origin] = t.codes[:, [t.col(c) for c in cols]]
    out = {}
    for q, c in enumerate(cols):
        labels = np.append(t.labels[t.col(c)].astype(object), None)
        out[c] = labels[codes[:, q]]
    published = pd.DataFrame(out, dtype=object)
    published["rid"] = frame["rid"].to_numpy()
    return published


def _apply_map(frame: pd.DataFrame, smap: pd.DataFrame, cols: list[str]) -> list[list]:
    """The suppression map applied the way the SQL does: records of a pattern numbered by
    record id, a map row's flags applying to ranks rank_from..rank_to (plain loops)."""
    rank: dict[tuple, int] = {}
    ranks = []
    for i in sorted(range(len(frame)), key=lambda i: frame["rid"].iloc[i]):
        key = tuple(frame[c].iloc[i] for c in cols)
        rank[key] = rank.get(key, 0) + 1
        ranks.append((i, rank[key]))
    by_rank = dict(ranks)
    out = []
    for i in range(len(frame)):
        values = [frame[c].iloc[i] for c in cols]
        hits = [m for m in smap.itertuples(index=False)
                if [getattr(m, c) for c in cols] == values
                and m.rank_from <= by_rank[i] <= m.rank_to]
        if len(hits) > 1:
            raise AssertionError("two map rows apply to one record")
        if hits:
            flags = [bool(getattr(hits[0], f"{c}__suppressed")) for c in cols]
            values = [None if f else v for v, f in zip(values, flags, strict=True)]
        out.append(values)
    return out


def check_core(case: Case) -> Outcome:
    """Record mode (record key = id) and pattern mode (the suppression map), each against the
    independent checker and against the shuffled case."""
    result = Outcome()
    frame, names = _core_frame(case, case.rows)
    cols = [names[c] for c in case.qis]
    combos = [[names[c] for c in b] for b in case.combinations]
    checked = combos if not case.complete else [cols]
    try:
        published = _core_release(case, frame, names)
    except DataError as exc:
        if len(case.rows) >= case.k:
            result.false_refusals.append(f"core: {exc}")
        return result
    except Exception:  # noqa: BLE001
        result.crashes.append("core: " + traceback.format_exc(limit=3))
        return result
    if len(case.rows) < case.k:
        result.violations.append("core: released fewer than k records")
        return result
    truth = frame[cols].to_numpy(dtype=object).tolist()
    pub_rows = published[cols].to_numpy(dtype=object).tolist()
    result.violations += ["core: " + v for v in release_violations(
        cols, truth, pub_rows, checked, case.k)]
    try:
        shuffled = frame.iloc[case.shuffle].reset_index(drop=True)
        again = _core_release(case, shuffled, names).sort_values("rid").reset_index(drop=True)
        if not again.equals(published.sort_values("rid").reset_index(drop=True)):
            result.violations.append("core: shuffled records give another release")
        # pattern mode, as the dbt model runs it: the map must not depend on the pattern
        # table's row order, and applied by record id it must give a release that holds
        patterns = frame[cols].value_counts(dropna=False).reset_index(name="n")
        smaps = []
        for p in (patterns, patterns.iloc[_reverse_half(len(patterns))]):
            res = run_suppression(
                p.reset_index(drop=True), case.k, combos,
                {names[c]: w for c, w in case.weights.items()},
                algorithm=case.algorithm_name, count_column="n",
            )
            smaps.append(res.suppression_map().drop(columns="pattern_index")
                         .sort_values([*cols, "rank_from"]).reset_index(drop=True))
        if not smaps[0].equals(smaps[1]):
            result.violations.append("core: the suppression map depends on the pattern order")
        mapped = _apply_map(frame, smaps[0], cols)
        result.violations += ["core map: " + v for v in release_violations(
            cols, truth, mapped, checked, case.k)]
    except Exception:  # noqa: BLE001
        result.crashes.append("core: " + traceback.format_exc(limit=3))
    return result


def _reverse_half(n: int) -> list[int]:
    """A fixed reordering of n rows (second half reversed, then the first half)."""
    return list(range(n - 1, n // 2 - 1, -1)) + list(range(n // 2))


def check_case(case: Case) -> Outcome:
    outcome = check_core(case)
    with tempfile.TemporaryDirectory() as tmp:
        outcome.extend(check_cli(case, Path(tmp)))
    return outcome
