"""The Python package's layout: its modules import each other in one direction (no cycle), no file is named
for when it was written, and no source line dates code by the work period that wrote it.

The import graph is read from the sources with `ast`, so it is the graph of imports that run when a module
is imported (module level, class bodies, if/try blocks), not of imports inside functions. An import of
`lazytensor.a.b` from outside `lazytensor.a` also runs `lazytensor/a/__init__.py`, so it is an edge to
`lazytensor.a` too; packages the importer is inside of are already being imported and are no edge.
"""
import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "bindings" / "python" / "lazytensor"
TESTS = ROOT / "test" / "python"
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
EXTENSION = "lazytensor._C"  # the pybind11 module: a leaf with no Python source


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources():
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts}


def _import_nodes(tree, in_function=False):
    """(node, inside a function body) for every import statement of the tree."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, in_function
        yield from _import_nodes(node, in_function or isinstance(node, FUNCTIONS))


def _targets(name, path, node, known):
    """The package modules an import statement of module `name` loads."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in known]
    if node.level:
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
        base = base + "." + node.module if node.module else base
    else:
        base = node.module or ""
    out = [base + "." + a.name for a in node.names if base + "." + a.name in known]
    if len(out) < len(node.names) and base in known:
        out.append(base)  # `from base import name` where name is not a submodule
    return out


def _with_parent_packages(importer, target, known):
    """target and the packages above it that importing it runs, except those importer is inside of."""
    out, parts = [target], target.split(".")
    for k in range(1, len(parts)):
        parent = ".".join(parts[:k])
        if parent in known and not (importer == parent or importer.startswith(parent + ".")):
            out.append(parent)
    return out


def import_graph():
    sources = _sources()
    modules = set(sources) | {EXTENSION}
    graph = {}
    for name, path in sources.items():
        tree = ast.parse(path.read_text(), str(path))
        edges = set()
        for node, in_function in _import_nodes(tree):
            if in_function:
                continue
            for target in _targets(name, path, node, modules):
                if target != EXTENSION:
                    edges.update(t for t in _with_parent_packages(name, target, sources) if t != name)
        graph[name] = sorted(edges)
    return graph


def find_cycle(graph):
    """One cycle of the graph as a list of nodes (first == last), or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = "open"
        stack.append(n)
        for m in graph.get(n, ()):
            if state.get(m) == "open":
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = "done"
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_the_import_graph_is_read_from_every_module():
    graph = import_graph()
    assert {"lazytensor", "lazytensor._tensor", "lazytensor.functional", "lazytensor.nn.functional",
            "lazytensor.nn.modules", "lazytensor.nn.modules.conv", "lazytensor.optim", "lazytensor.utils.data"} <= set(graph)
    assert "lazytensor.functional" in graph["lazytensor._tensor"]
    assert "lazytensor.nn.modules.module" in graph["lazytensor.nn.modules.conv"]
    # from .. import functional as F, inside nn.modules: the module, not the package nn/__init__ it is inside of
    assert "lazytensor.nn.functional" in graph["lazytensor.nn.modules.conv"]
    assert "lazytensor.nn" not in graph["lazytensor.nn.modules.conv"]
    # from .. import _C names the extension, not the package lazytensor/__init__.py
    assert "lazytensor" not in graph["lazytensor._creation"]


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": ["b"], "b": ["c"], "c": ["a"]}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": ["b", "c"], "b": ["c"], "c": []}) is None


def test_no_import_cycle_between_package_modules():
    cycle = find_cycle(import_graph())
    assert cycle is None, "module-level import cycle: " + " -> ".join(cycle)


def test_no_function_imports_a_package_module():
    """An import inside a function that names a package module is how a cycle is hidden: put it at the top."""
    found = []
    for name, path in _sources().items():
        for node, in_function in _import_nodes(ast.parse(path.read_text(), str(path))):
            if in_function and (isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(
                    "lazytensor")) or isinstance(node, ast.Import) and any(
                    a.name.startswith("lazytensor") for a in node.names)):
                found.append("{}:{}".format(path.relative_to(ROOT), node.lineno))
    assert not found, found


def test_no_file_is_named_more_or_extra():
    paths = [p for top in (PACKAGE, TESTS) for p in top.rglob("*") if "__pycache__" not in p.parts]
    bad = [str(p.relative_to(ROOT)) for p in paths if re.search("more|extra", p.name, re.IGNORECASE)]
    assert not bad, bad


def test_no_source_line_dates_code_by_work_period():
    narration = re.compile(r"\bsession\s*#?\d+", re.IGNORECASE)
    bad = []
    for top in (PACKAGE, TESTS):
        for path in sorted(top.rglob("*.py")):
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if narration.search(line):
                    bad.append("{}:{}: {}".format(path.relative_to(ROOT), i, line.strip()))
    assert not bad, "\n".join(bad)
