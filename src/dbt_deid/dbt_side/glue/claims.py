"""Entry points of the claims release's thin dbt Python models (LOLA, El Emam et al. 2012: El Emam
et al., the Heritage Health Prize release): frames in, frames out, no dbt imports.

The SQL models do every preprocessing step the core documents as SQL-able ("Preprocessing of
Claims Data": top-coding, truncation, stigmatized-patient removal, provider suppression); the
Python models call these functions for the steps that are not: the keyed pseudonyms (the key
would otherwise land in compiled SQL), the adversary power, the bootstrap node evaluation and
the LOLA search ("Adversary Knowledge and Power", "Node Computation"), and the simulated attack
("Empirical Evaluation"). Settings are var ``deid_claims_release`` (validated in Jinja by
``claims_release_config``); :func:`dbt_deid.longitudinal.settings.claims_settings` fills the
same defaults. Only counts are
logged. :func:`deid_claims_pseudonymized_claims`, :func:`deid_claims_pseudonymized_patients`,
:func:`deid_claims_lola` and :func:`deid_claims_attack` are the bodies of the dbt Python models
of those names: they take the model's refs and its config ``deid_claims_release_json``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.dbt_side.dbt_logger import dbt_logger
from dbt_deid.dbt_side.glue.frames import bind_verdict, to_pandas
from dbt_deid.errors import DataError
from dbt_deid.longitudinal.attack import population_marketer_risk, simulate_attack1
from dbt_deid.longitudinal.bootstrap import NodeEvaluator, k_for_sample, power_matrix
from dbt_deid.longitudinal.encoding import EncodedData, LongitudinalSpec, encode
from dbt_deid.longitudinal.hierarchies import generalize
from dbt_deid.longitudinal.pseudonyms import pseudonymize
from dbt_deid.longitudinal.search import lola_search, relax_message
from dbt_deid.longitudinal.settings import claims_settings
from dbt_deid.progress import Logger, get_logger

CLAIM_ID = "claim_id"


def pseudonymize_table(
    frame: pd.DataFrame, release: Mapping[str, Any], table: str, *, model: str,
    logger: Logger | None = None,
) -> pd.DataFrame:
    """El Emam et al. 2012 "Creating Pseudonyms": replace the ids listed under
    ``pseudonymize.<table>`` by keyed HMAC-SHA256 pseudonyms
    (:func:`dbt_deid.longitudinal.pseudonyms.pseudonymize`; the key is read from the environment
    variable ``key_env`` and never leaves the core). Equal ids get equal pseudonyms in both tables
    (the domain is the column name)."""
    cfg = claims_settings(release)
    frame.columns = [str(c) for c in frame.columns]
    columns = cfg["pseudonymize"][table]
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"model {model}: the {table} lack id column(s) {missing}")
    out, rep = pseudonymize(frame, columns, key_env=cfg["key_env"])
    (logger or get_logger()).info(
        f"dbt_deid: {model}: {rep.rows_out} rows, "
        + ", ".join(f"{k} {v}" for k, v in rep.changed.items())
    )
    return out


def _hierarchy_frames(
    long: pd.DataFrame, columns: Sequence[str], data: Mapping[str, pd.Series]
) -> dict[str, pd.DataFrame]:
    """``deid_claims_hierarchy`` (qi_name, level, original_value, generalized_value) back to one
    frame per QI with ``level_0 .. level_h``; ``level_0`` takes the data column's type (the
    values were cast to strings in SQL)."""
    out: dict[str, pd.DataFrame] = {}
    for q in columns:
        part = long.loc[long["qi_name"] == q]
        if part.empty:
            raise DataError(f"hierarchy of {q!r} is empty")
        wide = part.pivot(index="original_value", columns="level", values="generalized_value")
        wide = wide.sort_index(axis=1)
        wide.columns = [f"level_{int(c)}" for c in wide.columns]
        wide = wide.reset_index(drop=True)
        if pd.api.types.is_numeric_dtype(data[q]):
            wide["level_0"] = pd.to_numeric(wide["level_0"], errors="raise")
        else:
            wide["level_0"] = wide["level_0"].astype(str)
        out[q] = wide
    return out


def _inputs(
    patients: pd.DataFrame, claims: pd.DataFrame, hierarchy: pd.DataFrame,
    cfg: Mapping[str, Any],
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, pd.DataFrame], LongitudinalSpec]:
    patients = patients.copy()
    claims = claims.copy()
    patients.columns = [str(c) for c in patients.columns]
    claims.columns = [str(c) for c in claims.columns]
    if cfg["claim_id"] != CLAIM_ID:
        claims = claims.drop(columns=[CLAIM_ID], errors="ignore")
        claims = claims.rename(columns={cfg["claim_id"]: CLAIM_ID})
    # the engine's row order is no key (Spark returns rows as its tasks answer): patients become
    # encoding rows and the seeded draws pick rows, so both tables are ordered by their ids
    member = cfg["member_id"]
    if member in patients.columns:
        patients = patients.sort_values(member, kind="stable", ignore_index=True)
    keys = [c for c in (member, CLAIM_ID) if c in claims.columns]
    if keys:
        claims = claims.sort_values(keys, kind="stable", ignore_index=True)
    hierarchy = hierarchy.copy()
    hierarchy.columns = [str(c) for c in hierarchy.columns]
    hier_cols = list(cfg["hierarchies"])
    data = {q: (patients[q] if q in cfg["demographic_qis"] else claims[q]) for q in hier_cols}
    frames = _hierarchy_frames(hierarchy, hier_cols, data)
    spec = LongitudinalSpec(
        demographic_qis=tuple(cfg["demographic_qis"]), claim_qis=tuple(cfg["claim_qis"]),
        dimensions=tuple(cfg["dimensions"]), member=cfg["member_id"],
    )
    return patients, claims, frames, spec


def _node(node: Sequence[int]) -> str:
    return ",".join(str(int(v)) for v in node)


def lola_frame(
    patients: pd.DataFrame, claims: pd.DataFrame, hierarchy: pd.DataFrame,
    release: Mapping[str, Any], *, model: str = "deid_claims_lola",
    logger: Logger | None = None,
) -> pd.DataFrame:
    """LOLA on the released claims D2 (El Emam et al. 2012, "Node Computation"): adversary power
    p_ih from D2, k = alpha * ceil(1/tau) (equation 3), MaxSup (given or 0.0004 / tau), bootstrap
    node evaluation (scheme, pool size, B, I, seed, variant) and OLA's search. One row per evaluated
    node: ``node``, ``level__<dimension>``, ``mean`` (estimated high-risk share), ``se``,
    ``ci_low``, ``ci_high`` (95% interval of the mean), ``iter_low``, ``iter_high`` (spread of
    single iterations), ``draws``, ``candidate`` (mean <= MaxSup), ``k_minimal``, ``entropy``
    (k-minimal nodes), ``chosen`` (LOLA's node), ``release_node`` (the chosen node, or the top
    node when none passes: the node the release is generalized to and attacked at; the gate
    then fails) and ``message`` (on the top node's row when no node passes: which limit to
    relax, :func:`dbt_deid.longitudinal.search.relax_message`)."""
    cfg = claims_settings(release)
    log = logger or get_logger()
    patients, claims, frames, spec = _inputs(patients, claims, hierarchy, cfg)
    if len(patients) == 0 or len(claims) == 0:
        raise DataError(f"model {model}: no patients or no claims left to release")
    data = encode(patients, claims, frames, spec)
    power = _power(data, claims, cfg)
    k = k_for_sample(cfg["tau"], cfg["sampling_fraction"])
    log.info(f"dbt_deid: {model}: {data.n_patients} patients, {data.n_claims} claims, k = {k},"
             f" {cfg['bootstrap_scheme']} bootstrap, B = {cfg['bootstrap']},"
             f" I = {cfg['iterations']}, pool {cfg['pool_size']}")
    ev = NodeEvaluator(data, power, k=k, max_sup=cfg["max_suppression"],
                       n_bootstrap=cfg["bootstrap"],
                       n_iterations=cfg["iterations"], pool_size=cfg["pool_size"],
                       scheme=cfg["bootstrap_scheme"], seed=cfg["seed"],
                       variant=cfg["variant"], model=cfg["adversary"], logger=log)
    result = lola_search(data, ev, logger=log)
    top = tuple(data.dimension_heights())
    ev.evaluate(top)
    release_node = result.chosen or top
    message = None if result.chosen is not None else relax_message(
        ev, top, spec.dimension_names, alpha=cfg["sampling_fraction"], p_max=cfg["p_max"])
    kmin = dict(result.candidates)
    rows = []
    for node, res in sorted(ev.results.items()):
        row: dict[str, Any] = {"node": _node(node), "node_height": int(sum(node))}
        for (dim, _), lvl in zip(spec.dimensions, node, strict=True):
            row[f"level__{dim}"] = int(lvl)
        row.update({
            "mean": res.mean, "se": res.se, "ci_low": res.ci_low, "ci_high": res.ci_high,
            "iter_low": res.iter_low, "iter_high": res.iter_high, "draws": int(res.draws),
            "scheme": res.scheme, "candidate": bool(res.candidate),
            "k_minimal": node in kmin, "entropy": kmin.get(node),
            "chosen": node == result.chosen, "release_node": node == release_node,
            "k": int(res.k), "max_sup": float(res.max_sup), "n_bootstrap": res.n_bootstrap,
            "n_iterations": res.n_iterations, "lattice_size": int(result.lattice_size),
            "message": message if node == release_node else None,
        })
        rows.append(row)
    out = pd.DataFrame(rows)
    out["entropy"] = out["entropy"].astype("float64")
    out["message"] = out["message"].astype("string")
    log.info(f"dbt_deid: {model}: {len(rows)} of {result.lattice_size} nodes evaluated,"
             f" {len(kmin)} k-minimal, {'a node' if result.chosen else 'no node'} passes")
    if message is not None:
        log.info(f"dbt_deid: {model}: nothing can be published: {message}")
    return out


def _power(data: EncodedData, claims: pd.DataFrame, cfg: Mapping[str, Any]) -> np.ndarray:
    """p_ih by the release's power_function, p_max and power_scale."""
    return power_matrix(data, None, claims, cfg["p_max"], cfg["power_function"],
                        cfg["power_scale"])


