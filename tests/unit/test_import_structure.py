"""The package's import structure (issues 15 and 33): no import circles in ``src/dbt_deid``;
three layers, the core (:mod:`dbt_deid`, typed numpy/pandas) <- the dbt side
(:mod:`dbt_deid.dbt_side`: glue, engine, release files, lineage) <- the tools
(:mod:`dbt_deid.tools`: CLI, synthetic data, demos), with no edge back; the core imports no dbt
(read from the source, and proved by importing every core module with dbt blocked); and dbt
Python models that import nothing from dbt_deid but :mod:`dbt_deid.dbt_side.entry` (the demo
projects' source models also :mod:`dbt_deid.tools.demo_entry`).

The graph is read from the source with :mod:`ast` (module-level and function-level imports,
``if TYPE_CHECKING`` blocks included): importing ``a.b.c`` runs ``a/b/__init__.py`` too, so an
import also points at the packages above its target (except the importer's own packages, which
are already initialising when it runs).
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
MODEL_DIRS = ("python_models", "demo/models", "integration_tests/models")
GLUE = ("dbt_deid.dbt_side.glue", "dbt_deid.dbt_side.entry")
#: The layers, lowest first; a module is in the last layer whose prefix it matches (the core is
#: everything else). ``python -m dbt_deid`` runs ``dbt_deid/__main__.py``: a tool.
LAYERS = ("core", "dbt side", "tools")
DBT_SIDE = ("dbt_deid.dbt_side",)
TOOLS = ("dbt_deid.tools", "dbt_deid.__main__")
#: The modules each kind of dbt Python model may import.
PACKAGE_ENTRY = "dbt_deid.dbt_side.entry"
DEMO_ENTRY = "dbt_deid.tools.demo_entry"


@functools.cache
def _parse_text(text: str, name: str) -> ast.AST:
    return ast.parse(text, name)


def _parse(path: Path) -> ast.AST:
    """The module's syntax tree, parsed once per text (several tests read the same tree)."""
    return _parse_text(path.read_text(), str(path))


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
        tree = _parse(path)
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


def _under(module: str, prefixes: Iterable[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def layer(module: str, dbt_side: Iterable[str] = DBT_SIDE, tools: Iterable[str] = TOOLS) -> int:
    """0 for the core, 1 for the dbt side, 2 for the tools."""
    return 2 if _under(module, tools) else 1 if _under(module, dbt_side) else 0


def back_edges(graph: dict[str, set[str]], **prefixes: Iterable[str]) -> list[str]:
    """``importer -> imported`` for every import of a higher layer by a lower one."""
    return sorted(
        f"{m} ({LAYERS[layer(m, **prefixes)]}) -> {t} ({LAYERS[layer(t, **prefixes)]})"
        for m, targets in graph.items() for t in targets
        if layer(t, **prefixes) > layer(m, **prefixes)
    )


def dbt_imports(path: Path) -> list[str]:
    """Every import of ``dbt`` or a ``dbt.*`` module in the file (function-level ones too)."""
    names: list[str] = []
    for node in ast.walk(_parse(path)):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.append(node.module or "")
    return [n for n in names if n == "dbt" or n.startswith("dbt.")]


def core_modules(src: Path = SRC) -> dict[str, Path]:
    return {m: p for m, p in _modules(src, "dbt_deid").items() if layer(m) == 0}


def test_the_layer_checker_sees_back_edges(tmp_path: Path) -> None:
    """The checker itself: the dbt side importing a tool, and the core importing either, are
    back edges (function-level imports too); tools importing both and the dbt side importing
    the core are not; a core module's ``from dbt.x import y`` is seen, ``dbt_deid`` is not dbt."""
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/core.py": "import pkg.other\n",
        "pkg/other.py": "def f():\n    from dbt.cli.main import dbtRunner\n    return dbtRunner\n",
        "pkg/side/__init__.py": "",
        "pkg/side/glue.py": "from pkg import core\n",
        "pkg/tools/__init__.py": "",
        "pkg/tools/cli.py": "from pkg.side import glue\nfrom pkg import core\n",
    })
    prefixes = {"dbt_side": ("pkg.side",), "tools": ("pkg.tools",)}
    assert back_edges(import_graph(tmp_path, "pkg"), **prefixes) == []
    assert dbt_imports(tmp_path / "pkg/other.py") == ["dbt.cli.main"]
    assert dbt_imports(tmp_path / "pkg/core.py") == []
    _write(tmp_path, {
        "pkg/side/glue.py": "def g():\n    import pkg.tools.cli\n",
        "pkg/core.py": "import dbt\nfrom pkg.side import glue\n",
    })
    assert back_edges(import_graph(tmp_path, "pkg"), **prefixes) == [
        "pkg.core (core) -> pkg.side (dbt side)",
        "pkg.core (core) -> pkg.side.glue (dbt side)",
        "pkg.side.glue (dbt side) -> pkg.tools (tools)",
        "pkg.side.glue (dbt side) -> pkg.tools.cli (tools)",
    ]
    assert dbt_imports(tmp_path / "pkg/core.py") == ["dbt"]


