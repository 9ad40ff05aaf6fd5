"""The project's own imports form no circle: each module of ``service/`` and ``engines/`` can be
read knowing only the modules it imports, not the ones that import it."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("service", "engines")


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module in ``path``, a file under ``root``."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.Module, name: str, is_package: bool, modules: set[str]) -> set[str]:
    """The project's modules that the module ``name`` imports anywhere: at its top, in a
    function, under ``TYPE_CHECKING``."""
    found: set[str] = set()
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                # ``from package import module`` imports the module; any other name is the
                # module's (or the package's) own.
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in modules else base)
    return {module for module in found if module in modules and module != name}


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Each module of the packages, with the project's modules it imports."""
    paths = {
        module_name(path, root): path
        for package in PACKAGES
        for path in (root / package).rglob("*.py")
    }
    modules = set(paths)
    return {
        name: imported(
            ast.parse(path.read_text(encoding="utf-8")),
            name,
            path.name == "__init__.py",
            modules,
        )
        for name, path in paths.items()
    }


def circles(graph: Mapping[str, set[str]]) -> Iterator[list[str]]:
    """One circle of imports through each group of modules that import each other, as the path
    that goes round it (its first module again at its end)."""
    reported: set[str] = set()
    for start in sorted(graph):
        if start in reported:
            continue
        # The shortest way back to ``start`` from the modules it imports, breadth first.
        came_from: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in came_from:
            following = []
            for module in frontier:
                for target in sorted(graph[module]):
                    if target not in came_from:
                        came_from[target] = module
                        following.append(target)
            frontier = following
        if start in came_from:
            path = [start]
            while len(path) == 1 or path[-1] != start:
                path.append(came_from[path[-1]])
            path.reverse()
            reported.update(path)
            yield path


class TestImports:
    """What imports what among the project's own modules."""

    def test_no_module_imports_itself_round_a_circle(self) -> None:
        """No module of service/ or engines/ imports, by any path, a module that imports it."""
        found = [" -> ".join(circle) for circle in circles(import_graph())]
        assert not found, "import circles:\n" + "\n".join(found)

    def test_a_circle_is_found_and_named(self) -> None:
        """A circle is found and named module by module, back to where it starts."""
        graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
        assert list(circles(graph)) == [["a", "b", "c", "a"]]

    def test_function_level_and_relative_imports_count(self, tmp_path: Path) -> None:
        """An import inside a function and a relative import are edges of the graph."""
        package = tmp_path / "service"
        package.mkdir()
        (tmp_path / "engines").mkdir()
        (package / "__init__.py").write_text("")
        (package / "one.py").write_text("def later():\n    from service import two\n")
        (package / "two.py").write_text("from .one import later\n")
        graph = import_graph(tmp_path)
        assert graph["service.one"] == {"service.two"}
        assert graph["service.two"] == {"service.one"}