def attack_frame(
    patients: pd.DataFrame, d1: pd.DataFrame, d2_ids: pd.DataFrame, hierarchy: pd.DataFrame,
    lola: pd.DataFrame, release: Mapping[str, Any], population: pd.DataFrame | None = None, *,
    model: str = "deid_claims_attack", logger: Logger | None = None,
) -> pd.DataFrame:
    """El Emam et al. 2012 "Empirical Evaluation" at the release node: attack 1 (nosey neighbour;
    knowledge drawn from D1 with p_ih computed on D1, matched against D2) and attack 2, the
    closed-form marketer risk of the released patients' ``attack2_qis`` (at the release levels)
    against the people per class of ``population`` (the attack2_population relation: census or
    voter-list counts; attack 2 is not computed, null, without it). One row."""
    cfg = claims_settings(release)
    log = logger or get_logger()
    patients, d1, frames, spec = _inputs(patients, d1, hierarchy, cfg)
    enc1 = encode(patients, d1, frames, spec)
    kept = d2_ids.iloc[:, 0].to_numpy()
    enc2 = enc1.subset_claims(np.isin(enc1.claim_ids, kept))
    power = _power(enc1, d1, cfg)
    row = lola.loc[lola["release_node"].astype(bool)]
    if len(row) != 1:
        raise DataError(f"model {model}: deid_claims_lola has {len(row)} release nodes")
    node = tuple(int(row[f"level__{d}"].iloc[0]) for d, _ in spec.dimensions)
    res = simulate_attack1(enc1, enc2, node, power, alpha=cfg["sampling_fraction"],
                           iterations=cfg["attack_iterations"], seed=cfg["seed"],
                           variant=cfg["variant"], model=cfg["adversary"])
    levels = spec.levels(node)
    market: dict[str, Any] = {"marketer_risk": None, "marketer_expected_matches": None,
                              "marketer_population": None}
    qis = cfg["attack2_qis"]
    if qis:
        if population is None or len(population) == 0:
            raise DataError(f"model {model}: the attack 2 population table"
                            " (attack2_population) is empty")
        population = population.copy()
        population.columns = [str(c) for c in population.columns]
        released = pd.DataFrame({q: generalize(patients[q], frames[q], levels[q])
                                 if q in frames and levels[q] else patients[q] for q in qis})
        try:
            m = population_marketer_risk(released, population, qis, hierarchies=frames,
                                         levels=levels)
        except DataError as exc:
            raise DataError(f"model {model}: {exc}") from None
        market = {"marketer_risk": m.risk, "marketer_expected_matches": m.expected_matches,
                  "marketer_population": m.population}
    log.info(f"dbt_deid: {model}: {res.iterations} simulated attacks, {res.successes} successes")
    out = pd.DataFrame([{
        "node": _node(node), "alpha": cfg["sampling_fraction"], "iterations": res.iterations,
        "successes": res.successes, "success_rate": res.success_rate,
        "expected_rate": res.expected_rate, "members_drawn": res.members_drawn,
        "target_matched": res.target_matched, "median_matching_set": res.median_matching_set,
        "variant": res.variant, "attack_tau": cfg["attack_tau"],
        "passed": bool(res.success_rate <= cfg["attack_tau"]),
        **market,
    }])
    for c in ("marketer_risk", "marketer_expected_matches"):
        out[c] = out[c].astype("float64")
    out["marketer_population"] = out["marketer_population"].astype("Int64")
    return out


