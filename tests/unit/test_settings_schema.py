"""One settings definition (issues 12 and 15): unknown names fail with a suggestion, the Jinja
table is generated from the Python one, roles and protection are checked."""

from __future__ import annotations

import copy

import pytest

from dbt_deid.code_digest import CODE_DIGEST
from dbt_deid.config import parse_release
from dbt_deid.errors import ConfigError
from dbt_deid.settings_schema import (
    CODE_DIGEST_PATH,
    MACRO_PATH,
    REFERENCE_PATH,
    SECTIONS,
    closest_name,
    compute_code_digest,
    digest_files,
    render_code_digest,
    render_macro,
    render_reference,
)

BASE = {
    "name": "r", "source": "src", "record_id": "id",
    "direct_identifiers": ["name"], "pass_through": ["outcome"], "excluded": ["cost"],
    "quasi_identifiers": {"age": {}, "sex": {}},
    "combinations": [["age", "sex"]], "tau": 0.2, "max_suppression": 0.1,
}


def test_generated_jinja_macro_is_up_to_date() -> None:
    """macros/config/settings_schema.sql is what the Python definition generates: the Jinja
    and Python validators cannot disagree on a name, default or allowed value."""
    assert MACRO_PATH.read_text() == render_macro(), (
        "run `python -m dbt_deid.settings_schema --write`")


def test_generated_settings_reference_is_up_to_date() -> None:
    """docs/settings-reference.md is what the one definition generates."""
    assert REFERENCE_PATH.read_text() == render_reference(), (
        "run `python -m dbt_deid.settings_schema --write`")


def test_generated_code_digest_is_up_to_date() -> None:
    """src/dbt_deid/code_digest.py (and the Jinja settings schema, above) hold the md5 of the
    package's code as it is: a change of a gate's SQL or of the resolver is a new digest, so
    a plan or gate table the code before it computed is refused at publishing (review 12
    final, M1)."""
    assert CODE_DIGEST_PATH.read_text() == render_code_digest(compute_code_digest()), (
        "the package's code changed: run `python -m dbt_deid.settings_schema --write`")
    assert compute_code_digest() == CODE_DIGEST


def test_the_code_digest_covers_the_gates_and_the_resolver_not_the_tools(tmp_path) -> None:
    files = digest_files()
    for needed in ("macros/gates/gate_table.sql", "macros/publish/materialization_deid_publish.sql",
                   "src/dbt_deid/config.py", "python_models/deid_release_plan.py",
                   # the hooks that refuse a working model in the published schema, the
                   # models' YAML (enabled conditions, gate tests): configuration is code
                   "dbt_project.yml", "models/deid_models.yml",
                   "python_models/deid_python_models.yml"):
        assert needed in files
    assert "macros/config/settings_schema.sql" not in files  # it holds the digest
    assert "src/dbt_deid/code_digest.py" not in files
    assert not [f for f in files if f.startswith("src/dbt_deid/tools/")]
    # one changed byte of a gate is another digest
    for rel in ("macros/gates/k.sql", "src/dbt_deid/core.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x\n")
    before = compute_code_digest(tmp_path)
    (tmp_path / "macros/gates/k.sql").write_text("y\n")
    assert compute_code_digest(tmp_path) != before
    (tmp_path / "macros/gates/k.sql").write_text("x\r\n")  # line endings do not count
    assert compute_code_digest(tmp_path) == before


@pytest.mark.parametrize("key", sorted(SECTIONS["release"]))
def test_every_misspelt_top_level_setting_fails_with_a_suggestion(key: str) -> None:
    raw = copy.deepcopy(BASE)
    typo = key[:-1] if len(key) > 3 else key + "x"
    raw[typo] = raw.pop(key, 1)
    with pytest.raises(ConfigError, match=f"unknown setting '{typo}'; did you mean '{key}'"):
        parse_release(raw)


@pytest.mark.parametrize(("section", "where", "raw_path"), [
    ("quasi_identifier", "quasi_identifiers.age", ["quasi_identifiers", "age"]),
])
def test_misspelt_nested_setting(section: str, where: str, raw_path: list[str]) -> None:
    raw = copy.deepcopy(BASE)
    raw["quasi_identifiers"]["age"] = {"levl": 0}
    with pytest.raises(ConfigError, match=f"'{where}.levl'; did you mean '{where}.level'"):
        parse_release(raw)


