"""The layer contract holds: imports point down, no package-level cycle, SDKs at the edge."""

from __future__ import annotations

from pathlib import Path

from tests.architecture.layers import (
    ROOT,
    Import,
    all_imports,
    cycles,
    layer_violations,
    package_graph,
    unit_of,
)


def test_every_import_points_down_the_layers() -> None:
    assert layer_violations(all_imports()) == []


def test_no_package_level_import_cycle() -> None:
    assert cycles(package_graph(all_imports())) == []


def test_a_wrong_import_is_reported_with_file_and_line() -> None:
    path = ROOT / "app" / "engine" / "agent.py"
    wrong = [
        Import("app.engine.agent", "app.ui.tui.app.LullApp", path, 7),
        Import("app.engine.agent", "anthropic", path, 8),
        Import("app.context.idle", "settings.model.Settings", path, 9),
        Import("app.model.messages", "app.engine.session", path, 10),
    ]
    problems = layer_violations(wrong)
    assert len(problems) == 4
    assert problems[0].startswith("app/engine/agent.py:7: app.engine may not import app.ui")
    assert "imports anthropic (only app.providers)" in problems[1]
    assert "app.context may not import settings" in problems[2]
    assert "app.model may not import app.engine" in problems[3]


def test_a_cycle_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_every_first_party_module_belongs_to_a_unit() -> None:
    modules = [p for p in ROOT.joinpath("app").rglob("*.py") if "__pycache__" not in p.parts]
    names = [".".join(p.relative_to(ROOT).with_suffix("").parts) for p in modules]
    assert [n for n in names if unit_of(n) is None] == []
    assert Path(ROOT / "ARCHITECTURE.md").is_file()