def _pseudonymized_model(release_json: str, relation: Any, table: str) -> pd.DataFrame:
    release = json.loads(release_json)
    frame = to_pandas(relation)
    name = f"deid_claims_pseudonymized_{table}"
    return pseudonymize_table(frame, release, table, model=name, logger=dbt_logger())


def deid_claims_pseudonymized_claims(release_json: str, input_claims: Any) -> pd.DataFrame:
    """The dbt Python model ``deid_claims_pseudonymized_claims``: the claims with keyed
    pseudonyms (El Emam et al. 2012, HHP claims, "Creating Pseudonyms"). Reads
    ``deid_claims_input_claims`` and replaces the ids listed under ``pseudonymize.claims`` of var
    ``deid_claims_release`` by HMAC-SHA256 pseudonyms (:func:`pseudonymize_table`). The key is
    read by the core from the environment variable named by ``key_env`` (default
    ``DBT_DEID_PSEUDONYM_KEY``): it is never in the configuration, the compiled code, the logs or
    a table. A missing key fails the model with a message naming the variable, and nothing
    downstream builds. Only counts are logged."""
    return _pseudonymized_model(release_json, input_claims, "claims")


def deid_claims_pseudonymized_patients(release_json: str, input_patients: Any) -> pd.DataFrame:
    """The dbt Python model ``deid_claims_pseudonymized_patients``: the patients with keyed
    pseudonyms (El Emam et al. 2012, HHP claims, "Creating Pseudonyms"), as
    :func:`deid_claims_pseudonymized_claims` does for the claims: the ids listed under
    ``pseudonymize.patients`` of ``deid_claims_input_patients`` are replaced; the key never
    leaves the environment and a missing key fails the model naming the variable."""
    return _pseudonymized_model(release_json, input_patients, "patients")


