"""The package's rooms: imports run one way, downward, and no module imports a room above it."""

from __future__ import annotations

import ast
from pathlib import Path

import drawlog

PACKAGE = Path(drawlog.__file__).parent
#: Each room's level: a module may import its own room and the rooms of lower levels only.
LEVEL = {"errors": 0, "atomic": 1, "engine": 1, "log": 1, "check": 2, "tables": 3, "views": 3, "play": 3, "analysis": 3,
         "api": 4, "cli": 5, "__main__": 6}


def _room(module: str) -> str:
    return module.split(".")[0]


def _imports(path: Path) -> set[str]:
    """The drawlog modules a file imports, as paths below the package (``engine.tiles``)."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(parts[: len(parts) - node.level])
            target = ".".join(base + ([node.module] if node.module else []))
            if target:
                found.add(target)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("drawlog."):
            found.add(node.module.removeprefix("drawlog."))
    return found


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