def test_the_layers_have_no_back_edges() -> None:
    """Issue 33: core <- dbt side <- tools. The core never imports the dbt side or the tools,
    the dbt side never imports the tools (demo generators included)."""
    graph = import_graph(SRC)
    assert {layer(m) for m in graph} == {0, 1, 2}
    assert layer("dbt_deid.dbt_side.engine.segmented") == 1
    assert layer("dbt_deid.tools.synthetic.claims") == 2
    assert layer("dbt_deid.__main__") == 2
    assert back_edges(graph) == []


def test_the_core_imports_no_dbt_in_its_source() -> None:
    """No core module imports dbt, not even inside a function (issue 33)."""
    core = core_modules()
    assert len(core) > 50
    wrong = {m: names for m, p in core.items() if (names := dbt_imports(p))}
    assert wrong == {}
    every = {m: names for m, p in _modules(SRC, "dbt_deid").items() if (names := dbt_imports(p))}
    assert every and all(layer(m) == 1 for m in every)  # dbt is imported, by the dbt side only


_BLOCK_DBT = """
import importlib, json, sys

class BlockDbt:
    def find_spec(self, name, path=None, target=None):
        if name == "dbt" or name.startswith("dbt."):
            raise ImportError(f"dbt is blocked: {name}")
        return None

sys.meta_path.insert(0, BlockDbt())
failed = {}
for module in json.loads(sys.argv[1]):
    try:
        importlib.import_module(module)
    except Exception as exc:
        failed[module] = f"{type(exc).__name__}: {exc}"
print(json.dumps({"failed": failed, "dbt": sorted(m for m in sys.modules
                                                    if m == "dbt" or m.startswith("dbt."))}))
"""


def _import_with_dbt_blocked(modules: list[str]) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", _BLOCK_DBT, json.dumps(modules)],
                         capture_output=True, text=True, check=True, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_every_core_module_imports_with_dbt_blocked() -> None:
    """Every core module imports in a fresh interpreter where importing dbt raises, and dbt
    never got loaded; the same blocker does stop an import of dbt (so the test can fail)."""
    core = sorted(core_modules())
    assert _import_with_dbt_blocked(core) == {"failed": {}, "dbt": []}
    probe = _import_with_dbt_blocked(["dbt_deid.progress", "dbt.cli.main"])
    assert set(probe["failed"]) == {"dbt.cli.main"}
    assert "dbt is blocked" in probe["failed"]["dbt.cli.main"]


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
    """The package's Python models import only the dbt side's entry module; the demo projects'
    source models may also import the demo generators' entry module (a tool)."""
    files = [p for p in _model_files() if p.is_relative_to(ROOT / directory)]
    assert files
    allowed = {PACKAGE_ENTRY} if directory == PACKAGE_MODELS else {PACKAGE_ENTRY, DEMO_ENTRY}
    wrong = {
        str(p.relative_to(ROOT)): mods for p in files
        if (mods := [m for m in _dbt_deid_imports(p) if m not in allowed])
    }
    assert wrong == {}


PACKAGE_MODELS = "python_models"
RELEASE_COPIES = ("demo/models/deid_discharge_clinical", "demo/models/deid_discharge_analytical",
                  "integration_tests/models/deid_it_second")


def _dbt_literal_call(node: ast.expr) -> bool:
    """``dbt.ref("...")`` or ``dbt.config.get("...")`` with one string literal."""
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return False
    return ast.unparse(node.func) in ("dbt.ref", "dbt.config.get")