def deid_claims_lola(
    release_json: str, patients_preprocessed: Any, d2: Any, hierarchy: Any,
    verdict_inputs: Any,
) -> pd.DataFrame:
    """The dbt Python model ``deid_claims_lola``: LOLA on the released claims (El Emam et al.
    2012, HHP claims, "Adversary Knowledge and Power", "Node Computation"). Reads the
    preprocessed patients (``deid_claims_patients_preprocessed``), D2 (``deid_claims_d2``) and
    the hierarchies in long form (``deid_claims_hierarchy``), then calls :func:`lola_frame`:
    adversary power p_ih, k from tau and alpha, bootstrap node evaluation (B, I, seed, variant)
    and OLA's lattice search. Returns one row per evaluated node with its bootstrap mean and 95%
    interval, the chosen node and the release node, each with ``settings_md5`` and
    ``inputs_invocation_id`` (:func:`dbt_deid.dbt_side.glue.frames.bind_verdict`: the settings
    and the fingerprinted inputs, ``deid_claims_verdict_inputs``, the verdict is bound to).
    Progress is logged as counts only."""
    release = json.loads(release_json)
    frame = lola_frame(to_pandas(patients_preprocessed), to_pandas(d2), to_pandas(hierarchy),
                       release, logger=dbt_logger())
    return bind_verdict(frame, release_json, verdict_inputs, model="deid_claims_lola")


