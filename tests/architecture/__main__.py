"""``python -m tests.architecture``: the package graph, its cycles and every broken layer rule."""

from __future__ import annotations

import sys

from tests.architecture.layers import all_imports, cycles, layer_violations, package_graph


def main() -> int:
    """Print the graph and the findings; exit 1 when the contract is broken."""
    found = all_imports()
    graph = package_graph(found)
    for package in sorted(graph):
        print(f"{package} -> {', '.join(sorted(graph[package])) or '-'}")
    loops = cycles(graph)
    problems = layer_violations(found)
    for loop in loops:
        print(f"cycle: {' <-> '.join(loop)}")
    for problem in problems:
        print(problem)
    print(f"{len(graph)} packages, {len(loops)} cycles, {len(problems)} broken rules")
    return 1 if loops or problems else 0


if __name__ == "__main__":
    sys.exit(main())
