"""The package's shape: imports run one way through the layers, modules stay small
(the tests', the game library's and the docs' Python files too), and nobody
asks an engine or a search what it can do.

The layers, in the order data flows (docs/architecture.md): gdl -> reasoner ->
propnet -> engines -> search -> player -> server -> referee -> cli. A module
may import from its own layer and earlier ones, never from a later one, and no
import cycle may join two modules (function-level imports count too: a lazy
import is still a dependency).

A layer may be divided into rooms, sub-packages in an order of their own
(`ROOMS`): inside the layer a module imports from its own room and the rooms
before it, never a later one; the layer's top-level modules come after every
room (they may import any room, and no room imports them).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from ggp_agent.gdl.analysis import strongly_connected_components

PACKAGE = Path(__file__).resolve().parents[1] / "ggp_agent"

LAYERS = ("gdl", "reasoner", "propnet", "engines", "search", "player", "server", "referee", "cli")

#: The rooms of a layer, first to last (the layer's `__init__` docstring says what each is for).
ROOMS = {
    "propnet": ("jit", "grounding", "kernels", "network", "machine", "lazy"),
    "search": ("contract", "tree", "choices", "runners", "driver", "parallel", "hidden"),
}

#: A layer with rooms keeps at most this many modules beside them.
MAX_TOP_MODULES = 12

#: No module of the package is longer than this (a longer one is usually two jobs).
MAX_LINES = 500


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports, anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [source] + [f"{source}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            if target in modules and target != name:
                found.add(target)
    return found


#: Modules beneath every layer: they import nothing from the package, and anything may import them.
FOUNDATION = ("folders", "cores")


def layer_of(name: str) -> int:
    parts = name.split(".")
    if len(parts) == 1 or parts[1] in FOUNDATION:
        return -1  # the package itself, and its foundation
    return LAYERS.index(parts[1])


def rank_of(name: str) -> tuple[int, int]:
    """(layer, room) of a module: a module may import only modules of rank at
    most its own. A layer's top-level modules rank after its rooms."""
    parts = name.split(".")
    rooms = ROOMS.get(parts[1], ()) if len(parts) > 1 else ()
    if len(parts) > 2 and parts[2] in rooms:
        return layer_of(name), rooms.index(parts[2])
    return layer_of(name), len(rooms)


def place_name(name: str) -> str:
    layer, room = rank_of(name)
    if layer < 0:
        return "foundation"
    rooms = ROOMS.get(LAYERS[layer], ())
    return f"{LAYERS[layer]}.{rooms[room]}" if room < len(rooms) else LAYERS[layer]


def dependency_graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_every_module_belongs_to_a_layer():
    for name in all_modules():
        parts = name.split(".")
        assert len(parts) == 1 or parts[1] in LAYERS + FOUNDATION, \
            f"{name} is in no layer; add it to one (docs/architecture.md)"


def against_the_grain(graph: dict[str, set[str]]) -> list[str]:
    """Every import in `graph` from an earlier layer or room to a later one."""
    return [
        f"{name} ({place_name(name)}) imports {target} ({place_name(target)})"
        for name, targets in graph.items()
        for target in sorted(targets)
        if rank_of(target) > rank_of(name)
    ]


def test_every_module_of_a_layer_with_rooms_is_in_a_room_or_at_its_top():
    for name, path in all_modules().items():
        parts = name.split(".")
        if len(parts) > 3 or (len(parts) == 3 and path.name == "__init__.py"):
            if parts[1] in ROOMS:
                assert parts[2] in ROOMS[parts[1]], \
                    f"{name} is in no room of {parts[1]}; add its sub-package to ROOMS (and to the layer's docstring)"


def test_a_layer_with_rooms_keeps_few_modules_beside_them():
    for layer in ROOMS:
        top = [name for name, path in all_modules().items()
               if name.count(".") == 2 and name.split(".")[1] == layer and path.name != "__init__.py"]
        assert len(top) <= MAX_TOP_MODULES, \
            f"{layer} has {len(top)} top-level modules: {sorted(top)}; move some into a room"


def test_every_room_says_what_it_is_for():
    for layer, rooms in ROOMS.items():
        for room in rooms:
            init = PACKAGE / layer / room / "__init__.py"
            assert init.is_file(), f"{layer}.{room} has no __init__.py"
            docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
            assert docstring, f"{layer}.{room}'s __init__ has no docstring"


