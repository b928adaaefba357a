"""The suite's cache of dbt's macro-file parse (tests/integration/parse_cache.py) gives what dbt
computes: the same macro nodes (name, source, arguments, languages) built by dbt's own parser
with this run's ``created_at``, the same calls found in a macro's source, a file that warned or
failed never stored, and a key that changes with what the parse depends on. No dbt run: dbt's
parser classes in this process."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from dbt.contracts.files import FileHash, FilePath, ParseFileType, SourceFile
from dbt.contracts.graph.manifest import Manifest
from dbt.parser.macros import MacroParser
from dbt.parser.search import FileBlock
from dbt_common.exceptions import CompilationError

from tests.integration import parse_cache

MACROS = """
{% macro greet(name, punctuation='!') %}hello {{ name }}{{ punctuation }}{% endmacro %}

{% macro default__shout(text) %}{{ text | upper }}{{ greet(text) }}{% endmacro %}

{% materialization probe, default, supported_languages=['sql', 'python'] %}
  {{ return({'relations': []}) }}
{% endmaterialization %}
"""


@pytest.fixture
def cache(tmp_path):
    parse_cache.install(tmp_path)
    yield tmp_path
    parse_cache.uninstall()


def _files(folder: Path, kind: str) -> int:
    return sum(1 for p in (folder / kind).rglob("*") if p.is_file())


def _parse(text: str, path: str = "macros/probe.sql", project: str = "probe_project"
           ) -> dict[str, dict]:
    """The macro nodes dbt's MacroParser adds to a manifest for a file holding ``text``."""
    manifest = Manifest()
    parser = MacroParser(SimpleNamespace(project_name=project), manifest)
    source = SourceFile(
        path=FilePath(searched_path="macros", relative_path=path.split("/", 1)[1],
                      modification_time=0.0, project_root="/nowhere"),
        checksum=FileHash.from_contents(text), project_name=project,
        parse_file_type=ParseFileType.Macro, contents=text)
    manifest.files[source.file_id] = source
    parser.parse_file(FileBlock(source))
    assert source.macros == list(manifest.macros)  # the file lists its macros, as dbt's does
    return {uid: m.to_dict() for uid, m in manifest.macros.items()}


def _without_time(nodes: dict[str, dict]) -> dict[str, dict]:
    return {uid: {k: v for k, v in node.items() if k != "created_at"}
            for uid, node in nodes.items()}


def test_cached_macros_are_the_nodes_dbt_builds(tmp_path) -> None:
    expected = _parse(MACROS)  # dbt's own parse, no cache
    assert set(expected) == {"macro.probe_project.greet", "macro.probe_project.default__shout",
                             "macro.probe_project.materialization_probe_default"}
    assert expected["macro.probe_project.materialization_probe_default"][
        "supported_languages"] == ["sql", "python"]
    parse_cache.install(tmp_path)
    try:
        first = _parse(MACROS)  # parsed by dbt, stored
        assert _files(tmp_path, "macros") == 1
        started = time.time()
        second = _parse(MACROS)  # built from the cache by dbt's parse_macro
        assert _files(tmp_path, "macros") == 1
    finally:
        parse_cache.uninstall()
    assert _without_time(first) == _without_time(second) == _without_time(expected)
    # a fresh node: dbt's macro_depends_on skips macros created before the parse started
    assert all(node["created_at"] >= started for node in second.values())


def test_the_key_follows_the_text_the_path_and_the_project(cache) -> None:
    _parse(MACROS)
    _parse(MACROS, path="macros/other.sql")
    _parse(MACROS, project="other_project")
    changed = _parse(MACROS.replace("hello", "hi"))
    assert _files(cache, "macros") == 4
    assert "hi {{ name }}" in changed["macro.probe_project.greet"]["macro_sql"]


def test_a_file_that_warns_or_fails_is_never_stored(cache, monkeypatch) -> None:
    warned = []
    monkeypatch.setattr(MacroParser, "_handle_extract_warning",
                        lambda self, warning, file: warned.append(file))
    stray = MACROS + "\n{% if true %}stray{% endif %}\n"  # a top-level tag outside a macro
    assert len(_parse(stray)) == 3
    once = list(warned)
    assert once and set(once) == {"macros/probe.sql"}
    assert len(_parse(stray)) == 3  # warned again: the second parse did not come from the cache
    assert warned == once * 2 and _files(cache, "macros") == 0
    broken = "{% macro broken() %}{{ 1 + }}{% endmacro %}"
    for _ in range(2):
        with pytest.raises(CompilationError):
            _parse(broken)
    assert _files(cache, "macros") == 0


def test_cached_calls_are_the_calls_dbt_finds(cache) -> None:
    import dbt.parser.manifest as manifest_module

    extract = manifest_module.statically_extract_macro_calls
    source = ("{% macro m() %}{{ greet('x') }}{{ dbt_utils.star('t') }}{{ log('y') }}"
              "{{ ref('r') }}{% endmacro %}")
    context = {"log": print, "unused": None}
    first = extract(source, context, None)
    assert first == ["greet", "dbt_utils.star"]  # log is the context's; ref a standard call
    assert _files(cache, "calls") == 1
    assert extract(source, dict(context), None) == first  # the same inputs: loaded
    assert _files(cache, "calls") == 1
    # a name the context defines is no macro call: another key, dbt's answer
    assert extract(source, {"log": print, "greet": print}, None) == ["dbt_utils.star"]
    assert _files(cache, "calls") == 2
