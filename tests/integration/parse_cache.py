"""A cache of dbt's parse of macro files, shared by the suite's forked dbt runs (``dbt_fork``).

Every dbt run whose ``--vars`` differ from the saved parse's parses the whole project again
(dbt keeps no record of which file read which var), and more than half of the suite's dbt runs
do (each test tries its own settings). A full parse of integration_tests first parses every
macro file of dbt, dbt-duckdb, the package and the project (~300 files, ~1,200 macros: each
file cut into its top-level blocks, each block parsed by Jinja to find its macro's name,
arguments and languages), then finds the macros each macro calls: ~0.6 and ~0.4 of a ~4.4 CPU s
full parse (measured 2026-11-28, docs/performance.md, "Suite time, session 15"). None of it reads
the vars: the macros are the same in every run of the suite. So each forked run, with
``DBT_DEID_TEST_JINJA_CACHE`` naming a folder (the same switch and folder as jinja_cache.py),
keeps:

- for a macro file, what ``MacroParser.parse_unparsed_macros`` yields: each macro's name, its
  source (the block) and the arguments and languages the parser read from it, keyed by
  everything the parser reads: the file's text, path and package, the project it is parsed
  for, dbt's ``validate_macro_args`` flag and dbt's and Python's versions. A later run with an
  equal key builds the same nodes through the parser's own ``parse_macro`` (a fresh node, with
  this run's ``created_at``) instead of parsing the file. A file whose parse warned or failed is
  never stored (its warning or error is raised again by the next run);
- for a macro's source, the calls ``statically_extract_macro_calls`` finds in it (what
  ``ManifestLoader.macro_depends_on`` records as the macro's ``depends_on``), keyed by the
  source and everything the function reads besides: which names the macro context defines, and
  for ``adapter.dispatch`` calls the adapter's type names, the project's dispatch settings,
  packages and name, and the set of macros dispatch searches (their unique ids).

What is cached is what dbt would compute again from the same inputs; the rest of the parse (the
models, the YAML files, the tests: everything the vars reach) is untouched. Runs that are not
forked (``DBT_DEID_TEST_NO_FORK=1``) use no cache: they are plain dbt.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

_SAVED = "_dbt_deid_parse_cache"


class _Block:
    """What ``MacroParser.parse_macro`` reads of a block: its whole text."""

    def __init__(self, full_block: str) -> None:
        self.full_block = full_block


def install(folder: str | os.PathLike) -> None:
    """Route dbt's parse of macro files and its search of macro calls through the cache in
    ``folder`` (in this process: a forked dbt run, before dbt runs)."""
    import dbt.parser.manifest as manifest_module
    from dbt.artifacts.resources import MacroArgument
    from dbt.flags import get_flags
    from dbt.node_types import ModelLanguage
    from dbt.parser.macros import MacroParser
    from dbt.version import __version__ as dbt_version

    if getattr(MacroParser, _SAVED, None):
        return
    root = Path(folder)
    version = f"dbt {dbt_version}|{sys.version}"
    parse_unparsed, extract = (MacroParser.parse_unparsed_macros,
                               manifest_module.statically_extract_macro_calls)

    def cached_parse_unparsed_macros(self, base_node):
        validate = bool(getattr(get_flags(), "validate_macro_args", False))
        path = _path(root, "macros", version, self.project.project_name, base_node.package_name,
                     base_node.path, base_node.original_file_path, str(base_node.resource_type),
                     base_node.language, validate, base_node.raw_code)
        found = _load(path)
        if found is not None:
            for entry in json.loads(found):
                node = self.parse_macro(_Block(entry["sql"]), base_node, entry["name"])
                if entry["arguments"]:
                    node.arguments = [MacroArgument(name=a) for a in entry["arguments"]]
                if entry["languages"] is not None:
                    node.supported_languages = [ModelLanguage(v) for v in entry["languages"]]
                yield node
            return
        warned = []
        handle = self._handle_extract_warning

        def noting(*args, **kwargs):
            warned.append(True)
            return handle(*args, **kwargs)

        self._handle_extract_warning = noting
        try:
            nodes = list(parse_unparsed(self, base_node))
        finally:
            del self._handle_extract_warning  # the class's method again
        if not warned:
            _store(path, json.dumps([
                {"name": n.name, "sql": n.macro_sql, "arguments": [a.name for a in n.arguments],
                 "languages": None if n.supported_languages is None
                 else [str(v.value if hasattr(v, "value") else v)
                       for v in n.supported_languages]}
                for n in nodes]).encode())
        yield from nodes

    def cached_extract(source, ctx, db_wrapper=None):
        context = _context_key(ctx, db_wrapper)
        path = _path(root, "calls", version, context, source)
        found = _load(path)
        if found is not None:
            return json.loads(found)
        calls = extract(source, ctx, db_wrapper)
        _store(path, json.dumps(list(calls)).encode())
        return calls

    MacroParser.parse_unparsed_macros = cached_parse_unparsed_macros
    manifest_module.statically_extract_macro_calls = cached_extract
    setattr(MacroParser, _SAVED, (parse_unparsed, extract))


def uninstall() -> None:
    """dbt's own parse of macro files and search of macro calls again (for tests of this
    module)."""
    import dbt.parser.manifest as manifest_module
    from dbt.parser.macros import MacroParser

    saved = getattr(MacroParser, _SAVED, None)
    if saved:
        MacroParser.parse_unparsed_macros, manifest_module.statically_extract_macro_calls = saved
        delattr(MacroParser, _SAVED)
    _CONTEXTS.clear()


#: _context_key's last answers, by the identity of the objects it read (the loop of
#: ``macro_depends_on`` asks ~1,200 times with the same two objects).
_CONTEXTS: list[tuple[Any, Any, str]] = []


def _context_key(ctx: dict[str, Any], db_wrapper: Any) -> str:
    """What ``statically_extract_macro_calls`` reads besides the source: the names the macro
    context defines (a call of one of them is no macro call) and, through ``db_wrapper``, what
    ``adapter.dispatch`` resolves with (the adapter's type names, the project's name, dispatch
    settings and packages, and the macros it searches)."""
    for seen_ctx, seen_wrapper, key in _CONTEXTS:
        if seen_ctx is ctx and seen_wrapper is db_wrapper:
            return key
    parts: list[Any] = [sorted(k for k, v in ctx.items() if v)]
    if db_wrapper is not None:
        config = db_wrapper.config
        resolver = db_wrapper._namespace.macro_resolver
        parts += [db_wrapper._get_adapter_macro_prefixes(), config.project_name,
                  repr(config.dispatch), sorted(config.dependencies),
                  resolver.root_project_name, list(resolver.internal_package_names),
                  sorted(resolver.macros)]
    key = _digest(parts)
    _CONTEXTS[:] = [(ctx, db_wrapper, key)]
    return key


def _digest(parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, default=repr).encode()).hexdigest()


def _path(root: Path, kind: str, *parts: Any) -> Path:
    digest = _digest([str(p) if isinstance(p, Path) else p for p in parts])
    return root / kind / digest[:2] / digest


def _load(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _store(path: Path, data: bytes) -> None:
    """Whole files only (other runs read the folder at the same time)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}")
        partial.write_bytes(data)
        os.replace(partial, path)
    except OSError:
        pass
