"""`python -m dbt_deid summary` shows the release's settings, not a preview's, and a missing gate
(review 12, M1 and L2).

M1: the settings rows live in the plan (deid_release_plan), which a preview rebuilds under other
vars (`python -m dbt_deid advise --vars ...`, `dbt run -s deid_release_plan --vars ...`); the
summary printed the preview's tau and k ("tau = 0.5 (k = 2)") above the gate lines computed at
the release's k = 5. Now, when the plan's settings_md5 is not the gate table's (or, without a
gate table, the last publish attempt's), the line says the settings shown are a preview's.
L2: "Gates: X of X pass" counted the rows found; the gate table records its gate set
(gate_set), and a gate without a verdict is shown as missing.

A DuckDB file written by hand with the columns the summary reads; no dbt run.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from dbt_deid.tools.commands.summary import render_summary

RELEASE_MD5 = "a" * 32
PREVIEW_MD5 = "b" * 32
GATES = ["upstream_built", "input_unchanged", "released_levels", "propagation", "plan_settings",
         "k_anonymity"]


def _database(tmp_path: Path, plan_md5: str | None, gates: list[str], gate_set: bool = True,
              tau: str = "0.2", k: str = "5") -> Path:
    db = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("create schema main_deid_work")
        con.execute("create table main_deid_work.deid_release_plan (kind varchar, item int,"
                    " position int, column_name varchar, setting varchar, value varchar,"
                    " settings_md5 varchar, plan_format bigint)")
        for i, (setting, value) in enumerate([("release", "patients"),
                                              ("algorithm", "combinations"), ("tau", tau),
                                              ("k", k), ("max_suppression", "0.05")], 1):
            con.execute("insert into main_deid_work.deid_release_plan values"
                        " ('setting', ?, 0, null, ?, ?, ?, 1)", [i, setting, value, plan_md5])
        con.execute("create table main_deid_work.deid_diagnostics (diagnostic varchar,"
                    " combination varchar, stage varchar, classes bigint, smallest_class bigint,"
                    " max_risk double, mean_risk double, share_above_tau double,"
                    " min_consistent_exact bigint, column_name varchar, suppressed_cells bigint,"
                    " share_cells_suppressed double, share_records_with_suppression double,"
                    " non_uniform_entropy double, column_order int)")
        con.execute("insert into main_deid_work.deid_diagnostics values ('risk_summary',"
                    " 'age+sex', 'published', 12, 5, 0.2, 0.05, 0.0, 6, null, null, null, null,"
                    " null, null)")
        con.execute("create table main_deid_work.deid_gate_results (gate_order int,"
                    " gate varchar, passed boolean, message varchar, settings_md5 varchar"
                    + (", gate_set varchar" if gate_set else "") + ")")
        for i, g in enumerate(gates, 1):
            con.execute("insert into main_deid_work.deid_gate_results values (?, ?, true,"
                        " ?, ?" + (", ?" if gate_set else "") + ")",
                        [i, g, f"{g}: every class at least k = 5", RELEASE_MD5]
                        + ([", ".join(GATES)] if gate_set else []))
    return db


def test_the_release_settings_are_shown(tmp_path) -> None:
    out = render_summary(_database(tmp_path, RELEASE_MD5, GATES))
    assert out.startswith("Release patients: algorithm combinations, tau = 0.2 (k = 5),"
                          " MaxSup = 5.00%")
    assert f"Gates: {len(GATES)} of {len(GATES)} expected gates pass" in out
    assert "MISSING" not in out and "NOT SHOWN" not in out


def test_a_preview_plan_settings_are_not_shown_as_the_release(tmp_path) -> None:
    """The plan rebuilt by a preview with tau 0.5 (k = 2); the gate table computed at k = 5.
    The old summary printed "Release patients: algorithm combinations, tau = 0.5 (k = 2),
    MaxSup = 5.00%" as the release's, above the gate lines at k = 5."""
    out = render_summary(_database(tmp_path, PREVIEW_MD5, GATES, tau="0.5", k="2"))
    print(out.splitlines()[0])
    assert not out.startswith("Release patients: algorithm combinations, tau = 0.5")
    first = out.splitlines()[0]
    assert first.startswith("Release settings NOT SHOWN: the settings rows of deid_release_plan"
                            f" are a preview's (settings_md5 {PREVIEW_MD5}), not those the gate"
                            f" table was computed with (settings_md5 {RELEASE_MD5})")
    assert "dbt build -s +deid_published" in first


def test_a_missing_gate_is_shown(tmp_path) -> None:
    """The propagation row deleted: the old summary said "Gates: 5 of 5 pass"."""
    out = render_summary(_database(tmp_path, RELEASE_MD5,
                                   [g for g in GATES if g != "propagation"]))
    print([line for line in out.splitlines() if line.startswith("Gates")])
    assert f"Gates: {len(GATES) - 1} of {len(GATES)} expected gates pass; MISSING (no verdict,"\
        " the publish step refuses): propagation" in out


def test_a_gate_table_without_a_gate_set_says_so(tmp_path) -> None:
    out = render_summary(_database(tmp_path, RELEASE_MD5, GATES, gate_set=False))
    assert f"Gates: {len(GATES)} of {len(GATES)} pass (the table records no gate set: computed" \
        " by an older dbt_deid, which the publish step refuses)" in out


def test_a_plan_without_a_settings_md5_is_called_an_older_plan(tmp_path) -> None:
    """A plan an earlier dbt_deid built (no settings_md5) beside a gate table of this one: the
    settings are not shown, and the line calls it an older plan, not a preview (review 12 final,
    L3: it said "a preview's (settings_md5 none)")."""
    first = render_summary(_database(tmp_path, None, GATES)).splitlines()[0]
    assert first.startswith("Release settings NOT SHOWN: the settings rows of deid_release_plan"
                            " are an older plan's (no settings_md5: built by an earlier"
                            " dbt_deid) (settings_md5 none)"), first
