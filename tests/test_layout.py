"""The package's rooms: imports run one way, downward, no module imports a room above it, and no modules import
each other in a circle (directly or through others)."""

from __future__ import annotations

import ast
from pathlib import Path

import drawlog

PACKAGE = Path(drawlog.__file__).parent
#: Each room's level: a module may import its own room and the rooms of lower levels only.
#: analysis uses engine and play (and reads what tables and views do not need), so it stands above them.
LEVEL = {"errors": 0, "atomic": 1, "engine": 1, "log": 1, "check": 2, "tables": 3, "views": 3, "play": 3, "analysis": 4,
         "api": 5, "bots": 5, "cli": 6, "__main__": 7}


def _room(module: str) -> str:
    return module.split(".")[0]


def _module_name(path: Path) -> str:
    """A file's module, as a path below the package: ``engine.tiles``; a package's ``__init__`` is the package."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


#: Every module of the package, by name (``engine.tiles``; ``""`` is the package itself).
MODULES = {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _imports(path: Path) -> set[str]:
    """The drawlog modules a file imports, as paths below the package (``engine.tiles``).

    Every ``from … import`` anywhere counts: at the top, inside a function, under ``TYPE_CHECKING``.
    ``from . import parallel`` names the module ``tables.parallel``, not the package.
    """
    return _imports_of_text(path.read_text(), path.relative_to(PACKAGE).with_suffix("").parts)


def _imports_of_text(text: str, parts: tuple[str, ...]) -> set[str]:
    """The drawlog modules the source ``text`` of the module at ``parts`` (``("tables", "dataset")``) imports."""
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(parts[: len(parts) - node.level])
            target = ".".join(base + ([node.module] if node.module else []))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("drawlog."):
            target = node.module.removeprefix("drawlog.")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("drawlog."):
                    found.add(alias.name.removeprefix("drawlog."))
            continue
        else:
            continue
        for alias in node.names:
            inner = f"{target}.{alias.name}" if target else alias.name
            if inner in MODULES:
                found.add(inner)
            elif target:
                found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    """Who imports whom among the package's modules (the package's own ``__init__``, the public face, left out)."""
    return {name: {target for target in _imports(path) if target in MODULES and target not in ("", name)}
            for name, path in MODULES.items() if name}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: one per group of modules that reach each other (Tarjan's strongly connected
    components), each named by a shortest path around it (``a → b → a``)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_around(graph, group) for group in groups]


def _named(circle: list[str], graph: dict[str, set[str]]) -> str:
    """A circle as the message shows it: ``log/reader → log/remote → log/reader``, with the other modules caught in
    the same knot."""
    group = _knot(graph, circle[0])
    others = sorted(group - set(circle))
    shown = " → ".join(name.replace(".", "/") for name in circle)
    return shown + (f"  (caught in it too: {', '.join(name.replace('.', '/') for name in others)})" if others else "")


def _knot(graph: dict[str, set[str]], start: str) -> set[str]:
    """The modules that ``start`` reaches and that reach it back."""
    def reach(node: str, edges: dict[str, set[str]]) -> set[str]:
        seen, todo = {node}, [node]
        while todo:
            for target in edges.get(todo.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        return seen
    backwards: dict[str, set[str]] = {}
    for node, targets in graph.items():
        for target in targets:
            backwards.setdefault(target, set()).add(node)
    return reach(start, graph) & reach(start, backwards)


def _around(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest circle through the first module of ``group``, within it: ``[a, b, a]``."""
    start = min(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & group):
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start] if node != start else [start, start]
                if target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    return sorted(group)  # not reached: every member of a group reaches the others


def test_every_module_lives_in_a_room():
    rooms = {_room(".".join(path.relative_to(PACKAGE).with_suffix("").parts))
             for path in PACKAGE.rglob("*.py") if path.name != "__init__.py" or path.parent != PACKAGE}
    assert rooms <= set(LEVEL)


def test_imports_run_downward():
    upward = []
    for path in PACKAGE.rglob("*.py"):
        here = path.relative_to(PACKAGE).with_suffix("").parts
        if here == ("__init__",):
            continue  # the public face re-exports from every room
        room = here[0]
        for target in _imports(path):
            other = _room(target)
            if other in LEVEL and other != room and LEVEL[other] >= LEVEL[room] and other != "__init__":
                upward.append(f"{'/'.join(here)} imports {target}")
    assert upward == []


def test_no_import_circles():
    graph = _graph()
    circles = [_named(circle, graph) for circle in _circles(graph)]
    assert circles == [], "modules import each other in a circle (move the shared piece into a lower module of " \
                          "its own, or use a Protocol for a type-only need):\n  " + "\n  ".join(circles)


def test_the_circle_check_finds_circles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"f"}, "f": {"e"}}
    assert _circles(graph) == [["a", "b", "c", "a"], ["e", "f", "e"]]
    assert _named(["a", "b", "a"], {"a": {"b", "c"}, "b": {"a"}, "c": {"a"}}) == "a → b → a  (caught in it too: c)"
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_imports_inside_functions_and_type_checking_count():
    text = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from drawlog.log.reader import Source\n"
            "def f():\n    from . import stats\n    from ..log import remote\n")
    assert _imports_of_text(text, ("tables", "probe")) == {"log.reader", "tables.stats", "log.remote"}