def thin_model_problems(path: Path) -> list[str]:
    """Why the Python model at ``path`` is not thin (empty when it is): its module is at most a
    docstring and ``def model(dbt, session)``, whose body is ``dbt.config(materialized=...)``,
    one ``from dbt_deid.dbt_side.entry import <the model's name>`` and ``return <that name>(...)``
    with only literal ``dbt.ref`` / ``dbt.config.get`` calls as arguments. The model's name is
    the file's, without a release's ``<release>__`` prefix."""
    tree = ast.parse(path.read_text(), str(path))
    name = path.stem.rpartition("__")[2]
    body = list(tree.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef) or body[0].name != "model":
        return ["the module is more than a docstring and def model(dbt, session)"]
    problems = []
    stmts = body[0].body
    if (stmts and isinstance(stmts[0], ast.Expr)
            and ast.unparse(stmts[0]) == "dbt.config(materialized='table')"):
        stmts = stmts[1:]
    if len(stmts) != 2:
        return [f"model() has {len(stmts)} statements besides dbt.config(), not 2"]
    imp, ret = stmts
    if not (isinstance(imp, ast.ImportFrom) and imp.module == "dbt_deid.dbt_side.entry"
            and [a.name for a in imp.names] == [name]):
        problems.append(f"model() does not import just {name} from dbt_deid.dbt_side.entry")
    call = ret.value if isinstance(ret, ast.Return) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id == name):
        return [*problems, f"model() does not return {name}(...)"]
    args = [*call.args, *(k.value for k in call.keywords)]
    problems += [f"argument {ast.unparse(a)} is not a literal dbt.ref / dbt.config.get"
                 for a in args if not _dbt_literal_call(a)]
    return problems


def test_package_python_models_and_release_copies_are_thin() -> None:
    """Issue 15, one concept, one place: a Python model's body is one function of
    :mod:`dbt_deid.dbt_side.glue` named after it, so the package's file and every extra release's
    generated copy are only the dbt calls dbt needs as literals in each file."""
    files = sorted((ROOT / PACKAGE_MODELS).rglob("*.py"))
    files += sorted(p for d in RELEASE_COPIES for p in (ROOT / d).glob("*.py"))
    assert len(files) > 20
    wrong = {str(p.relative_to(ROOT)): problems for p in files
             if (problems := thin_model_problems(p))}
    assert wrong == {}


def test_the_thin_model_check_sees_a_body(tmp_path: Path) -> None:
    ok = tmp_path / "rel__deid_x.py"
    ok.write_text('"""Doc."""\n\n\ndef model(dbt, session):\n    dbt.config(materialized="table")\n'
                  "    from dbt_deid.dbt_side.entry import deid_x\n\n"
                  '    return deid_x(dbt.config.get("c"), dbt.ref("rel__deid_y"),'
                  ' p=dbt.config.get("d"))\n')
    assert thin_model_problems(ok) == []
    fat = tmp_path / "deid_x.py"
    fat.write_text("import json\n\n\ndef model(dbt, session):\n"
                   "    from dbt_deid.dbt_side.entry import deid_x, to_pandas\n\n"
                   '    return deid_x(json.loads(dbt.config.get("c")), to_pandas(dbt.ref("y")))\n')
    assert thin_model_problems(fat) == [
        "the module is more than a docstring and def model(dbt, session)"]
    fat.write_text("def model(dbt, session):\n"
                   "    from dbt_deid.dbt_side.entry import deid_x, to_pandas\n\n"
                   '    return deid_x(dbt.config.get("c"), to_pandas(dbt.ref("y")))\n')
    assert thin_model_problems(fat) == [
        "model() does not import just deid_x from dbt_deid.dbt_side.entry",
        "argument to_pandas(dbt.ref('y')) is not a literal dbt.ref / dbt.config.get"]
    fat.write_text("def model(dbt, session):\n    from dbt_deid.dbt_side.entry import deid_x\n"
                   '    frame = dbt.ref("y")\n    return deid_x(frame)\n')
    assert thin_model_problems(fat) == ["model() has 3 statements besides dbt.config(), not 2"]


def test_the_model_check_sees_other_imports(tmp_path: Path) -> None:
    bad = tmp_path / "m.py"
    bad.write_text("def model(dbt, session):\n    import dbt_deid.ola\n"
                   "    from dbt_deid.dbt_side.entry import to_pandas\n"
                   "    from dbt_deid.risk import x\n")
    assert _dbt_deid_imports(bad) == ["dbt_deid.ola", "dbt_deid.dbt_side.entry", "dbt_deid.risk"]


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


@pytest.mark.parametrize("module", [PACKAGE_ENTRY, DEMO_ENTRY])
def test_dbt_entry_exports_every_name_from_its_home(module: str) -> None:
    """Every lazily re-exported name resolves to the object its home module defines, and the
    TYPE_CHECKING imports name the same homes (so the import graph sees them)."""
    import importlib

    entry = importlib.import_module(module)

    tree = ast.parse(Path(entry.__file__).read_text())
    typed = {a.asname or a.name: node.module for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.module != "__future__"
             and node.module not in {"typing"} for a in node.names}
    typed.pop("TYPE_CHECKING", None)
    typed.pop("lazy_exports", None)
    assert typed == entry._HOMES
    assert sorted(entry.__all__) == sorted(entry._HOMES)
    for name, home in entry._HOMES.items():
        assert getattr(entry, name) is getattr(importlib.import_module(home), name)
    with pytest.raises(AttributeError):
        _ = entry.no_such_name
