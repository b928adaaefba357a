"""The settings reference page (docs/settings-reference.md) is generated from the one settings
definition (issue 35, item 2): it is never stale, it lists every section and setting, and the
generator reads the definition generically (a section added to it appears on the page)."""

from __future__ import annotations

from dbt_deid import settings_docs
from dbt_deid.settings_schema import SECTIONS, schema


def test_page_is_generated_from_the_definition() -> None:
    assert settings_docs.DOC_PATH.read_text() == settings_docs.render(), (
        "docs/settings-reference.md is stale: run `python -m dbt_deid.settings_docs --write`"
    )


def test_every_section_and_setting_is_on_the_page() -> None:
    page = settings_docs.render()
    for section, spec in SECTIONS.items():
        assert f"\n## {section}\n" in page
        for key, s in spec.items():
            row = next(line for line in page.splitlines() if line.startswith(f"| `{key}` |")
                       and " ".join(s["doc"].split())[:20] in line)
            assert ("| yes |" in row) == bool(s.get("required")), row


def test_a_new_section_appears_without_changing_the_generator(monkeypatch) -> None:
    data = schema()
    data["sections"] = {**data["sections"], "claims_release": {
        "max_suppression": {"doc": "MaxSup of the node risk.", "required": True},
        "bootstrap": {"doc": "Bootstrap settings.", "section": "bootstrap"}},
        "bootstrap": {"scheme": {"doc": "pooled or independent.", "default": "pooled",
                                 "allowed": ["pooled", "independent"]}}}
    data["claims_defaults"] = {"tau": 0.05}
    monkeypatch.setattr(settings_docs, "schema", lambda: data)
    page = settings_docs.render()
    assert "\n## claims_release\n" in page and "\n## bootstrap\n" in page
    assert "Used by: `claims_release.bootstrap`." in page
    assert "| `scheme` |  | `pooled` | `pooled`, `independent` | pooled or independent. |" in page
    assert "[claims_release](#claims_release)" in page  # a top-level section
    assert "\n### claims_defaults\n" in page and "| `tau` | `0.05` |" in page
