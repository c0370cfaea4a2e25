"""The package's shape: imports run one way through the layers, modules stay small,
and nobody asks an engine or a search what it can do.

The layers, in the order data flows (docs/architecture.md): gdl -> reasoner ->
propnet -> engines -> search -> player -> server -> referee -> cli. A module
may import from its own layer and earlier ones, never from a later one, and no
import cycle may join two modules (function-level imports count too: a lazy
import is still a dependency).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ggp_agent.gdl.analysis import strongly_connected_components

PACKAGE = Path(__file__).resolve().parents[1] / "ggp_agent"

LAYERS = ("gdl", "reasoner", "propnet", "engines", "search", "player", "server", "referee", "cli")

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


def dependency_graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_every_module_belongs_to_a_layer():
    for name in all_modules():
        parts = name.split(".")
        assert len(parts) == 1 or parts[1] in LAYERS + FOUNDATION, \
            f"{name} is in no layer; add it to one (docs/architecture.md)"


def test_imports_never_go_from_an_earlier_layer_to_a_later_one():
    def layer_name(module: str) -> str:
        return "foundation" if layer_of(module) < 0 else LAYERS[layer_of(module)]

    wrong = [
        f"{name} (layer {layer_name(name)}) imports {target} (layer {layer_name(target)})"
        for name, targets in dependency_graph().items()
        for target in sorted(targets)
        if layer_of(target) > layer_of(name)
    ]
    assert not wrong, "imports against the data flow:\n" + "\n".join(wrong)


def test_no_import_cycle_inside_the_package():
    graph = dependency_graph()
    components = strongly_connected_components(sorted(graph), lambda name: sorted(graph[name]))
    cycles = [component for component in components if len(component) > 1]
    assert not cycles, f"import cycles: {cycles}"


def test_the_checker_sees_a_cycle_and_a_backward_import():
    """The two checks above on a made-up graph: they must be able to fail."""
    graph = {"ggp_agent.search.a": {"ggp_agent.player.b"}, "ggp_agent.player.b": {"ggp_agent.search.a"}}
    components = strongly_connected_components(sorted(graph), lambda name: sorted(graph[name]))
    assert [sorted(c) for c in components if len(c) > 1] == [["ggp_agent.player.b", "ggp_agent.search.a"]]
    assert layer_of("ggp_agent.player.b") > layer_of("ggp_agent.search.a")


@pytest.mark.parametrize("name", sorted(all_modules()))
def test_module_is_small(name):
    lines = all_modules()[name].read_text(encoding="utf-8").count("\n")
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
