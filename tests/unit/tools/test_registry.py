from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from lull.model.provider import ToolSpec
from lull.tools.base import Tool, ToolContext, ToolError, ToolOutput, TransientToolError
from lull.tools.registry import RETRIES_KEY, ToolRegistry, backoff_delays, default_registry

ALL_TOOLS = [
    "read_file",
    "write_file",
    "edit",
    "run_shell_command",
    "grep_search",
    "glob",
    "list_directory",
    "web_fetch",
    "note",
    "todo_write",
]


class Behaving(Tool):
    """A test tool whose behaviour is chosen by its ``mode`` argument."""

    name = "behave"
    description = "test tool"
    parameters: Mapping[str, Any] = {
        "type": "object",
        "properties": {"mode": {"type": "string"}, "count": {"type": "integer"}},
        "required": ["mode"],
        "additionalProperties": False,
    }

    def __init__(self) -> None:
        self.cleaned_up = False

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        mode = args["mode"]
        if mode == "tool-error":
            raise ToolError("behave: the thing was wrong at line 3")
        if mode == "crash":
            raise KeyError("boom")
        if mode == "hang":
            try:
                await asyncio.sleep(30)
            finally:
                self.cleaned_up = True
        return ToolOutput(f"ok {args.get('count', 0)}")


def test_default_registry_has_all_tools_in_a_fixed_order() -> None:
    registry = default_registry()
    assert registry.names() == ALL_TOOLS
    assert len(registry) == 10
    assert [t.name for t in registry] == ALL_TOOLS


def test_specs_are_deterministic_and_well_formed() -> None:
    first, second = default_registry().specs(), default_registry().specs()
    assert first == second
    for spec in first:
        assert isinstance(spec, ToolSpec)
        assert len(spec.description) > 80
        assert spec.parameters["type"] == "object"
        assert spec.parameters["additionalProperties"] is False
        assert set(spec.parameters["required"]) <= set(spec.parameters["properties"])


def test_argument_names_are_the_public_contract() -> None:
    props = {s.name: set(s.parameters["properties"]) for s in default_registry().specs()}
    assert props == {
        "read_file": {"path", "offset", "limit"},
        "write_file": {"path", "content"},
        "edit": {"path", "old_string", "new_string", "replace_all"},
        "run_shell_command": {"command", "timeout_seconds"},
        "grep_search": {"pattern", "path", "glob"},
        "glob": {"pattern", "path"},
        "list_directory": {"path"},
        "web_fetch": {"url"},
        "note": {"key", "text", "action"},
        "todo_write": {"todos"},
    }


def test_flags() -> None:
    registry = default_registry()
    read_only = {tool.name for tool in registry if tool.read_only}
    assert read_only == set(ALL_TOOLS) - {"write_file", "edit", "run_shell_command"}
    never_cleared = ["list_directory", "note", "todo_write"]
    assert [n for n in ALL_TOOLS if not registry.is_compactable(n)] == never_cleared
    assert not registry.is_compactable("no_such_tool")
    assert registry.get("no_such_tool") is None


def test_duplicate_names_are_refused() -> None:
    with pytest.raises(ValueError, match="already registered"):
        ToolRegistry([Behaving(), Behaving()])


async def test_unknown_tool_names_the_available_ones(ctx: ToolContext) -> None:
    out = await default_registry().execute("rm_rf", {}, ctx)
    assert out.is_error
    assert out.content == "unknown tool 'rm_rf'; available tools: " + ", ".join(ALL_TOOLS)