def deid_claims_attack(
    release_json: str, patients_preprocessed: Any, d1: Any, d2_ids: Any, hierarchy: Any,
    lola: Any, attack2_population: Any,
) -> pd.DataFrame:
    """The dbt Python model ``deid_claims_attack``: the simulated attack on the release node
    (El Emam et al. 2012, HHP claims, "Empirical Evaluation"). Attack 1 (nosey neighbour):
    knowledge drawn from D1 (``deid_claims_d1``, every claim) with the power computed on D1,
    matched against D2 (``deid_claims_d2_ids``, the released claims) at the node of
    ``deid_claims_lola``; attack 2: the closed-form marketer risk of the generalized
    ``attack2_qis`` against the population counts of ``deid_claims_attack2_population`` (null
    without one). Calls :func:`attack_frame`; one row, only counts are logged, with
    ``settings_md5`` (the settings it ran with) and the ``inputs_invocation_id`` of the LOLA
    table it attacked (the fingerprints LOLA read; the publish gate claims_verdict_bound
    requires both verdicts to have read the same)."""
    release = json.loads(release_json)
    d2 = to_pandas(d2_ids)
    lola_frame_ = to_pandas(lola)
    frame = attack_frame(
        to_pandas(patients_preprocessed), to_pandas(d1), d2, to_pandas(hierarchy),
        lola_frame_, release, to_pandas(attack2_population), logger=dbt_logger(),
    )
    if "inputs_invocation_id" not in lola_frame_.columns:
        raise DataError("model deid_claims_attack: deid_claims_lola records no"
                        " inputs_invocation_id (built by an older version): rebuild it")
    return bind_verdict(frame, release_json, lola_frame_[["inputs_invocation_id"]].rename(
        columns={"inputs_invocation_id": "invocation_id"}), model="deid_claims_attack")


#: The columns of ``deid_claims_attack3`` (one row per QI set and period, Table 6 in long form).
ATTACK3_COLUMNS = ("node", "qi_set", "period", "marketer_risk", "released_patients",
                   "patients_with_visits", "patients_not_in_population", "population_patients",
                   "tau", "passed")


