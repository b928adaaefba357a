"""The suite's Jinja compilation cache (tests/integration/jinja_cache.py) gives what Jinja
computes: the same rendering and syntax trees, errors raised and never stored, and a key that
changes with what compilation depends on."""

from __future__ import annotations

import os
import sys

import jinja2
import pytest

from tests.integration import dbt_fork, jinja_cache

SOURCE = "{% macro hi(name) %}hi {{ name | upper }}{% endmacro %}{{ hi(who) }} {{ 1 + 2 }}"


@pytest.fixture
def cache(tmp_path):
    jinja_cache.install(tmp_path)
    yield tmp_path
    jinja_cache.uninstall()


def _files(folder, kind: str) -> int:
    return sum(1 for p in (folder / kind).rglob("*") if p.is_file())


def test_a_cached_template_renders_as_jinja_renders_it(cache) -> None:
    expected = jinja2.Environment().from_string(SOURCE).render(who="you")
    assert expected == "hi YOU 3"
    first = jinja2.Environment().from_string(SOURCE).render(who="you")
    stored = _files(cache, "c")
    second = jinja2.Environment().from_string(SOURCE).render(who="me")  # loaded, not compiled
    assert (first, second) == ("hi YOU 3", "hi ME 3")
    assert stored == 1 and _files(cache, "c") == 1
    # another environment setting is another entry (here the delimiters: not a template)
    other = jinja2.Environment(variable_start_string="[[", variable_end_string="]]")
    assert other.from_string("[[ who ]] {{ who }}").render(who="x") == "x {{ who }}"
    assert _files(cache, "c") == 2


def test_a_filter_added_is_another_key() -> None:
    plain, extra = jinja2.Environment(), jinja2.Environment()
    extra.filters["shout"] = str.upper
    assert jinja_cache.environment_key(plain) != jinja_cache.environment_key(extra)
    assert jinja_cache.environment_key(plain) == jinja_cache.environment_key(
        jinja2.Environment())  # no addresses or other per-process values in the key


def test_a_remembered_key_follows_the_environment_changed_in_place() -> None:
    env = jinja2.Environment()
    first = jinja_cache.environment_key(env)
    assert first == jinja_cache._environment_key(env)
    env.filters["shout"] = str.upper  # the same environment object, one filter more
    second = jinja_cache.environment_key(env)
    assert second != first and second == jinja_cache._environment_key(env)
    env.filters["shout"] = str.lower  # the same name, another function
    assert jinja_cache.environment_key(env) == jinja_cache._environment_key(env) != second
    env.trim_blocks = True  # a lexer setting
    assert jinja_cache.environment_key(env) == jinja_cache._environment_key(env)
    del env.filters["shout"]
    env.trim_blocks = False
    assert jinja_cache.environment_key(env) == first


def test_syntax_errors_are_raised_and_never_stored(cache) -> None:
    for _ in range(2):
        with pytest.raises(jinja2.TemplateSyntaxError):
            jinja2.Environment().from_string("{% if %}")
        with pytest.raises(jinja2.TemplateSyntaxError):
            jinja2.Environment().parse("{% for %}")
    assert _files(cache, "c") == 0 and _files(cache, "p") == 0


def test_a_loaded_syntax_tree_is_the_parsed_one_with_the_callers_environment(cache) -> None:
    from dbt_common.clients.jinja import get_environment

    source = "{% macro a(x: str, y=2) %}{{ x }}{% endmacro %}{% macro b() %}{% endmacro %}"
    parsed = get_environment().parse(source)
    env = get_environment()
    loaded = env.parse(source)
    assert _files(cache, "p") == 1
    assert loaded is not parsed and loaded == parsed  # jinja nodes compare field by field
    macros = list(loaded.find_all(jinja2.nodes.Macro))
    assert [m.name for m in macros] == [m.name for m in parsed.find_all(jinja2.nodes.Macro)]
    # dbt's typed-argument attributes kept
    assert macros[0].arg_types == next(parsed.find_all(jinja2.nodes.Macro)).arg_types
    assert macros[0].arg_types[0].name == "str" and macros[0].has_type_annotations
    assert all(node.environment is env for node in loaded.find_all(jinja2.nodes.Node))


def test_the_fork_server_installs_it_in_the_run_only(tmp_path) -> None:
    """A forked run with DBT_DEID_TEST_JINJA_CACHE set compiles through the folder, and parses
    dbt's macro files through it (parse_cache.py); the server (and a run without it) does
    not."""
    script = tmp_path / "render.py"
    script.write_text("import jinja2\nfrom dbt.parser.macros import MacroParser\n"
                      "print(jinja2.Environment().from_string('{{ 6 * 7 }}')"
                      ".render(), hasattr(jinja2.Environment, '_dbt_deid_cache'),"
                      " hasattr(MacroParser, '_dbt_deid_parse_cache'))\n")
    server = dbt_fork.ForkServer({**os.environ, "DBT_DEID_TEST_NO_WARM": "1"},  # no warm-up
                                 preload=("jinja2", "dbt.parser.manifest"))
    try:
        env = dict(server.env)
        plain = dbt_fork.run([sys.executable, str(script)], tmp_path, env, server)
        env[jinja_cache.ENV] = str(tmp_path / "cache")
        cached = dbt_fork.run([sys.executable, str(script)], tmp_path, env, server)
        again = dbt_fork.run([sys.executable, str(script)], tmp_path, env, server)
    finally:
        server.close()
    assert plain.stdout.split() == ["42", "False", "False"], plain.stderr
    assert cached.stdout.split() == again.stdout.split() == ["42", "True", "True"], cached.stderr
    assert _files(tmp_path / "cache", "c") == 1 and os.path.isdir(tmp_path / "cache")