async def test_a_claimed_prefix_answers_names_that_are_no_tool_yet(ctx: ToolContext) -> None:
    registry = ToolRegistry([Behaving()])
    asked: list[str] = []

    def stand_in(name: str) -> Tool | None:
        asked.append(name)
        return None if name.endswith("gone") else Behaving()

    registry.claim("srv__", stand_in)
    registry.claim("srv__deep__", lambda name: None)
    assert registry.get("behave") is not None and asked == []  # a registered tool comes first
    assert registry.get("srv__search") is not None and asked == ["srv__search"]
    assert registry.get("srv__gone") is None
    assert registry.get("srv__deep__x") is None and asked == ["srv__search", "srv__gone"]
    assert registry.get("other") is None and registry.names() == ["behave"]  # never offered
    out = await registry.execute("srv__search", {"mode": "tool-error"}, ctx)
    assert out.is_error and "the thing was wrong" in out.content


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "behave: missing required argument 'mode'"),
        ({"mode": 3}, "behave: argument 'mode' must be a string (got integer)"),
        ({"mode": "x", "count": "two"}, "behave: argument 'count' must be an integer (got string)"),
        ({"mode": "x", "count": True}, "behave: argument 'count' must be an integer (got boolean)"),
        ({"mode": "x", "colour": 1}, "behave: unknown argument 'colour' (allowed: mode, count)"),
        ([1, 2], "behave: arguments must be a JSON object (got array)"),
    ],
)
async def test_invalid_arguments_name_the_argument(
    ctx: ToolContext, args: Any, message: str
) -> None:
    out = await ToolRegistry([Behaving()]).execute("behave", args, ctx)
    assert out.is_error and out.content == message


async def test_tool_errors_and_crashes_become_error_outputs(ctx: ToolContext) -> None:
    registry = ToolRegistry([Behaving()])
    error = await registry.execute("behave", {"mode": "tool-error"}, ctx)
    assert error.is_error and error.content == "behave: the thing was wrong at line 3"
    crash = await registry.execute("behave", {"mode": "crash"}, ctx)
    assert crash.is_error and crash.content == "behave failed: KeyError: 'boom'"
    fine = await registry.execute("behave", {"mode": "ok", "count": 2}, ctx)
    assert not fine.is_error and fine.content == "ok 2"


async def test_cancellation_propagates_after_cleanup(ctx: ToolContext) -> None:
    tool = Behaving()
    task = asyncio.create_task(ToolRegistry([tool]).execute("behave", {"mode": "hang"}, ctx))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert tool.cleaned_up


async def test_real_tool_validation_through_the_default_registry(ctx: ToolContext) -> None:
    out = await default_registry().execute("read_file", {"path": "a", "offset": "ten"}, ctx)
    assert out.content == "read_file: argument 'offset' must be an integer (got string)"


class Flaky(Tool):
    """Fails transiently ``failures`` times, then answers."""

    name = "flaky"
    description = "test tool"
    parameters: Mapping[str, Any] = {"type": "object", "properties": {}}

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.runs = 0

    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        self.runs += 1
        if self.runs <= self.failures:
            raise TransientToolError(f"flaky: HTTP 503 on run {self.runs}")
        return ToolOutput("fine")


class Waits:
    """A sleep that only records how long it was asked to wait."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


async def test_a_transient_failure_is_retried_after_one_two_four_seconds(
    ctx: ToolContext,
) -> None:
    waits = Waits()
    tool = Flaky(failures=3)
    registry = ToolRegistry([tool], sleep=waits)
    out = await registry.execute("flaky", {}, ctx)
    assert not out.is_error and out.content == "fine" and tool.runs == 4
    assert waits.seconds == [1.0, 2.0, 4.0]
    assert out.metadata[RETRIES_KEY] == 3


async def test_a_failure_that_stays_becomes_an_error_saying_how_often_it_was_tried(
    ctx: ToolContext,
) -> None:
    waits = Waits()
    registry = ToolRegistry([Flaky(failures=10)], sleep=waits, retry_delays=backoff_delays(2))
    out = await registry.execute("flaky", {}, ctx)
    assert (
        out.is_error and out.content == "flaky: HTTP 503 on run 3 (tried 3 times, waiting 1 s, 2 s)"
    )
    assert waits.seconds == [1.0, 2.0]


async def test_no_retries_when_they_are_switched_off(ctx: ToolContext) -> None:
    registry = ToolRegistry([Flaky(failures=1)], sleep=Waits(), retry_delays=backoff_delays(0))
    out = await registry.execute("flaky", {}, ctx)
    assert out.is_error and out.content == "flaky: HTTP 503 on run 1"


def test_excluded_tools_are_never_offered_or_run() -> None:
    registry = default_registry()
    assert registry.exclude(["web_fetch", "run_shell_command", "nope"]) == ["nope"]
    assert "web_fetch" not in [spec.name for spec in registry.specs()]
    assert registry.get("web_fetch") is None and len(registry) == len(default_registry()) - 2
    assert registry.excluded == {"web_fetch", "run_shell_command"}