def test_misspelt_rule_level_setting() -> None:
    raw = copy.deepcopy(BASE)
    raw["quasi_identifiers"]["age"] = {"rule": {"type": "interval", "levels": [{"widht": 5}]},
                                       "level": 1}
    with pytest.raises(ConfigError, match=r"did you mean 'quasi_identifiers\.age\.rule\.levels"):
        parse_release(raw)


def test_max_suppression_is_required() -> None:
    raw = copy.deepcopy(BASE)
    del raw["max_suppression"]
    with pytest.raises(ConfigError, match="max_suppression is required"):
        parse_release(raw)
    assert parse_release(raw, partial=True).max_suppression == 1.0  # the core's own uses


def test_presets_and_their_aliases_pass() -> None:
    for preset, k in [("public", 20), ("agreement", 5), ("audited", 3), ("trusted", 5),
                      ("strong_controls", 3), ("research", 5)]:
        raw = {**BASE, "preset": preset}
        del raw["tau"]
        assert parse_release(raw).k == k, preset
    with pytest.raises(ConfigError, match="preset must be one of"):
        parse_release({**BASE, "preset": "open"})


@pytest.mark.parametrize(("changes", "message"), [
    ({"pass_through": ["age"]}, "pass_through lists 'age', which is already quasi_identifiers.age"),
    ({"direct_identifiers": ["id"]}, "the record id is never published"),
    ({"excluded": ["name"]}, "excluded lists 'name', which is already direct_identifiers"),
    ({"pass_through": "outcome"}, "pass_through must be a list of column names"),
])
def test_each_column_has_one_role(changes: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_release({**BASE, **changes})


def test_two_quasi_identifiers_over_one_column_outside_a_family_are_refused() -> None:
    """Review r10, D1: `age2: {column: age, rule: 5-year bins}` beside `age` was accepted and
    each was suppressed on its own: 313 published rows showed age2 where age was suppressed, and
    an adversary who knows age knows age2 (376 classes below k = 5 on age2's combination, smallest
    1). Two QIs may read one column only as levels of one hierarchical_qis family (El Emam et
    al. 2011, Tables 4 and 5), where a level in no combination is accepted only if propagation
    protects it (here age_band, a generalizes generalization of the checked age; review r11);
    anything else is refused, naming the setting (before: parsed, no error)."""
    raw = copy.deepcopy(BASE)
    raw["quasi_identifiers"]["age2"] = {"column": "AGE", "derived_from": "age"}
    raw["combinations"] = [["age", "sex"], ["age2", "sex"]]
    with pytest.raises(ConfigError, match=r"quasi_identifiers\.age2\.column reads 'AGE', which"
                       r" quasi_identifiers\.age also reads"):
        parse_release(raw)
    family = copy.deepcopy(BASE)
    family["quasi_identifiers"] = {"age": {}, "age_band": {"column": "age"}, "sex": {}}
    family["hierarchical_qis"] = {"age": {"levels": ["age", "age_band"],
                                          "generalizes": {"age_band": "age"}}}
    family["combinations"] = [["age", "sex"]]
    assert parse_release(family).quasi_identifiers["age_band"].source_column == "age"


def test_a_quasi_identifier_in_no_combination_is_an_error() -> None:
    raw = copy.deepcopy(BASE)
    raw["quasi_identifiers"]["zip"] = {}
    with pytest.raises(ConfigError, match=r"\(s\) zip are released but in no combination"):
        parse_release(raw)


def test_closest_name() -> None:
    assert closest_name("max_supression", SECTIONS["release"]) == "max_suppression"
    assert closest_name("combination", SECTIONS["release"]) == "combinations"
    assert closest_name("zzzzzzzz", SECTIONS["release"]) is None


def test_claims_release_suggests_the_setting_it_does_not_know() -> None:
    """Every release kind rejects a misspelt name with a suggestion (issue 12)."""
    from dbt_deid.longitudinal.settings import claims_settings

    with pytest.raises(ConfigError, match="unknown setting; did you mean 'max_suppression'"):
        claims_settings({"name": "c", "max_supresion": 0.008})
