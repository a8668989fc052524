"""Argument repair: known model mistakes fixed before validation, and said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lull.model.messages import RAW_ARGUMENTS_KEY
from lull.tools.registry import ToolRegistry, default_registry
from lull.tools.repair import repair_arguments
from tests.unit.tools.helpers import Call

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "offset": {"type": "integer"},
        "ratio": {"type": "number"},
        "all": {"type": "boolean"},
        "options": {"type": "object"},
        "names": {"type": "array"},
    },
    "required": ["path"],
}
ALIASES = {"file_path": "path", "filepath": "path", "start_line": "offset"}


@pytest.mark.parametrize(
    ("sent", "repaired", "said"),
    [
        ({"file_path": "a.py"}, {"path": "a.py"}, ["file_path -> path"]),
        ({"path": "a.py", "file_path": "b.py"}, {"path": "a.py", "file_path": "b.py"}, []),
        ({"filepath": "a", "file_path": "b"}, {"path": "a"}, ["filepath -> path"]),
        (
            {"path": "a", "offset": "12"},
            {"path": "a", "offset": 12},
            ["offset: integer sent as a string"],
        ),
        (
            {"path": "a", "ratio": "0.5"},
            {"path": "a", "ratio": 0.5},
            ["ratio: number sent as a string"],
        ),
        (
            {"path": "a", "all": "true"},
            {"path": "a", "all": True},
            ["all: boolean sent as a string"],
        ),
        ({"path": "a", "offset": "twelve"}, {"path": "a", "offset": "twelve"}, []),
        (
            {"path": "a", "options": '{"x": 1}', "names": '["n"]'},
            {"path": "a", "options": {"x": 1}, "names": ["n"]},
            ["options: object sent as a string", "names: array sent as a string"],
        ),
        (
            {"arguments": '{"path": "a"}'},
            {"path": "a"},
            ["unwrapped the arguments from 'arguments'"],
        ),
        (
            {"input": {"file_path": "a"}},
            {"path": "a"},
            ["unwrapped the arguments from 'input'", "file_path -> path"],
        ),
        (
            {RAW_ARGUMENTS_KEY: json.dumps(json.dumps({"path": "a", "start_line": "3"}))},
            {"path": "a", "offset": 3},
            [
                "arguments sent as a JSON string",
                "start_line -> offset",
                "offset: integer sent as a string",
            ],
        ),
        ({RAW_ARGUMENTS_KEY: '{"path": "a'}, {RAW_ARGUMENTS_KEY: '{"path": "a'}, []),
    ],
)
def test_known_mistakes_are_repaired_and_said(
    sent: dict[str, object], repaired: dict[str, object], said: list[str]
) -> None:
    result = repair_arguments(sent, SCHEMA, ALIASES)
    assert result.arguments == repaired
    assert list(result.repairs) == said


def test_the_input_is_never_modified() -> None:
    sent = {"file_path": "a", "offset": "1"}
    repair_arguments(sent, SCHEMA, ALIASES)
    assert sent == {"file_path": "a", "offset": "1"}


@pytest.mark.parametrize(
    ("tool", "sent", "real"),
    [
        ("read_file", {"filename": "a.txt"}, "path"),
        ("write_file", {"filepath": "b.txt", "contents": "x"}, "path"),
        ("run_shell_command", {"cmd": "ls"}, "command"),
        ("grep_search", {"query": "x"}, "pattern"),
        ("grep_search", {"regex": "x"}, "pattern"),
        ("edit", {"path": "a", "old": "x", "new": "y"}, "old_string"),
        ("web_fetch", {"link": "https://example.com"}, "url"),
        ("list_directory", {"dir": "."}, "path"),
    ],
)
def test_each_tool_declares_the_aliases_models_use(
    tool: str, sent: dict[str, object], real: str
) -> None:
    prepared = default_registry().prepare(tool, sent)
    assert real in prepared.arguments and prepared.repairs


async def test_a_repaired_call_runs(call: Call, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\n")
    out = await call("read_file", file_path="a.txt", start_line="2")
    assert not out.is_error and "beta" in out.content and "alpha" not in out.content


async def test_what_is_still_wrong_gets_the_clear_error(call: Call) -> None:
    out = await call("read_file", file_path="a.txt", offset="two")
    assert (
        out.is_error
        and out.content == "read_file: argument 'offset' must be an integer (got string)"
    )


async def test_repair_can_be_switched_off(workspace: Path, tmp_path: Path) -> None:
    from lull.tools.base import ToolContext

    registry: ToolRegistry = default_registry()
    registry.repair = False
    ctx = ToolContext(workspace=workspace, output_dir=tmp_path / "out")
    out = await registry.execute("read_file", {"file_path": "a.txt"}, ctx)
    assert out.is_error and "missing required argument 'path'" in out.content
