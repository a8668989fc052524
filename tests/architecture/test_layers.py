"""The layer contract holds: imports point down, no package-level cycle, SDKs at the edge."""

from __future__ import annotations

from pathlib import Path

from tests.architecture.layers import (
    ROOT,
    Import,
    all_imports,
    cycles,
    layer_violations,
    module_name,
    package_graph,
    unit_of,
)


def test_every_import_points_down_the_layers() -> None:
    assert layer_violations(all_imports()) == []


def test_no_package_level_import_cycle() -> None:
    assert cycles(package_graph(all_imports())) == []


def test_a_wrong_import_is_reported_with_file_and_line() -> None:
    path = ROOT / "app" / "engine" / "loop" / "agent.py"
    wrong = [
        Import("lull.engine.loop.agent", "lull.ui.tui.app.LullApp", path, 7),
        Import("lull.engine.loop.agent", "anthropic", path, 8),
        Import("lull.context.idle", "lull.settings.model.Settings", path, 9),
        Import("lull.model.messages", "lull.engine.sessions.session", path, 10),
    ]
    problems = layer_violations(wrong)
    assert len(problems) == 4
    assert problems[0].startswith(
        "app/engine/loop/agent.py:7: lull.engine.loop may not import lull.ui"
    )
    assert "imports anthropic (only lull.providers)" in problems[1]
    assert "lull.context may not import lull.settings" in problems[2]
    assert "lull.model may not import lull.engine" in problems[3]


def test_a_cycle_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_every_first_party_module_belongs_to_a_unit() -> None:
    modules = [p for p in ROOT.joinpath("app").rglob("*.py") if "__pycache__" not in p.parts]
    names = [module_name(p) for p in modules]
    assert [n for n in names if unit_of(n) is None] == []
    assert Path(ROOT / "ARCHITECTURE.md").is_file()


def test_rooms_of_the_engine_and_tools_are_checked_too() -> None:
    path = ROOT / "app" / "engine" / "sessions" / "notes.py"
    wrong = [
        Import("lull.engine.sessions.notes", "lull.engine.loop.agent.CANCELLED", path, 3),
        Import("lull.engine.hooks.lifecycle", "lull.engine.calls.runner.ToolRunner", path, 4),
        Import("lull.tools.net.search_backends", "lull.tools.builtin.web_fetch.failure", path, 5),
        Import("lull.tools.base", "lull.tools.registry.ToolRegistry", path, 6),
    ]
    problems = layer_violations(wrong)
    assert len(problems) == 4
    assert "lull.engine.sessions may not import lull.engine.loop" in problems[0]
    assert "lull.engine.hooks may not import lull.engine.calls" in problems[1]
    assert "lull.tools.net may not import lull.tools.builtin" in problems[2]
    assert "lull.tools may not import lull.tools.registry" in problems[3]
    right = [
        Import("lull.engine.loop.agent", "lull.engine.fitting.fitter.ContextFitter", path, 1),
        Import("lull.runtime.build", "lull.engine.subagents.task.TaskTool", path, 2),
        Import("lull.tools.builtin.read_file", "lull.tools.files.paths.resolve", path, 3),
    ]
    assert layer_violations(right) == []


def test_every_room_says_what_it_holds() -> None:
    for top in ("app/engine", "tools"):
        for init in sorted(ROOT.joinpath(top).rglob("__init__.py")):
            text = init.read_text(encoding="utf-8")
            assert text.startswith('"""') and len(text) > 60, f"{init} has no docstring"