def attack3_frame(
    patients: pd.DataFrame, d2: pd.DataFrame, hierarchy: pd.DataFrame, lola: pd.DataFrame,
    release: Mapping[str, Any], population: pd.DataFrame | None, *,
    model: str = "deid_claims_attack3", logger: Logger | None = None,
) -> pd.DataFrame:
    """Attack 3 at the release node (El Emam et al. 2012, "Attack 3", Table 6): the closed-form
    marketer risk of the released patients against a population of inpatient visits (a State
    Inpatient Database: ``attack3_population``, one row per visit, coded as the release's input),
    for each of ``attack3_qi_sets`` and each year and all years
    (:func:`dbt_deid.longitudinal.attack3.attack3_rows`). The released visits are the released
    claims (D2) with ``attack3_visit_column`` set; both sides are generalized to the release
    node with the release's hierarchies. A released patient whose signature no population
    patient has (the release truncated one of their visits) cannot be matched correctly: it adds
    0 and is counted in ``patients_not_in_population``. Empty without ``attack3_population``."""
    from dbt_deid.longitudinal.attack3 import NUMBER_OF_VISITS, attack3_rows

    cfg = claims_settings(release)
    empty = pd.DataFrame({c: pd.Series([], dtype="string" if c in ("node", "qi_set", "period")
                                       else "boolean" if c == "passed" else "float64")
                          for c in ATTACK3_COLUMNS})
    sets = cfg["attack3_qi_sets"]
    if not sets:
        return empty
    log = logger or get_logger()
    patients, claims, frames, spec = _inputs(patients, d2, hierarchy, cfg)
    row = lola.loc[lola["release_node"].astype(bool)]
    if len(row) != 1:
        raise DataError(f"model {model}: deid_claims_lola has {len(row)} release nodes")
    node = tuple(int(row[f"level__{d}"].iloc[0]) for d, _ in spec.dimensions)
    levels = spec.levels(node)
    used = list(dict.fromkeys(q for qs in sets for q in qs if q != NUMBER_OF_VISITS))
    demo = [q for q in used if q in cfg["demographic_qis"]]
    visit_qis = [q for q in used if q in cfg["claim_qis"]]
    member, year, inpatient = (cfg["member_id"], cfg["attack3_year_column"],
                               cfg["attack3_visit_column"])
    pid = cfg["attack3_patient_column"]
    if population is None or len(population) == 0:
        raise DataError(f"model {model}: the attack 3 population table (attack3_population) is"
                        " empty")
    population = population.copy()
    population.columns = [str(c) for c in population.columns]
    missing = [c for c in [pid, year, *used] if c not in population.columns]
    if missing:
        raise DataError(f"model {model}: attack3_population lacks column(s) {missing}")
    if year not in claims.columns:
        raise DataError(f"model {model}: the claims lack the year column {year!r}"
                        " (attack3_year_column; publish it under release_columns.claims)")

    def coded(frame: pd.DataFrame, cols: Sequence[str]) -> pd.DataFrame:
        out = frame.copy()
        for q in cols:
            if q in frames and levels.get(q):
                out[q] = generalize(out[q], frames[q], levels[q])
        return out

    visits = claims.loc[claims[inpatient].notna(), [member, year, *visit_qis]]
    visits = visits.merge(patients[[member, *demo]], on=member, how="left", validate="many_to_one")
    released = coded(visits, used).rename(columns={member: "patient__"})
    pop = coded(population[[pid, year, *used]], used).rename(columns={pid: "patient__"})
    pop[year] = pop[year].astype(released[year].dtype)
    rows = attack3_rows(released, pop, sets, n_released=len(patients), patient_qis=demo,
                        patient="patient__", year=year, absent="zero")
    rows.insert(0, "node", _node(node))
    rows.insert(4, "released_patients", len(patients))
    rows["tau"] = cfg["attack_tau"]
    rows["passed"] = rows["marketer_risk"] <= cfg["attack_tau"]
    log.info(f"dbt_deid: {model}: {len(sets)} QI sets, {len(released)} released inpatient"
             f" visits, {len(pop)} population visits")
    out = rows[list(ATTACK3_COLUMNS)]
    return out.astype({c: "float64" for c in ATTACK3_COLUMNS
                       if c not in ("node", "qi_set", "period", "passed")})


def deid_claims_attack3(
    release_json: str, patients_preprocessed: Any, d2: Any, hierarchy: Any, lola: Any,
    attack3_population: Any,
) -> pd.DataFrame:
    """The dbt Python model ``deid_claims_attack3``: attack 3 of El Emam et al. 2012 (Table 6) at
    the release node, the released claims (``deid_claims_d2``) against the inpatient visits of
    ``deid_claims_attack3_population`` per QI set and per year / all years
    (:func:`attack3_frame`); empty without ``attack3_population``. Only counts are logged."""
    return attack3_frame(
        to_pandas(patients_preprocessed), to_pandas(d2), to_pandas(hierarchy), to_pandas(lola),
        json.loads(release_json), to_pandas(attack3_population), logger=dbt_logger(),
    )
