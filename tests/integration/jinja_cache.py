"""A cache of Jinja's template compilation shared by the suite's forked dbt runs (``dbt_fork``).

A dbt run spends a quarter to a third of its CPU turning Jinja source into Python: a full parse of
integration_tests lexes and parses ~2,400 templates (the macro files, to find their macros)
and compiles ~1,400 (2.1 + 2.1 CPU s of a 12.1 CPU s parse), and a build on a saved parse
compiles ~520 more (the materializations and macros it calls: 4.2 CPU s of 17; measured
2026-11-27, docs/performance.md, "Suite time, session 7"). The sources are the same in every
run of the suite (the package's and the project's files); only the variables they are rendered
with differ. So each forked dbt run, with
``DBT_DEID_TEST_JINJA_CACHE`` naming a folder, keeps what ``jinja2.Environment.compile``
(a code object, :mod:`marshal`) and ``jinja2.Environment.parse`` (the template's syntax tree,
:mod:`pickle`, its environment left out and given back on load) return, keyed by everything
they depend on: the source, the name and file name, the environment's class, lexer settings,
extensions, code generator, finalizer, autoescape and its filters' and tests' functions (the
code generator checks filter and test names, and folds constant filter calls), and Jinja's and
Python's versions. A later run with an equal key loads it instead of computing it.

What is cached is what Jinja would compute again from the same inputs: rendering is untouched
(the variables, the warehouse and every macro's output are the run's own), a template that
fails to compile is never stored (its error is raised as before), and each load gives the
caller a fresh object. dbt's macro debugging (``DBT_MACRO_DEBUGGING``, which writes compiled
templates out) turns the cache off. Runs that are not forked (``DBT_DEID_TEST_NO_FORK=1``)
use no cache: they are plain dbt.
"""

from __future__ import annotations

import hashlib
import io
import marshal
import os
import pickle
import sys
from pathlib import Path
from typing import Any

ENV = "DBT_DEID_TEST_JINJA_CACHE"


def install(folder: str | os.PathLike) -> None:
    """Route ``jinja2.Environment.compile`` and ``.parse`` through the cache in ``folder`` (in
    this process: a forked dbt run, before dbt runs)."""
    import jinja2

    if os.environ.get("DBT_MACRO_DEBUGGING") or getattr(jinja2.Environment, "_dbt_deid_cache",
                                                         None):
        return
    root = Path(folder)
    compile_, parse = jinja2.Environment.compile, jinja2.Environment.parse
    version = f"{jinja2.__version__}|{sys.version}"

    def cached_compile(self, source, name=None, filename=None, raw=False, defer_init=False):
        if not isinstance(source, str):
            return compile_(self, source, name, filename, raw, defer_init)
        path = _path(root, "c", version, environment_key(self), source, name, filename, raw,
                     defer_init)
        found = _load(path)
        if found is not None:
            return found.decode() if raw else marshal.loads(found)
        result = compile_(self, source, name, filename, raw, defer_init)
        _store(path, result.encode() if raw else marshal.dumps(result))
        return result

    def cached_parse(self, source, name=None, filename=None):
        path = _path(root, "p", version, environment_key(self), source, name, filename)
        found = _load(path)
        if found is not None:
            return _Unpickler(io.BytesIO(found), self).load()
        tree = parse(self, source, name, filename)
        buffer = io.BytesIO()
        _Pickler(buffer, self).dump(tree)
        _store(path, buffer.getvalue())
        return tree

    jinja2.Environment.compile = cached_compile
    jinja2.Environment.parse = cached_parse
    jinja2.Environment._dbt_deid_cache = (compile_, parse)


def uninstall() -> None:
    """Jinja's own ``compile`` and ``parse`` again (for tests of this module)."""
    import jinja2

    saved = getattr(jinja2.Environment, "_dbt_deid_cache", None)
    if saved:
        jinja2.Environment.compile, jinja2.Environment.parse = saved
        del jinja2.Environment._dbt_deid_cache


#: Attributes of an environment that its lexer, parser and code generator read.
_SETTINGS = ("block_start_string", "block_end_string", "variable_start_string",
             "variable_end_string", "comment_start_string", "comment_end_string",
             "line_statement_prefix", "line_comment_prefix", "trim_blocks", "lstrip_blocks",
             "newline_sequence", "keep_trailing_newline", "optimized", "is_async", "sandboxed")
#: environment_key by the objects it is computed from (see below).
_KEYS: dict[tuple, str] = {}


def environment_key(env: Any) -> str:
    """What an environment's lexer, parser and code generator read (not its globals, nor its
    loader: rendering reads those). Remembered by those objects themselves (the environment's
    class, settings, code generator, autoescape, finalizer, extensions' classes and priorities,
    filters and tests, each compared by equality, functions by identity): a full parse asks
    ~4,000 times, of ~4,000 environments (one per template) with two distinct keys, and the
    names of ~150 filters and tests each time were ~0.45 CPU s of it (2026-11-27,
    docs/performance.md, "Suite CPU, session 8")."""
    try:
        seen = (type(env), env.code_generator_class, env.autoescape, env.finalize,
                *(getattr(env, a) for a in _SETTINGS),
                tuple((n, type(e), e.priority) for n, e in env.extensions.items()),
                tuple(env.filters.items()), tuple(env.tests.items()))
        found = _KEYS.get(seen)
    except TypeError:  # something unhashable: computed every time
        return _environment_key(env)
    if found is None:
        found = _KEYS[seen] = _environment_key(env)
    return found


def _environment_key(env: Any) -> str:
    def named(obj: Any) -> str:
        target = getattr(obj, "__func__", obj)
        return f"{getattr(target, '__module__', '')}.{getattr(target, '__qualname__', repr(obj))}"

    settings = [type(env).__module__, type(env).__qualname__, named(env.code_generator_class)]
    settings += [repr(getattr(env, a)) for a in _SETTINGS]
    settings += [named(env.autoescape) if callable(env.autoescape) else repr(env.autoescape),
                 named(env.finalize) if env.finalize else "-"]
    settings += [f"{n}={named(type(e))}:{e.priority}" for n, e in sorted(env.extensions.items())]
    settings += [f"f:{n}={named(f)}" for n, f in sorted(env.filters.items())]
    settings += [f"t:{n}={named(f)}" for n, f in sorted(env.tests.items())]
    return "\n".join(settings)


def _path(root: Path, kind: str, *parts: Any) -> Path:
    digest = hashlib.sha256("\x00".join(map(repr, parts)).encode()).hexdigest()
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


class _Pickler(pickle.Pickler):
    """Pickles a syntax tree without its environment (every node holds it)."""

    def __init__(self, file: io.BytesIO, env: Any) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.env = env

    def persistent_id(self, obj: Any) -> str | None:
        return "environment" if obj is self.env else None


class _Unpickler(pickle.Unpickler):
    """Loads a tree with the caller's environment where the stored one was."""

    def __init__(self, file: io.BytesIO, env: Any) -> None:
        super().__init__(file)
        self.env = env

    def persistent_load(self, pid: str) -> Any:
        if pid != "environment":
            raise pickle.UnpicklingError(pid)
        return self.env
