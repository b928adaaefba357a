"""The release configuration: one documented shape, validated before any work.

A release (El Emam et al. 2011, "Combinations Suppression Algorithm") declares the source, the
direct identifiers to drop, the quasi-identifiers (QIs) with their hierarchy and released level, the
weights w[z_b] in [0, 1], the QI combinations B to protect, the threshold tau with
k = ceil(1/tau), MaxSup (El Emam et al. 2012: the largest share of records allowed to carry a
suppressed QI) and optional per-column suppression caps (El Emam et al. 2009 (CJHP) used 15%).

The same dictionary is read by the dbt macros (``macros/config/release_config.sql``) and by
this module; the names, defaults and allowed values of both come from one definition,
:mod:`dbt_deid.settings_schema`. Every bad value raises one :class:`ConfigError` naming the
setting; an unknown name is an error with a suggestion.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dbt_deid import settings_schema as schema
from dbt_deid.attribute_remedy import check_remedy
from dbt_deid.errors import ConfigError
from dbt_deid.families import (
    Family,
    check_unchecked_levels,
    generate_combinations,
    parse_family,
    propagation_pairs,
    released_order,
)
from dbt_deid.settings_check import check_value, describe
from dbt_deid.tau import k_from_population, k_from_tau

ALGORITHMS = tuple(schema.ALGORITHMS)
RULES = tuple(schema.RULE_TYPES)
DATE_UNITS = tuple(schema.DATE_UNITS)
DEFAULT_MISSING_LABEL = schema.default("release", "missing_label")


def _population_k(raw: Mapping[str, Any]) -> int | None:
    """k from ``population_threshold`` F_j and ``sampling_fraction`` alpha (El Emam et al. 2012 eq.
    3, k = ceil(alpha F_j), under its large-sample assumption, or with ``population_estimator:
    truncated_poisson`` the smallest sample class whose truncated-Poisson estimate of F_j
    reaches the threshold; see :func:`dbt_deid.tau.k_from_population`); None when no
    population_threshold."""
    f = raw.get("population_threshold")
    if f is None:
        return None
    if raw.get("tau") is not None or raw.get("k") is not None:
        raise ConfigError(
            "population_threshold: give either population_threshold with sampling_fraction,"
            " or tau / k, not both"
        )
    if not isinstance(f, int) or isinstance(f, bool) or f < 1:
        raise ConfigError(
            f"population_threshold must be an integer >= 1 (the smallest population class size"
            f" F_j allowed), got {f!r}"
        )
    alpha = raw.get("sampling_fraction")
    if alpha is None:
        raise ConfigError("sampling_fraction is required with population_threshold"
                          " (k = ceil(sampling_fraction x population_threshold))")
    alpha = _fraction(alpha, "sampling_fraction", open_low=True)
    estimator = schema.check_allowed("", raw.get("population_estimator"), "release",
                                     "population_estimator")
    return k_from_population(f, alpha, estimator)


def _fraction(value: Any, setting: str, *, open_low: bool = False) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not ok or not (0 < value <= 1 if open_low else 0 <= value <= 1):
        interval = "(0, 1]" if open_low else "[0, 1]"
        raise ConfigError(f"{setting} must be a number in {interval}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class QuasiIdentifier:
    """One QI: its source column, how it is generalized, and its suppression weight."""

    name: str
    level: int = 0
    weight: float = 1.0
    hierarchy: str | None = None
    rule: Mapping[str, Any] | None = None
    suppression_cap: float | None = None
    derived_from: str | None = None
    column: str | None = None

    @property
    def source_column(self) -> str:
        """The source column this QI is computed from (several QIs may share one)."""
        return self.column or self.name


@dataclass(frozen=True)
class ReleaseConfig:
    """A validated release. ``k`` is always set (given directly or as ceil(1/tau))."""

    name: str
    quasi_identifiers: Mapping[str, QuasiIdentifier]
    combinations: tuple[tuple[str, ...], ...]
    k: int
    tau: float
    max_suppression: float = 1.0
    algorithm: str = "combinations"
    source: str | None = None
    record_id: str | None = None
    direct_identifiers: tuple[str, ...] = ()
    pass_through: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    sensitive: tuple[str, ...] = ()
    missing_label: str = DEFAULT_MISSING_LABEL
    families: tuple[Family, ...] = ()
    demographics: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def qi_names(self) -> list[str]:
        return list(self.quasi_identifiers)

    @property
    def weights(self) -> dict[str, float]:
        return {n: q.weight for n, q in self.quasi_identifiers.items()}

    @property
    def caps(self) -> dict[str, float]:
        return {
            n: q.suppression_cap
            for n, q in self.quasi_identifiers.items()
            if q.suppression_cap is not None
        }

    def protected_combinations(self) -> list[tuple[str, ...]]:
        """The combinations the suppression works on: B, or one combination of all QIs used
        in B when the algorithm is "complete" (El Emam et al. 2011, "Evaluation")."""
        if self.algorithm == "complete":
            used = [q for q in self.qi_names if any(q in c for c in self.combinations)]
            return [tuple(used)]
        return list(self.combinations)

    def verified_combinations(self) -> list[tuple[str, ...]]:
        """Every combination an adversary may know, checked by the gates after propagation:
        the declared/generated combinations plus, for hierarchical QIs, demographics x each
        level at or above the suppression level (levels covered by propagation included)."""
        combos = list(self.combinations)
        if self.families and self.explicit_combinations is None:
            combos = generate_combinations(self.demographics, self.families, verified=True)
        return list(dict.fromkeys(combos))

    @property
    def explicit_combinations(self) -> Any:
        return self.extra.get("_explicit_combinations")

    def propagation(self) -> list[tuple[str, str]]:
        """(source, target) suppression propagation pairs of the hierarchical QIs (every other
        released level over a verified or checked level's source column is among its targets:
        review r11 F2, r11b F3)."""
        columns = {n: q.source_column.lower() for n, q in self.quasi_identifiers.items()}
        checked = {q for b in self.verified_combinations() for q in b} if self.families else set()
        return propagation_pairs(self.families, columns, checked)

    def released_qis(self) -> list[str]:
        """QIs in the published table (family levels finer than M are not released)."""
        return released_order(self.families, self.qi_names)


def _validate_rule(qi: str, rule: Any) -> dict[str, Any]:
    setting = f"quasi_identifiers.{qi}.rule"
    if not isinstance(rule, Mapping) or rule.get("type") not in RULES:
        raise ConfigError(f"{setting} must be a mapping with type one of {RULES}, got {rule!r}")
    schema.check_names(setting, rule, "rule")
    levels = rule.get("levels")
    if not isinstance(levels, Sequence) or isinstance(levels, str) or not levels:
        raise ConfigError(f"{setting}.levels must be a non-empty list, got {levels!r}")
    for i, lv in enumerate(levels, start=1):
        where = f"{setting}.levels[{i}]"
        if not isinstance(lv, Mapping):
            raise ConfigError(f"{where} must be a mapping, got {lv!r}")
        schema.check_names(where, lv, schema.RULE_LEVEL_SECTION[rule["type"]])
        if rule["type"] == "interval":
            breaks = lv.get("breaks")
            if breaks is not None:
                ok = (
                    isinstance(breaks, Sequence) and not isinstance(breaks, str) and breaks
                    and all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in breaks)
                    and all(a < b for a, b in zip(breaks, breaks[1:], strict=False))
                )
                if not ok:
                    raise ConfigError(
                        f"{where}.breaks must be a non-empty list of increasing numbers"
                    )
            else:
                w = lv.get("width")
                if not isinstance(w, (int, float)) or isinstance(w, bool) or not w > 0:
                    raise ConfigError(
                        f"{where}.width must be a positive number (or give breaks), got"
                        f" {describe(w)}"
                    )
            for key in ("top_code", "bottom_code", "offset"):
                v = lv.get(key)
                if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool)):
                    raise ConfigError(f"{where}.{key} must be a number, got {v!r}")
            if lv.get("label", "range") not in ("range", "index", "lower"):
                raise ConfigError(f"{where}.label must be range, lower or index")
        elif rule["type"] == "prefix":
            n = lv.get("length")
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise ConfigError(f"{where}.length must be a non-negative integer, got {n!r}")
        elif lv.get("trunc") not in DATE_UNITS:
            raise ConfigError(f"{where}.trunc must be one of {DATE_UNITS}, got {lv.get('trunc')!r}")
    return dict(rule)


def _validate_qi(name: str, spec: Any) -> QuasiIdentifier:
    setting = f"quasi_identifiers.{name}"
    if spec is None:
        spec = {}
    if not isinstance(spec, Mapping):
        raise ConfigError(f"{setting} must be a mapping, got {spec!r}")
    schema.check_names(setting, spec, "quasi_identifier")
    level = spec.get("level", 0)
    if not isinstance(level, int) or isinstance(level, bool) or level < 0:
        raise ConfigError(f"{setting}.level must be a non-negative integer, got {level!r}")
    weight = _fraction(spec.get("weight", 1.0), f"{setting}.weight")
    hierarchy, rule = spec.get("hierarchy"), spec.get("rule")
    if hierarchy is not None and rule is not None:
        raise ConfigError(f"{setting}: give either hierarchy or rule, not both")
    if hierarchy is not None and (not isinstance(hierarchy, str) or not hierarchy):
        raise ConfigError(f"{setting}.hierarchy must be a model or seed name, got {hierarchy!r}")
    if rule is not None:
        rule = _validate_rule(name, rule)
        if level > len(rule["levels"]):
            raise ConfigError(
                f"{setting}.level is {level} but the rule defines {len(rule['levels'])} levels"
            )
    if hierarchy is None and rule is None and level != 0:
        raise ConfigError(f"{setting}.level is {level} but no hierarchy or rule is given")
    cap = spec.get("suppression_cap")
    if cap is not None:
        cap = _fraction(cap, f"{setting}.suppression_cap")
    column = spec.get("column")
    if column is not None and (not isinstance(column, str) or not column):
        raise ConfigError(f"{setting}.column must name a source column, got {column!r}")
    return QuasiIdentifier(
        name=name, level=level, weight=weight, hierarchy=hierarchy, rule=rule,
        suppression_cap=cap, derived_from=spec.get("derived_from"), column=column,
    )


#: Name prefixes of the columns the package adds next to the quasi-identifiers (and the
#: sensitive columns) in its pattern tables: the advice rows of ``deid_suppression_map`` and the
#: exact check's columns of ``deid_suppressed_patterns``. The dbt twin is
#: ``default__assert_release_names`` (review 13 final, L2 and L4).
RESERVED_PREFIXES = ("advice__", "deid_consistent_", "deid_exact_combinations")


def _check_reserved_names(qis: Mapping[str, Any], sensitive: Iterable[str]) -> None:
    """Raise ConfigError for a QI or sensitive column named like a column the package adds
    (:data:`RESERVED_PREFIXES`, ignoring case)."""
    named = [(f"quasi_identifiers.{q}", q) for q in qis]
    named += [("sensitive", str(c)) for c in sensitive]
    for setting, name in named:
        for prefix in RESERVED_PREFIXES:
            if name.lower().startswith(prefix):
                raise ConfigError(
                    f"{setting}: the name {name!r} starts with {prefix!r}, a column the package"
                    " adds to its pattern tables (names are compared ignoring case); give the"
                    " column another name")


def parse_release(raw: Mapping[str, Any], *, partial: bool = False) -> ReleaseConfig:
    """Validate a release mapping (the ``deid_release`` var) and return a ReleaseConfig.

    Raises ConfigError naming the first bad setting. ``partial`` accepts a release without its
    required settings (source, record_id, max_suppression): for the core's own uses that only
    run the algorithm (the CLI, benchmarks); a dbt release is always complete.
    """
    if not isinstance(raw, Mapping) or not raw:
        raise ConfigError("release must be a non-empty mapping (var deid_release)")
    schema.check_names("", raw, "release", require=not partial)
    for key in ("sample", "report", "small_areas", "generalization", "attribute_disclosure"):
        if raw.get(key) is not None:  # names and types of the sub-sections, as Jinja words them
            check_value("release", key, raw[key], schema.SECTIONS["release"][key])
    sample = raw.get("sample") or {}
    if ((sample.get("slot") or 0) + 1) * sample.get("fraction", 1) > 1.000000001:
        raise ConfigError(f"sample.slot must be an integer >= 0 with (slot + 1) x fraction <= 1,"
                          f" got {sample['slot']}")
    if isinstance(raw.get("sample"), Mapping):
        order = schema.check_allowed("sample", raw["sample"].get("order"), "sample", "order")
        if order == "population_first" and raw.get("population_threshold") is not None:
            # k = alpha F_j is a sample's k; the population is protected at F_j itself
            raise ConfigError(
                "sample.order: population_first protects the whole population, so its k is the"
                " population threshold itself: give tau or k, not population_threshold with"
                " sampling_fraction (which set the k of a sample)"
            )
    schema.check_allowed("", raw.get("population_estimator"), "release", "population_estimator")
    qis_raw = raw.get("quasi_identifiers")
    if not isinstance(qis_raw, Mapping) or not qis_raw:
        raise ConfigError("quasi_identifiers must be a non-empty mapping of column -> settings")
    qis = {str(n): _validate_qi(str(n), s) for n, s in qis_raw.items()}
    for q in qis.values():
        if q.derived_from is not None and q.derived_from not in qis:
            raise ConfigError(
                f"quasi_identifiers.{q.name}.derived_from names unknown QI {q.derived_from!r}"
            )

    fams_raw = raw.get("hierarchical_qis") or {}
    if not isinstance(fams_raw, Mapping):
        raise ConfigError("hierarchical_qis must be a mapping of family name -> settings")
    families = tuple(parse_family(str(n), f, list(qis)) for n, f in fams_raw.items())
    in_families = [lv for f in families for lv in f.levels]
    if len(set(in_families)) != len(in_families):
        raise ConfigError("hierarchical_qis: a quasi-identifier belongs to two families")
    demo_raw = raw.get("demographics")
    if demo_raw is None:
        demo_raw = [q for q in qis if q not in in_families]
    if isinstance(demo_raw, str) or not isinstance(demo_raw, Sequence):
        raise ConfigError("demographics must be a list of quasi-identifier names")
    for col in demo_raw:
        if col not in qis:
            raise ConfigError(f"demographics names unknown quasi-identifier {col!r}")
        if col in in_families:
            raise ConfigError(f"demographics lists {col!r}, a level of a hierarchical QI")
    explicit = raw.get("combinations")
    combos_raw = explicit
    if combos_raw is None:
        combos_raw = (
            [list(c) for c in generate_combinations(demo_raw, families)] if families
            else [list(qis)]
        )
    if not isinstance(combos_raw, Sequence) or isinstance(combos_raw, str) or not combos_raw:
        raise ConfigError("combinations must be a non-empty list of lists of QI names")
    combos: list[tuple[str, ...]] = []
    for i, c in enumerate(combos_raw, start=1):
        if isinstance(c, str) or not isinstance(c, Sequence) or not c:
            raise ConfigError(f"combinations[{i}] must be a non-empty list of QI names, got {c!r}")
        for col in c:
            if col not in qis:
                raise ConfigError(
                    f"combinations[{i}] names unknown column {col!r}; declared quasi-identifiers"
                    f" are {', '.join(qis)}"
                )
        if len(set(c)) != len(c):
            raise ConfigError(f"combinations[{i}] repeats a column: {list(c)}")
        combos.append(tuple(str(x) for x in c))

    tau_raw, k_raw = raw.get("tau"), raw.get("k")
    preset = raw.get("preset")
    pop_k = _population_k(raw)
    if pop_k is not None:
        tau_raw = 1.0 / pop_k
    if preset is not None:
        schema.check_allowed("", preset, "release", "preset")
        if tau_raw is None and k_raw is None:
            tau_raw = schema.PRESET_TAU[schema.PRESET_ALIASES.get(preset, preset)]
    if tau_raw is None and k_raw is None:
        raise ConfigError("give the threshold tau (k = ceil(1/tau)) or k")
    if tau_raw is not None:
        k = k_from_tau(tau_raw)
        if k_raw is not None and k_raw != k:
            raise ConfigError(f"k is {k_raw!r} but tau {tau_raw} gives k = ceil(1/tau) = {k}")
        tau = float(tau_raw)
    else:
        if not isinstance(k_raw, int) or isinstance(k_raw, bool):
            raise ConfigError(f"k must be an integer >= 2, got {describe(k_raw)}")
        k, tau = k_raw, 1.0 / k_raw if k_raw else 0.0
    if k < 2:
        pop = (f" (population_threshold {raw.get('population_threshold')} x sampling_fraction"
               f" {raw.get('sampling_fraction')})" if pop_k is not None else "")
        raise ConfigError(
            f"k must be >= 2 (tau < 1); got k = {k}{pop}: with k = 1 every record is its own class"
        )

    max_sup = _fraction(
        raw.get("max_suppression", 1.0 if partial else None), "max_suppression"
    )
    algorithm = schema.check_allowed("", raw.get("algorithm"), "release", "algorithm")

    caps = raw.get("column_suppression_cap")
    if caps is not None:
        if isinstance(caps, Mapping):
            for col, cap in caps.items():
                if col not in qis:
                    raise ConfigError(f"column_suppression_cap names unknown column {col!r}")
                qis[col] = _with_cap(qis[col], _fraction(cap, f"column_suppression_cap.{col}"))
        else:
            cap = _fraction(caps, "column_suppression_cap")
            qis = {n: q if q.suppression_cap is not None else _with_cap(q, cap)
                   for n, q in qis.items()}

    roles = column_roles(raw, qis)
    _check_shared_columns(qis, families)
    missing_label = raw.get("missing_label", DEFAULT_MISSING_LABEL)
    if not isinstance(missing_label, str) or not missing_label:
        raise ConfigError(f"missing_label must be a non-empty string, got {missing_label!r}")
    record_id = raw.get("record_id")

    _check_reserved_names(qis, roles["sensitive"])
    known = set(_DATACLASS_SETTINGS)
    extra = {key: v for key, v in raw.items() if key not in known}
    extra["_explicit_combinations"] = explicit
    cfg = ReleaseConfig(
        name=str(raw.get("name", "release")),
        quasi_identifiers=qis,
        combinations=tuple(combos),
        k=k,
        tau=tau,
        max_suppression=max_sup,
        algorithm=algorithm,
        source=raw.get("source"),
        record_id=record_id,
        direct_identifiers=roles["direct_identifiers"],
        pass_through=roles["pass_through"],
        excluded=roles["excluded"],
        sensitive=roles["sensitive"],
        missing_label=missing_label,
        families=families,
        demographics=tuple(demo_raw),
        extra=extra,
    )
    _check_protected(cfg)
    check_attribute_disclosure(raw)
    return cfg


def check_attribute_disclosure(raw: Mapping[str, Any]) -> None:
    """The attribute-disclosure settings relate to the sensitive columns (checked once, by the
    settings resolver the plan node runs): a sensitive column needs a model to gate it, a
    model needs a sensitive column, recursive_c and recursive_l go together, and ``ordered``
    and ``hierarchies`` name sensitive columns (one distance each) and need t, and the remedy
    fits (:func:`dbt_deid.attribute_remedy.check_remedy`)."""
    sensitive = [str(c).lower() for c in raw.get("sensitive") or []]
    spec = raw.get("attribute_disclosure") or {}
    models = [m for m in ("distinct_l", "entropy_l", "recursive_c", "t")
              if spec.get(m) is not None]
    if sensitive and not models:
        raise ConfigError(
            "attribute_disclosure: sensitive columns are declared but no model gates them; set"
            " distinct_l, entropy_l, recursive_c with recursive_l, or t (or make the columns"
            " pass_through if an adversary could not learn anything from them)")
    if models and not sensitive:
        raise ConfigError("attribute_disclosure: no sensitive column to gate; list them under"
                          " sensitive")
    if (spec.get("recursive_c") is None) != (spec.get("recursive_l") is None):
        raise ConfigError("attribute_disclosure: give recursive_c and recursive_l together"
                          " (recursive (c, l)-diversity)")
    ordered = [str(c).lower() for c in spec.get("ordered") or []]
    hierarchical = [str(c).lower() for c in (spec.get("hierarchies") or {})]
    for key, cols in (("ordered", ordered), ("hierarchies", hierarchical)):
        for col in cols:
            if col not in sensitive:
                raise ConfigError(f"attribute_disclosure.{key}: {col!r} is not a sensitive"
                                  " column")
        if cols and spec.get("t") is None:
            raise ConfigError(f"attribute_disclosure.{key}: a ground distance needs t"
                              " (t-closeness)")
    both = sorted(set(ordered) & set(hierarchical))
    if both:
        raise ConfigError(f"attribute_disclosure: {both[0]!r} is both ordered and hierarchical;"
                          " give one distance")
    generalization = raw.get("generalization") or {}
    sample = raw.get("sample") if isinstance(raw.get("sample"), Mapping) else {}
    check_remedy(spec, raw.get("algorithm"), generalization.get("suppression") != "records",
                 sample.get("order") == "population_first")


def _check_protected(cfg: ReleaseConfig) -> None:
    """Every released QI is in a verified combination: a QI that no combination covers would be
    published exactly, with no check at all (fail closed). A level of a hierarchical QI may be
    left out only where propagation protects it (El Emam et al. 2011 Table 4 publishes levels
    finer than the adversary's level Q "except when it generalizes to a suppressed value"):
    :func:`dbt_deid.families.check_unchecked_levels` (review r11, F1: before, every family level
    counted as covered, and a coarser sibling or a one-level family was published unchecked)."""
    covered = {q for b in cfg.verified_combinations() for q in b}
    family_levels = {lv for f in cfg.families for lv in f.levels}
    unprotected = [q for q in cfg.released_qis() if q not in covered | family_levels]
    if unprotected:
        raise ConfigError(
            f"combinations: quasi-identifier(s) {', '.join(unprotected)} are released but in no"
            " combination, so nothing would protect them; add them to a combination (or make"
            " them pass_through if they are not quasi-identifiers)"
        )
    check_unchecked_levels(cfg.families, covered, cfg.propagation())


_DATACLASS_SETTINGS = (
    "name", "source", "record_id", "direct_identifiers", "pass_through", "excluded",
    "quasi_identifiers", "combinations", "tau", "k", "max_suppression", "algorithm",
    "column_suppression_cap", "missing_label", "preset", "hierarchical_qis", "demographics",
    "sensitive",
)


def column_roles(
    raw: Mapping[str, Any], qis: Mapping[str, QuasiIdentifier]
) -> dict[str, tuple[str, ...]]:
    """The column lists of the release's roles, each validated; a column has one role.

    El Emam et al. 2011 ("Types of Variables", Table 1) sorts variables into direct identifiers
    (removed), quasi-identifiers (generalized and suppressed), sensitive and other variables; the
    release names each source column's role: ``record_id`` (joins the suppression back, never
    published), ``direct_identifiers`` (dropped), ``quasi_identifiers`` (by their source column),
    ``pass_through`` (copied unchanged), ``sensitive`` (copied unchanged, gated by
    ``attribute_disclosure``) or ``excluded`` (not published). A source column with no
    role fails the build (checked against the source in ``dbt_deid.assert_column_roles``).
    """
    out: dict[str, tuple[str, ...]] = {}
    owner: dict[str, str] = {}
    record_id = raw.get("record_id")
    if record_id is not None:
        if not isinstance(record_id, str) or not record_id:
            raise ConfigError(f"record_id must name a unique, non-null column, got {record_id!r}")
        owner[record_id.lower()] = "record_id"
    for q in qis.values():
        col = q.source_column.lower()
        if owner.get(col) == "record_id":
            raise ConfigError(f"record_id {record_id!r} cannot be a quasi-identifier")
        owner[col] = f"quasi_identifiers.{q.name}"
    for role in ("direct_identifiers", "pass_through", "sensitive", "excluded"):
        cols = raw.get(role) or []
        if isinstance(cols, str) or not isinstance(cols, Sequence) or not all(
            isinstance(c, str) and c for c in cols
        ):
            raise ConfigError(f"{role} must be a list of column names, got {cols!r}")
        for col in cols:
            other = owner.get(col.lower())
            if other is not None:
                why = (" (the record id is never published; it needs no other role)"
                       if other == "record_id" else "")
                raise ConfigError(
                    f"{role} lists {col!r}, which is already {other}{why}: give each column one"
                    " role"
                )
            owner[col.lower()] = role
        out[role] = tuple(cols)
    return out


def _check_shared_columns(
    qis: Mapping[str, QuasiIdentifier], families: Sequence[Family]
) -> None:
    """Two quasi-identifiers may read one source column only as levels of one hierarchical QI
    family: there a suppressed verified level is also suppressed in the finer levels over its
    column (El Emam et al. 2011, "Disclosing All Levels of the Hierarchy", Table 4), and a level
    in no verified combination is refused unless that propagation protects it
    (:func:`dbt_deid.families.check_unchecked_levels`; review r11). Anywhere else each would be
    suppressed on its own, and a cell suppressed in one column would stay readable in the other
    (review r10, D1)."""
    family_of = {lv: f.name for f in families for lv in f.levels}
    first: dict[str, str] = {}
    for name, q in qis.items():
        col = q.source_column.lower()
        other = first.setdefault(col, name)
        if other != name and (family_of.get(name) is None
                              or family_of.get(name) != family_of.get(other)):
            raise ConfigError(
                f"quasi_identifiers.{name}.column reads {q.source_column!r}, which"
                f" quasi_identifiers.{other} also reads: each would be suppressed on its own, so a"
                f" value suppressed in one would stay readable in the other. Release one of them,"
                f" or make both levels of one hierarchical_qis family, finest first (a suppressed"
                f" level is then suppressed in the finer levels over its column; each level must"
                f" be in a combination unless that suppression protects it)"
            )


def _with_cap(q: QuasiIdentifier, cap: float) -> QuasiIdentifier:
    return QuasiIdentifier(
        name=q.name, level=q.level, weight=q.weight, hierarchy=q.hierarchy, rule=q.rule,
        suppression_cap=cap, derived_from=q.derived_from, column=q.column,
    )
