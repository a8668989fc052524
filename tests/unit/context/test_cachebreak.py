"""The cache-break detector: loud on unexplained prefix changes, quiet on expected ones."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest

from lull.context.cachebreak import CacheBreakDetector, find_detector
from lull.context.view import build_view
from lull.model.edits import ContextEdit, Restore, Summary, Supersede
from lull.model.messages import Message, Text, ToolCall, ToolResult
from lull.model.provider import ModelRequest, ThinkingConfig, ToolSpec
from lull.tools.registry import default_registry
from tests.unit.context.builders import NOW, assistant, plan, thinking, user

SPECS = default_registry().specs()


def loop_step(call_id: str) -> list[Message]:
    """An assistant that thinks and reads a file, and the file's content."""
    return [
        assistant(thinking(), ToolCall(call_id, "read_file", {"path": f"{call_id}.py"})),
        Message("user", (ToolResult(call_id, "read_file", "x" * 2000),), origin="tool"),
    ]


def req(messages: list[Message], **changes: object) -> ModelRequest:
    base = ModelRequest(
        system="You are lull.",
        environment="cwd: /w",
        messages=messages,
        tools=SPECS,
        thinking=ThinkingConfig(True, 2048),
    )
    return replace(base, **changes)  # type: ignore[arg-type]


class Session:
    """Just enough of a session: a transcript, its edits, and the view the model gets."""

    def __init__(self) -> None:
        self.transcript: list[Message] = [user("Start.")]
        self.edits: list[ContextEdit] = []
        self.detector = CacheBreakDetector(lambda: self.edits)

    def send(self, **changes: object) -> None:
        self.detector(req(build_view(self.transcript, self.edits), **changes), 1)


def test_append_only_requests_are_not_breaks() -> None:
    s = Session()
    for n in range(4):
        s.send()
        s.transcript += loop_step(f"c{n}")
    s.send()
    assert s.detector.breaks == []
    assert s.detector.requests == 5


def test_a_changed_tool_description_is_an_unexpected_break(
    caplog: pytest.LogCaptureFixture,
) -> None:
    s = Session()
    s.send()
    s.transcript += loop_step("c1")
    changed = [replace(SPECS[0], description=SPECS[0].description + " Now faster."), *SPECS[1:]]
    with caplog.at_level(logging.INFO, logger="lull.cache"):
        s.send(tools=changed)
    [brk] = s.detector.breaks
    assert (brk.block, brk.change, brk.expected) == ("tool read_file", "description changed", False)
    assert s.detector.unexpected == [brk]
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert "tool read_file description changed (unexpected)" in record.getMessage()


def test_idle_cleanup_is_an_expected_break_logged_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    s = Session()
    for n in range(7):
        s.send()
        s.transcript += loop_step(f"c{n}")
    s.send()
    s.transcript.append(assistant(Text("Done.")))
    s.edits += plan(build_view(s.transcript, s.edits), idle=90.0)
    assert s.edits
    s.transcript.append(user("Back from lunch."))
    with caplog.at_level(logging.INFO, logger="lull.cache"):
        s.send()
    [brk] = s.detector.breaks
    assert brk.expected
    assert brk.cause.startswith("idle cleanup cleared")
    assert s.detector.unexpected == []
    assert [r.levelno for r in caplog.records] == [logging.INFO]
    s.transcript += loop_step("after")
    s.send()
    assert len(s.detector.breaks) == 1, "append-only again after the cleanup"


def test_compression_and_restore_are_expected() -> None:
    s = Session()
    s.transcript += [*loop_step("c1"), assistant(Text("Read it."))]
    s.send()
    s.edits.append(Summary(through_id=s.transcript[-1].id, text="Read c1.", at=NOW))
    s.transcript.append(user("Go on."))
    s.send()
    assert s.detector.breaks[-1].expected
    assert s.detector.breaks[-1].cause.startswith("compression")
    s.edits.append(Restore((s.edits[0].id,), at=NOW))
    s.send()
    assert s.detector.breaks[-1].cause.startswith("/context restore")


def test_a_changed_message_without_an_edit_is_unexpected() -> None:
    s = Session()
    s.transcript += loop_step("c1")
    s.send()
    s.transcript[1] = s.transcript[1].replace_parts(s.transcript[1].parts[1:])
    s.send()
    [brk] = s.detector.breaks
    assert (brk.block, brk.change, brk.expected) == (
        "message 2 (assistant)",
        "thinking removed",
        False,
    )


def test_edits_made_long_before_do_not_explain_a_later_break() -> None:
    s = Session()
    s.transcript += [*loop_step("c1"), assistant(Text("ok"))]
    s.edits += plan(s.transcript, idle=90.0)
    s.send()
    s.send(system="You are lull, v2.")
    [brk] = s.detector.breaks
    assert brk.block == "system prompt" and not brk.expected
    assert "text changed (13 -> 17 characters)" in brk.describe()


