"""The package's import structure (issue 15): no import circles in ``src/dbt_deid``, the dbt
glue (:mod:`dbt_deid.glue`, :mod:`dbt_deid.dbt_entry`) imported by no core module, and dbt
Python models that import nothing from dbt_deid but :mod:`dbt_deid.dbt_entry`.

The graph is read from the source with :mod:`ast` (module-level and function-level imports,
``if TYPE_CHECKING`` blocks included): importing ``a.b.c`` runs ``a/b/__init__.py`` too, so an
import also points at the packages above its target (except the importer's own packages, which
are already initialising when it runs).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
MODEL_DIRS = ("python_models", "demo/models", "integration_tests/models")
GLUE = ("dbt_deid.glue", "dbt_deid.dbt_entry")


def _modules(src: Path, package: str) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for p in sorted((src / package).rglob("*.py")):
        parts = list(p.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _imported_names(
    tree: ast.AST, package: str, is_module: Callable[[str], bool]
) -> Iterable[str]:
    """Every dotted name an ``import`` / ``from ... import`` anywhere in ``tree`` reaches:
    ``from a import b`` gives ``a.b`` when that is a module, else ``a`` (``b`` is a name that
    ``a`` defines or re-exports)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            for a in node.names:
                yield f"{base}.{a.name}" if is_module(f"{base}.{a.name}") else base


def import_graph(src: Path, package: str = "dbt_deid") -> dict[str, set[str]]:
    """Module -> the modules of ``package`` it imports (and the packages that run with them)."""
    mods = _modules(src, package)

    def resolve(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for m, path in mods.items():
        own = m if path.name == "__init__.py" else m.rpartition(".")[0]
        targets: set[str] = set()
        tree = ast.parse(path.read_text(), str(path))
        for name in _imported_names(tree, own, mods.__contains__):
            target = resolve(name) if name.split(".")[0] == package else None
            if target is None:
                continue
            targets.add(target)
            parts = target.split(".")
            for i in range(2, len(parts)):
                above = ".".join(parts[:i])
                if above in mods and not (m == above or m.startswith(above + ".")):
                    targets.add(above)
        targets.discard(m)
        graph[m] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_cycle_finder_sees_function_level_and_package_circles(tmp_path: Path) -> None:
    """The checker itself: a circle through a function-level import, and one through a
    package ``__init__`` that re-exports, are both found; a clean tree has none."""
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg.b import x\n",
        "pkg/b.py": "def x():\n    from pkg import a\n    return a\n",
        "pkg/sub/__init__.py": "from pkg.sub.inner import y\n",
        "pkg/sub/inner.py": "from pkg.c import z\ny = 1\n",
        "pkg/c.py": "def z():\n    from pkg.sub.inner import y\n    return y\n",
        "pkg/d.py": "import pkg.sub.inner\n",
    })
    found = cycles(import_graph(tmp_path, "pkg"))
    assert ["pkg.a", "pkg.b"] in found
    assert any({"pkg.c", "pkg.sub", "pkg.sub.inner"} <= set(c) for c in found)
    assert all("pkg.d" not in c for c in found)
    _write(tmp_path, {"pkg/b.py": "x = 1\n", "pkg/c.py": "z = 1\n"})
    assert cycles(import_graph(tmp_path, "pkg")) == []


def test_no_import_circles_in_the_package() -> None:
    graph = import_graph(SRC)
    assert len(graph) > 50  # the whole package was read
    assert cycles(graph) == []


def test_the_core_does_not_import_the_dbt_glue() -> None:
    """Only the glue imports the glue: the core's algorithms never depend on dbt frames."""
    graph = import_graph(SRC)
    wrong = sorted(
        f"{m} -> {t}" for m, targets in graph.items() for t in targets
        if not m.startswith(GLUE) and t.startswith(GLUE)
    )
    assert wrong == []


def _model_files() -> list[Path]:
    return sorted(p for d in MODEL_DIRS for p in (ROOT / d).rglob("*.py"))


def _dbt_deid_imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name.split(".")[0] == "dbt_deid"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "dbt_deid":
            out.append(node.module or "")
    return out


@pytest.mark.parametrize("directory", MODEL_DIRS)
def test_python_models_import_only_the_glue_module(directory: str) -> None:
    files = [p for p in _model_files() if p.is_relative_to(ROOT / directory)]
    assert files
    wrong = {
        str(p.relative_to(ROOT)): mods for p in files
        if (mods := [m for m in _dbt_deid_imports(p) if m != "dbt_deid.dbt_entry"])
    }
    assert wrong == {}


def test_the_model_check_sees_other_imports(tmp_path: Path) -> None:
    bad = tmp_path / "m.py"
    bad.write_text("def model(dbt, session):\n    import dbt_deid.ola\n"
                   "    from dbt_deid.dbt_entry import to_pandas\n"
                   "    from dbt_deid.risk import x\n")
    assert _dbt_deid_imports(bad) == ["dbt_deid.ola", "dbt_deid.dbt_entry", "dbt_deid.risk"]


def test_a_submodule_import_from_the_own_package_is_no_circle(tmp_path: Path) -> None:
    """``from pkg import sibling`` inside pkg imports the sibling module, not pkg's
    ``__init__`` again (Python is initialising it already); ``from pkg import name`` of a name
    the ``__init__`` re-exports from a module that imports back is a circle."""
    _write(tmp_path, {
        "pkg/__init__.py": "from pkg.a import f\n",
        "pkg/a.py": "from pkg import b\nf = 1\n",
        "pkg/b.py": "g = 2\n",
    })
    assert cycles(import_graph(tmp_path, "pkg")) == []
    _write(tmp_path, {"pkg/b.py": "from pkg import f\ng = f\n"})
    assert cycles(import_graph(tmp_path, "pkg")) == [["pkg", "pkg.a", "pkg.b"]]


def test_dbt_entry_exports_every_name_from_its_home() -> None:
    """Every lazily re-exported name resolves to the object its home module defines, and the
    TYPE_CHECKING imports name the same homes (so the import graph sees them)."""
    import importlib

    import dbt_deid.dbt_entry as entry

    tree = ast.parse(Path(entry.__file__).read_text())
    typed = {a.asname or a.name: node.module for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.module != "__future__"
             and node.module not in {"typing"} for a in node.names}
    typed.pop("TYPE_CHECKING", None)
    typed.pop("Any", None)
    assert typed == entry._HOMES
    assert sorted(entry.__all__) == sorted(entry._HOMES)
    for name, home in entry._HOMES.items():
        assert getattr(entry, name) is getattr(importlib.import_module(home), name)
    with pytest.raises(AttributeError):
        _ = entry.no_such_name