def test_imports_never_go_from_an_earlier_layer_or_room_to_a_later_one():
    wrong = against_the_grain(dependency_graph())
    assert not wrong, "imports against the data flow:\n" + "\n".join(wrong)


def test_no_import_cycle_inside_the_package():
    graph = dependency_graph()
    components = strongly_connected_components(sorted(graph), lambda name: sorted(graph[name]))
    cycles = [component for component in components if len(component) > 1]
    assert not cycles, f"import cycles: {cycles}"


def test_the_checker_sees_a_cycle_and_a_backward_import():
    """The checks above on a made-up graph: they must be able to fail."""
    graph = {"ggp_agent.search.a": {"ggp_agent.player.b"}, "ggp_agent.player.b": {"ggp_agent.search.a"}}
    components = strongly_connected_components(sorted(graph), lambda name: sorted(graph[name]))
    assert [sorted(c) for c in components if len(c) > 1] == [["ggp_agent.player.b", "ggp_agent.search.a"]]
    assert against_the_grain(graph) == ["ggp_agent.search.a (search) imports ggp_agent.player.b (player)"]


def test_the_checker_sees_an_import_against_the_rooms():
    """A room importing a later room, or the layer's top, is against the grain;
    the reverse, and a room importing an earlier layer, are not."""
    graph = {
        "ggp_agent.search.tree.select": {"ggp_agent.search.driver.tree_search", "ggp_agent.propnet.jit.decorators"},
        "ggp_agent.search.hidden.determinized": {"ggp_agent.search.registry", "ggp_agent.search.driver.tree_search"},
        "ggp_agent.search.registry": {"ggp_agent.search.hidden.determinized"},
        "ggp_agent.propnet.kernels.state_kernels": {"ggp_agent.propnet.network.arrays",
                                                    "ggp_agent.propnet.jit.decorators"},
        "ggp_agent.propnet.network.arrays": {"ggp_agent.propnet.kernels.state_kernels"},
    }
    assert against_the_grain(graph) == [
        "ggp_agent.search.tree.select (search.tree) imports ggp_agent.search.driver.tree_search (search.driver)",
        "ggp_agent.search.hidden.determinized (search.hidden) imports ggp_agent.search.registry (search)",
        "ggp_agent.propnet.kernels.state_kernels (propnet.kernels) imports ggp_agent.propnet.network.arrays"
        " (propnet.network)",
    ]


def line_count(path: Path) -> int:
    return path.read_text(encoding="utf-8").count("\n")


@pytest.mark.parametrize("name", sorted(name for name in all_modules() if not name.endswith("__main__")))
def test_every_module_imports(name):
    """The import graph above reads names, not whether they exist: a module
    that imports a name its source module no longer has (a kernel decorator
    after the propnet's rooms moved it) passes it and fails only when run."""
    importlib.import_module(name)


@pytest.mark.parametrize("name", sorted(all_modules()))
def test_module_is_small(name):
    lines = line_count(all_modules()[name])
    assert lines <= MAX_LINES, f"{name} has {lines} lines (at most {MAX_LINES}: split it by job)"


#: Beside the package, the folders whose Python files keep the same limit: the
#: tests, the game library's generator and measurements, the docs' scripts.
OTHER_PYTHON_FOLDERS = ("tests", "gdl_games", "docs")


def other_python_files() -> dict[str, Path]:
    root = PACKAGE.parent
    return {str(path.relative_to(root)): path
            for folder in OTHER_PYTHON_FOLDERS for path in sorted((root / folder).rglob("*.py"))}


def test_the_other_folders_hold_python_files():
    """The check below must see files to check (a renamed folder would empty it)."""
    files = other_python_files()
    assert all(any(name.startswith(folder + "/") for name in files) for folder in OTHER_PYTHON_FOLDERS)


@pytest.mark.parametrize("name", sorted(other_python_files()))
def test_every_other_python_file_is_small(name):
    lines = line_count(other_python_files()[name])
    assert lines <= MAX_LINES, f"{name} has {lines} lines (at most {MAX_LINES}: split it by job)"


def test_no_capability_probing():
    """Callers use what an interface declares: no hasattr, no getattr with a default."""
    found = []
    for name, path in all_modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "hasattr" or (node.func.id == "getattr" and len(node.args) == 3):
                    found.append(f"{name}:{node.lineno}: {node.func.id}")
    assert not found, "capability probing:\n" + "\n".join(found)
