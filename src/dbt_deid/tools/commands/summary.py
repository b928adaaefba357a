"""``python -m dbt_deid summary``: print a built release's risk summary and information loss.

Reads the tables the release models wrote (``deid_diagnostics``: its ``risk_summary`` and
``information_loss`` rows; the settings rows of ``deid_release_plan`` and the row counts of the
source and ``deid_published``) from a
DuckDB database file (``--database``) or, on any engine, through the dbt project's own adapter
(``--project-dir``, with ``--profiles-dir`` and ``--target`` as dbt takes them). Figures only:
no quasi-identifier values are printed.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from dbt_deid.errors import DataError
from dbt_deid.sql_names import quote_relation


def _fmt_share(x: float | None) -> str:
    return "-" if x is None else f"{100 * float(x):.2f}%"


#: Tables the publish models write in the target schema; every other release table is in the
#: working schema (``<schema>_deid_work`` by default, the package's dbt_project.yml).
PUBLISHED_TABLES = frozenset({
    "deid_published", "deid_release_history", "deid_claims_published_patients",
    "deid_claims_published_claims", "deid_text_published",
})


#: The discharge release's tables: an extra release of var ``deid_releases`` has them as
#: ``<release>__<table>`` (docs/projects.md, "Several releases in one project").
RELEASE_TABLES = frozenset({
    "deid_published", "deid_diagnostics", "deid_release_plan",
    "deid_gate_results", "deid_algorithm_comparison",
})


def release_prefix(tables: set[str], default_release: str | None, release: str | None) -> str:
    """The table-name prefix of discharge release ``release`` (None: the default one): ``""``
    for the default release (var ``deid_release``), ``"<release>__"`` for an extra one; an
    unknown name is an error listing the releases built."""
    if release is None or release == default_release:
        return ""
    if f"{release}__deid_release_plan" in tables:
        return f"{release}__"
    built = sorted({t.split("__", 1)[0] for t in tables if t.endswith("__deid_release_plan")})
    known = ([default_release] if default_release else []) + built
    raise DataError(f"release {release!r} is not built in this database (--release); releases"
                    f" built: {', '.join(known) or 'none'}")


class SummaryReader(Protocol):
    """What the summary reads: names of tables and columns, quoted relations, rows."""

    def relation(self, schema: str, table: str) -> str: ...

    def tables(self, schemas: tuple[str, ...]) -> set[tuple[str, str]]: ...

    def columns(self, schema: str, table: str) -> set[str]: ...

    def rows(self, sql: str) -> list[tuple]: ...


def _literal(value: str) -> str:
    return "'" + str(value).replace("'", "''") + "'"


class DuckDBReader:
    """Read-only queries on a DuckDB file (the reader of ``--database``)."""

    def __init__(self, path: Path) -> None:
        import duckdb

        self.con = duckdb.connect(str(path), read_only=True)

    def relation(self, schema: str, table: str) -> str:
        return quote_relation(schema, table)

    def tables(self, schemas: tuple[str, ...]) -> set[tuple[str, str]]:
        listed = ", ".join(_literal(x) for x in schemas)
        return set(self.con.execute(
            "select table_schema, table_name from information_schema.tables"
            f" where table_schema in ({listed})").fetchall())

    def columns(self, schema: str, table: str) -> set[str]:
        return {r[0].lower() for r in self.con.execute(
            "select column_name from information_schema.columns where table_schema = ?"
            " and table_name = ?", [schema, table]).fetchall()}

    def rows(self, sql: str) -> list[tuple]:
        return self.con.execute(sql).fetchall()


def render_summary(
    database: str | Path, schema: str = "main", work_schema: str | None = None,
    release: str | None = None,
) -> str:
    """The summary text of the release in ``database`` (a DuckDB file): published tables in
    ``schema``, working tables in ``work_schema`` (default ``<schema>_deid_work``).
    ``release`` names a discharge release (default: the one of var ``deid_release``; an extra
    one of ``deid_releases`` reads its ``<release>__`` tables, and the claims and text
    sections, one per project, are left out)."""
    path = Path(database)
    if not path.exists():
        raise FileNotFoundError(f"database {str(path)!r} does not exist; run the release first")
    reader = DuckDBReader(path)
    try:
        return render_with(reader, schema, work_schema, release, str(path))
    finally:
        reader.con.close()


def render_summary_dbt(project_dir: str | Path, profiles_dir: str | Path | None = None,
                       target: str | None = None, schema: str | None = None,
                       work_schema: str | None = None, release: str | None = None) -> str:
    """The summary of the release a dbt project built, read through its profile's adapter
    (any engine; ``schema`` default: the target's)."""
    from dbt_deid.dbt_side.engine.history_reader import open_project

    with open_project(project_dir, profiles_dir, target) as reader:
        schema = schema or reader.schema
        return render_with(reader, schema, work_schema, release,
                           f"the {reader.engine} target")


def _has_settings(reader: SummaryReader, schema: str, table: str) -> bool:
    """True when the release plan ``schema.table`` has the settings rows' columns (a plan built
    since 0.3.0; the settings were the table ``deid_release_parameters`` before)."""
    return {"setting", "value"} <= reader.columns(schema, table)


def _plan_settings_md5(reader: SummaryReader, t: Callable[[str], str],
                       cols: Callable[[str], set[str]]) -> str | None:
    """The settings md5 the plan's settings rows record (None for a plan without it)."""
    if "settings_md5" not in cols("deid_release_plan"):
        return None
    got = reader.rows(f"select max(settings_md5) from {t('deid_release_plan')}"
                      " where kind = 'setting'")
    return got[0][0] if got else None


def _checked_settings_md5(reader: SummaryReader, t: Callable[[str], str],
                          cols: Callable[[str], set[str]], tables: set[str],
                          release: str | None) -> tuple[str, str] | None:
    """(what, md5): the settings md5 the gate lines were computed with (the gate table's), or,
    without a gate table, the latest attempt's in the history; None when neither records one
    (review 12, M1: the plan's settings rows must be those)."""
    if "deid_gate_results" in tables and "settings_md5" in cols("deid_gate_results"):
        got = reader.rows(f"select max(settings_md5) from {t('deid_gate_results')}")
        if got and got[0][0] is not None:
            return "the gate table", str(got[0][0])
    if "deid_release_history" in tables and release is not None:
        kinds = cols("deid_release_history")
        if "settings_md5" in kinds:
            only = (" and coalesce(release_kind, 'discharge') = 'discharge'"
                    if "release_kind" in kinds else "")
            got = reader.rows(
                f"select settings_md5 from {t('deid_release_history')}"
                f" where release_name = {_literal(release)}{only}"
                " order by recorded_at desc limit 1")
            if got and got[0][0] is not None:
                return "the last publish attempt", str(got[0][0])
    return None


def render_with(reader: SummaryReader, schema: str, work_schema: str | None,
                release: str | None, where_built: str) -> str:
    """The summary text, read with ``reader`` (DuckDBReader or the adapter's reader)."""
    work = work_schema or f"{schema}_deid_work"
    path = where_built

    prefix = ""

    def published_table(name: str) -> bool:
        return name.split("__", 1)[-1] in PUBLISHED_TABLES

    def where(name: str) -> str:
        return schema if published_table(name) else work

    def t(name: str) -> str:  # the schema is the caller's: quoted, never pasted into SQL
        full = prefix + name if name in RELEASE_TABLES else name
        return reader.relation(where(full), full)

    found = reader.tables((schema, work))
    all_tables = {n for s, n in found if s == (schema if published_table(n) else work)}
    default_release = None
    if "deid_release_plan" in all_tables and _has_settings(reader, work, "deid_release_plan"):
        got = reader.rows(
            f"select value from {reader.relation(work, 'deid_release_plan')}"
            " where kind = 'setting' and setting = 'release'")
        default_release = got[0][0] if got else None
    prefix = release_prefix(all_tables, default_release, release)
    tables = {n[len(prefix):] if n.startswith(prefix) and n[len(prefix):] in RELEASE_TABLES
              else n for n in all_tables if not prefix or n.startswith(prefix)
              or n == "deid_release_history"}
    for needed in ("deid_diagnostics", "deid_release_plan"):
        if needed not in tables:
            raise DataError(
                f"table {where(needed)}.{prefix}{needed} is missing from {path}; build the"
                " release"
            )
    if not _has_settings(reader, work, prefix + "deid_release_plan"):
        raise DataError(
            f"table {work}.{prefix}deid_release_plan has no settings rows (built by an earlier"
            f" dbt_deid, which wrote them to deid_release_parameters); build the release")
    params = dict(reader.rows(
        f"select setting, value from {t('deid_release_plan')} where kind = 'setting'"
        " order by item"
    ))
    def cols(name: str) -> set[str]:
        full = prefix + name if name in RELEASE_TABLES else name
        return reader.columns(where(full), full)

    checked = _checked_settings_md5(reader, t, cols, tables, params.get("release"))
    plan_md5 = _plan_settings_md5(reader, t, cols)
    lines = [
        f"Release {params.get('release')}: algorithm {params.get('algorithm')},"
        f" tau = {params.get('tau')} (k = {params.get('k')}),"
        f" MaxSup = {_fmt_share(float(params.get('max_suppression', 1)))}",
    ]
    if checked is not None and plan_md5 != checked[1]:
        # review 12, M1: a preview (`advise --vars`, `dbt run -s deid_release_plan --vars`)
        # rebuilt the plan, whose settings rows are the preview's, not the release's
        whose = ("a preview's" if plan_md5 else "an older plan's (no settings_md5: built by an"
                 " earlier dbt_deid)")
        lines[0] = ("Release settings NOT SHOWN: the settings rows of deid_release_plan are"
                    f" {whose} (settings_md5 {plan_md5 or 'none'}), not those {checked[0]}"
                    f" was computed with (settings_md5 {checked[1]}): a preview such as"
                    " `python -m dbt_deid advise --vars ...` rebuilt the plan; rebuild the"
                    " release (dbt build -s +deid_published) to show them. The preview's: "
                    + lines[0])
    published = "deid_published" in tables
    if "deid_gate_results" in tables:
        gate_columns = cols("deid_gate_results")
        gates = reader.rows(
            f"select gate, passed, message from {t('deid_gate_results')} order by gate_order"
        )
        failed = [g for g, ok, _ in gates if not ok]
        # review 12, L2: the gates the table was computed to hold (gate_set), so a missing
        # one shows; a table without it was computed by an older dbt_deid
        expected: list[str] | None = None
        if "gate_set" in gate_columns:
            got = reader.rows(f"select max(gate_set) from {t('deid_gate_results')}")
            expected = [g for g in str(got[0][0] or "").split(", ") if g] if got else None
        present = {g for g, _, _ in gates}
        missing = [g for g in expected or [] if g not in present]
        names = list(dict.fromkeys(g for g, _, _ in gates))
        passing = [g for g in names if g not in failed]
        # sample.order population_first: deid_gate_results (and every figure below) checks
        # the file drawn from the protected population, what is published
        population = str(params.get("sample", "")).endswith("order population_first")
        count = (f"{len(passing)} of {len(expected)} expected gates pass"
                 if expected is not None else
                 f"{len(passing)} of {len(names)} pass (the table records no gate set:"
                 " computed by an older dbt_deid, which the publish step refuses)")
        lines.append(
            ("Gates on the file drawn from the protected population (what is published): "
             if population else "Gates: ")
            + count
            + (f"; REFUSED, failed: {', '.join(dict.fromkeys(failed))}" if failed else "")
            + (f"; MISSING (no verdict, the publish step refuses): {', '.join(missing)}"
               if missing else "")
        )
        lines += [f"  {'ok  ' if ok else 'FAIL'} {msg}" for _, ok, msg in gates]
    if "deid_release_history" in tables:
        # the discharge release's attempts only (the claims and text releases write rows
        # too, with release_kind; rows from before that column are the discharge's)
        kinds = reader.columns(where("deid_release_history"), "deid_release_history")
        only = (" and coalesce(release_kind, 'discharge') = 'discharge'"
                if "release_kind" in kinds else "")
        got = reader.rows(
            f"select status, recorded_at, gates_failed from {t('deid_release_history')}"
            f" where release_name = {_literal(params.get('release'))}{only}"
            " order by recorded_at desc limit 1")
        last = got[0] if got else None
        if last is not None:
            lines.append(f"Last publish attempt {last[1]}: {last[0]}"
                         + (f" (failed: {last[2]})" if last[2] else ""))
    if published:
        n_pub = reader.rows(f"select count(*) from {t('deid_published')}")[0][0]
        lines.append(f"Published table {schema}.{prefix}deid_published: {n_pub} records")
    else:
        lines.append("Published table: NOT BUILT (a gate failed or the release did not run)")
    lines.append("")
    lines.append(
        "Risk per combination (prosecutor risk 1/f_j; suppressed value = own category)"
    )
    header = (f"  {'combination':<40} {'stage':<12} {'classes':>8} {'min f':>6} "
              f"{'max risk':>9} {'mean risk':>10} {'> tau':>8} {'exact min':>10}")
    lines.append(header)
    for row in reader.rows(
        f"select combination, stage, classes, smallest_class, max_risk, mean_risk,"
        f" share_above_tau, min_consistent_exact from {t('deid_diagnostics')}"
        f" where diagnostic = 'risk_summary' order by combination, stage"
    ):
        comb, stage, classes, small, max_risk, mean_risk, above, exact = row
        lines.append(
            f"  {comb:<40} {stage:<12} {classes:>8} {small:>6} {max_risk:>9.3f}"
            f" {mean_risk:>10.4f} {_fmt_share(above):>8} "
            f"{('-' if exact is None else int(exact)):>10}"
        )
    lines.append("")
    lines.append("Information loss (cells suppressed; records with a suppressed value)")
    lines.append("  entropy: non-uniform entropy in bits, original values -> published values"
                 " (generalization and suppression; El Emam et al. 2011 'Measuring Information"
                 " Loss')")
    lines.append(
        f"  {'column':<26} {'cells':>9} {'% cells':>8} {'% records':>10} {'entropy':>12}"
    )
    for row in reader.rows(
        f"select column_name, suppressed_cells, share_cells_suppressed,"
        f" share_records_with_suppression, non_uniform_entropy"
        f" from {t('deid_diagnostics')} where diagnostic = 'information_loss'"
        f" order by column_order"
    ):
        name, cells, share_cells, share_records, entropy = row
        lines.append(
            f"  {name:<26} {cells:>9} {_fmt_share(share_cells):>8}"
            f" {_fmt_share(share_records):>10} {entropy:>12.0f}"
        )
    if "deid_algorithm_comparison" in tables:
        lines.append("")
        lines.append("Combinations vs complete (El Emam et al. 2011 'Evaluation'; same pattern"
                     " table)")
        lines.append("  entropy bits: the suppression part only, generalized values ->"
                     " published values (so smaller than the entropy above)")
        lines.append(
            f"  {'algorithm':<21} {'% cells':>8} {'% records':>10} {'entropy bits':>13}"
            f" {'min f':>6} {'exact min':>10}"
        )
        compared = reader.rows(
            f"select algorithm, share_cells_suppressed, share_records_with_suppression,"
            f" suppression_entropy, smallest_class, min_consistent_exact, selected"
            f" from {t('deid_algorithm_comparison')}"
            f" where column_name = '(all quasi-identifiers)' order by algorithm desc"
        )
        if len(compared) == 1 and compared[0][6]:
            lines.append("  (a refresh of a release line: its own figures only, neither"
                         " algorithm run from scratch; docs/living-release.md)")
        for row in compared:
            alg, cells, recs, bits, small, exact, selected = row
            mark = " (used)" if selected else ""
            lines.append(
                f"  {alg + mark:<21} {_fmt_share(cells):>8} {_fmt_share(recs):>10}"
                f" {bits:>13.0f} {small:>6} {('-' if exact is None else exact):>10}"
            )
    if "deid_claims_lola" in tables and not prefix:
        lines.append("")
        lines.append("Claims release (LOLA, El Emam et al. 2012): bootstrap node evaluation")
        chosen = reader.rows(
            f"select node, mean, ci_low, ci_high, k, max_sup, lattice_size"
            f" from {t('deid_claims_lola')} where chosen"
        )
        evaluated = reader.rows(f"select count(*) from {t('deid_claims_lola')}")[0][0]
        if chosen:
            node, mean, lo, hi, k_c, max_sup, size = chosen[0]
            lines.append(
                f"  chosen node {node} (levels age, days in hospital, LOS, days since first"
                f" claim): high-risk share {mean:.3f} [95% {lo:.3f}, {hi:.3f}]"
                f" <= MaxSup {max_sup}; k = {k_c}; {evaluated} of {size} nodes evaluated"
            )
        else:
            lines.append(f"  no node passes ({evaluated} nodes evaluated)")
        if "deid_claims_attack" in tables:
            for rate, tau_a, passed, marketer in reader.rows(
                f"select success_rate, attack_tau, passed, marketer_risk"
                f" from {t('deid_claims_attack')}"
            ):
                lines.append(
                    f"  simulated attack 1 success {rate:.3f} (bar {tau_a},"
                    f" {'pass' if passed else 'FAIL'}); marketer risk {marketer:.4f}"
                )
        for name in ("deid_claims_published_patients", "deid_claims_published_claims"):
            if name in tables:
                n = reader.rows(f"select count(*) from {t(name)}")[0][0]
                lines.append(f"  {name}: {n} rows")
            else:
                lines.append(f"  {name}: NOT BUILT")
    if "deid_text_risk_assessment" in tables and not prefix:
        lines.append("")
        lines.append("Text release (Scaiano et al. 2016): probability of re-identification,"
                     " 95% interval")
        lines.append(
            f"  {'measure':<18} {'mean':>9} {'lower':>9} {'upper':>9} {'limit':>9}  gate"
        )
        for row in reader.rows(
            f"select measure, mean, lower, upper, \"limit\", passed"
            f" from {t('deid_text_risk_assessment')} order by measure"
        ):
            measure, mean, lower, upper, limit, passed = row
            gate = "-" if passed is None else ("pass" if passed else "FAIL")
            lim = "-" if limit is None else f"{limit:.5f}"
            lines.append(
                f"  {measure:<18} {mean:>9.5f} {lower:>9.5f} {upper:>9.5f} {lim:>9}  {gate}"
            )
        published = "deid_text_published" in tables
        lines.append(f"  deid_text_published: {'built' if published else 'NOT BUILT'}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if (args.database is None) == (args.project_dir is None):
        raise DataError("summary reads --database FILE (a DuckDB file) or --project-dir DIR"
                        " (any engine, through the project's dbt profile): give one of them")
    if args.database is not None:
        text = render_summary(args.database, args.schema or "main", args.work_schema,
                              args.release)
    else:
        text = render_summary_dbt(args.project_dir, args.profiles_dir, args.target,
                                  args.schema, args.work_schema, args.release)
    print(text)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("summary", help="print a built release's risk summary and information loss",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--database", help="the DuckDB file the release was built in")
    p.add_argument("--project-dir", help="or: the dbt project, read through its profile's"
                   " adapter (any engine)")
    p.add_argument("--profiles-dir", help="with --project-dir: where profiles.yml is")
    p.add_argument("--target", help="with --project-dir: the profile's target")
    p.add_argument("--schema", default=None,
                   help="schema of the published tables (default main for --database, the"
                        " target's schema for --project-dir)")
    p.add_argument("--work-schema", default=None,
                   help="schema of the working tables (default <schema>_deid_work)")
    p.add_argument("--release", default=None,
                   help="the discharge release to summarize, by name (default: the project's"
                        " deid_release; an extra release of deid_releases reads its"
                        " <release>__ tables)")
    p.set_defaults(func=run)
