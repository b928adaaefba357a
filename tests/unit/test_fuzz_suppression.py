"""Property-based tests of the suppression (issue 13, "a fuzz suite the project owns").

Hypothesis draws small random tables (``fuzz/suppress_cases.py``: missing cells, unicode,
quotes, delimiters and line breaks, columns named ``n``, ``rank_from``, ``<qi>__suppressed``,
overlapping combinations, weights, k, a record id or none) and runs them through the core and
the CLI; ``tests/independent_check.py`` checks every output (own-category classes including the
fully suppressed class and exact consistent sets reach k, row counts, columns outside the
combinations unchanged, a missing value never shown as anything but the missing label or a
suppressed cell) and the same rows shuffled must give the same release. A table with k records
must never be refused. The profile is derandomized (the same examples in every run, so CI is
deterministic); ``fuzz/fuzz_suppress.py`` runs thousands of cases from a seed.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.suppress_cases import Case, DrawChooser, check_case, check_core, make_case

settings.register_profile(
    "dbt_deid", derandomize=True, deadline=None, database=None, print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PROFILE = settings.get_profile("dbt_deid")


@st.composite
def cases(draw) -> Case:
    return make_case(DrawChooser(draw, st.integers))


def _report(case: Case, outcome) -> str:
    lines = outcome.violations + outcome.false_refusals + outcome.crashes
    return case.describe() + "\n" + "\n".join(lines)


@settings(PROFILE, max_examples=200)
@given(cases())
def test_core_releases_hold_the_guarantee(case: Case) -> None:
    outcome = check_core(case)
    assert outcome.ok, _report(case, outcome)


@settings(PROFILE, max_examples=150)
@given(cases())
def test_cli_and_core_release_hold_the_guarantee(case: Case) -> None:
    outcome = check_case(case)
    assert outcome.ok, _report(case, outcome)


@settings(PROFILE, max_examples=150)
@given(cases())
def test_mask_cover_releases_hold_the_guarantee(case: Case) -> None:
    """The same cases with algorithm mask_cover (dbt_deid.mask_cover), core and CLI."""
    case.algorithm, case.complete = "mask_cover", False
    outcome = check_case(case)
    assert outcome.ok, _report(case, outcome)


@settings(PROFILE, max_examples=60)
@given(st.lists(st.sampled_from(["a", "b", "c"]), min_size=2, max_size=12),
       st.integers(2, 12))
def test_one_column_tables_are_never_refused(values: list[str], k: int) -> None:
    """A table of k or more records always has a release (at worst everything suppressed)."""
    case = Case(header=["q"], rows=[[v] for v in values], qis=["q"], combinations=[["q"]],
                k=k, shuffle=list(range(len(values)))[::-1])
    outcome = check_case(case)
    assert outcome.ok, _report(case, outcome)
