"""Property-based tests of the refresh (issue 32): random small release lines
(``fuzz/refresh_cases.py``: records added, deleted and changed between versions, overlapping
combinations, weights, k) are published version by version and checked by
``tests/combined_view_check.py``: each version alone, the combined view of all versions counted
by person (review 19, F1: each record once with every cell any version revealed) and the
changed records linked across versions hold k, and no kept record's suppressed cell is ever
revealed. Day 1 with k records or more always publishes. Derandomized (the same examples in
every run); ``fuzz/fuzz_refresh.py`` runs hundreds of lines from a seed."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.refresh_cases import DrawChooser, LineCase, check_line, make_line_case

PROFILE = settings(derandomize=True, deadline=None, database=None, print_blob=False,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def lines(draw) -> LineCase:
    return make_line_case(DrawChooser(draw, st.integers))


@settings(PROFILE, max_examples=40)
@given(lines())
def test_every_published_version_holds_k_alone_combined_and_linked(case: LineCase) -> None:
    problems, _refused = check_line(case)
    assert not problems, case.describe() + "\n" + "\n".join(problems)