@pytest.mark.parametrize(
    ("changes", "label", "change"),
    [
        ({"environment": "cwd: /other"}, "environment", "text changed"),
        ({"thinking": ThinkingConfig(False)}, "thinking settings", "changed"),
        ({"tools": [*SPECS, ToolSpec("mcp_x", "An MCP tool.", {})]}, "tool mcp_x", "added"),
        ({"tools": SPECS[:-1]}, f"tool {SPECS[-1].name}", "removed"),
    ],
)
def test_prefix_changes_outside_the_conversation_are_named(
    changes: dict[str, object], label: str, change: str
) -> None:
    s = Session()
    s.send()
    s.send(**changes)
    [brk] = s.detector.breaks
    assert brk.block == label
    assert brk.change.startswith(change)
    assert not brk.expected


def test_a_model_switch_is_an_expected_break() -> None:
    s = Session()
    s.send(model="claude-sonnet-4-5")
    s.send(model="claude-opus-4-5")
    [brk] = s.detector.breaks
    assert (brk.block, brk.expected) == ("model", True)
    assert "model changed" in brk.cause


def test_reordered_schema_keys_are_an_unexpected_break() -> None:
    s = Session()
    s.send()
    first = SPECS[0]
    reordered = ToolSpec(
        first.name, first.description, dict(reversed(list(first.parameters.items())))
    )
    s.send(tools=[reordered, *SPECS[1:]])
    [brk] = s.detector.breaks
    assert (brk.block, brk.change, brk.expected) == (
        f"tool {first.name}",
        "key order changed",
        False,
    )


def test_the_detector_is_found_among_request_hooks() -> None:
    detector = CacheBreakDetector(list)
    assert find_detector([print, detector]) is detector
    assert find_detector([print]) is None


def test_tools_a_source_announced_are_an_expected_break() -> None:
    from lull.context.cachebreak import CacheBreakDetector
    from lull.model.provider import ModelRequest, ToolSpec

    added: dict[str, str] = {}
    detector = CacheBreakDetector(lambda: [], lambda: added)
    first = ToolSpec("read_file", "read", {"type": "object"})
    late = ToolSpec("mcp__gh__search", "search", {"type": "object"})
    detector(ModelRequest(system="s", messages=(), tools=(first,)), 1)
    added["mcp__gh__search"] = "MCP server gh came up and added its tools"
    detector(ModelRequest(system="s", messages=(), tools=(first, late)), 2)
    assert detector.breaks[-1].expected and "gh came up" in detector.breaks[-1].cause
    other = ToolSpec("mystery", "?", {"type": "object"})
    detector(ModelRequest(system="s", messages=(), tools=(first, late, other)), 3)
    assert not detector.breaks[-1].expected


def test_a_tool_search_listing_that_grew_is_expected_only_with_a_cause() -> None:
    added: dict[str, str] = {}
    detector = CacheBreakDetector(lambda: [], lambda: added)
    listing = ToolSpec("tool_search", "Deferred tools:\n- mcp__a__x", {"type": "object"})
    grown = replace(listing, description=listing.description + "\n- mcp__b__y")
    detector(ModelRequest(system="s", messages=(), tools=(listing,)), 1)
    detector(ModelRequest(system="s", messages=(), tools=(grown,)), 2)
    assert not detector.breaks[-1].expected  # nobody said why: a warning
    added["tool_search"] = "MCP server b came up and tool_search lists its deferred tools"
    grown_again = replace(grown, description=grown.description + "\n- mcp__b__z")
    detector(ModelRequest(system="s", messages=(), tools=(grown_again,)), 3)
    brk = detector.breaks[-1]
    assert brk.expected and brk.change == "description changed" and "b came up" in brk.cause


def test_the_light_step_and_a_restored_compression_are_expected_breaks() -> None:
    s = Session()
    for n in range(4):
        s.transcript += loop_step(f"c{n}")
        s.send()
    s.edits.append(Supersede(("c0",), ("[Superseded: pointer]",)))
    s.transcript.append(user("More."))
    s.send()
    [brk] = s.detector.breaks
    assert brk.expected and brk.cause == "the light step replaced 1 superseded tool outputs"
    summary = Summary(s.transcript[2].id, "summary")
    s.edits.append(summary)
    s.send()
    s.edits.append(Restore((summary.id,)))
    s.send()
    assert [b.expected for b in s.detector.breaks] == [True, True, True]
    assert s.detector.breaks[-1].cause == "/context restore brought back 1 edit(s)"


def test_a_note_or_a_partial_answer_for_one_request_is_no_break() -> None:
    s = Session()
    s.send()
    view = build_view(s.transcript, s.edits)
    note = Message("user", (Text("Your previous reply was empty."),), origin="synthetic")
    s.detector(req([*view, note], request_only=1), 2)  # a rolled-back reply's retry
    partial = assistant(Text("The first half"))
    s.detector(req([*view, partial], request_only=1, continue_final=True), 3)  # a prefill
    s.transcript.append(assistant(Text("The first half and the rest.")))
    s.send()
    assert s.detector.breaks == []
