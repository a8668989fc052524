"""Which replies call for a rollback, and which only look like it."""

from __future__ import annotations

import pytest

from lull.engine.guardrails.classify import judge_reply, opens_with_refusal, written_call
from lull.model.messages import Text, Thinking, ToolCall

OFFERED = ("read_file", "glob")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("<tool_call>\n{}\n</tool_call>", "<tool_call…> tag"),
        (
            "Let me look.\n<function=read_file>\n<parameter=path>a</parameter>",
            "<function=read_file…> tag",
        ),
        ('<function_calls>\n<invoke name="read_file">', "<function_calls…> tag"),
        ("<use_mcp_tool>\n<server_name>x</server_name>", "<use_mcp_tool…> tag"),
        ("<mcp:read_file path='a'/>", "<mcp:read_file…> tag"),
        ('{"name": "glob", "arguments": {"pattern": "*"}}', "a bare JSON call of 'glob'"),
        ('```json\n{"name": "glob", "parameters": {}}\n```', "a bare JSON call of 'glob'"),
        ('[{"name": "glob", "arguments": "{}"}]', "a bare JSON call of 'glob'"),
    ],
)
def test_tool_calls_written_as_text_are_found(text: str, found: str) -> None:
    assert written_call(text) == found
    rollback = judge_reply((Text(text),), "end_turn", OFFERED)
    assert rollback is not None and rollback.reason == "tool_call_as_text"


@pytest.mark.parametrize(
    "text",
    [
        "```xml\n<tool_call>\n</tool_call>\n```",
        "Wrap it in `<tool_call>` tags.",
        "The parser reads <tool_call> tags in the middle of a line.",
        '{"name": "x"}',
        'Here is JSON: {"name": "glob", "arguments": {}}',
    ],
)
def test_text_about_tool_calls_is_not_a_call(text: str) -> None:
    assert written_call(text) is None


def test_a_tag_only_counts_when_tools_were_offered() -> None:
    assert judge_reply((Text("<tool_call>{}</tool_call>"),), "end_turn", ()) is None


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("As an AI language model, I can't do that.", True),
        ("  I cannot help with that.", True),
        ("I can\u2019t assist with this request.", True),
        ("I'm sorry, but I can't comply.", True),
        ("I cannot find a.txt; did you mean b.txt?", False),
        ("Sure. I can't see the file yet, so let me read it.", False),
    ],
)
def test_only_an_opening_refusal_is_one(text: str, refusal: bool) -> None:
    assert opens_with_refusal(text) is refusal


def test_structured_calls_keep_a_reply_whatever_its_text_says() -> None:
    parts = (Text("As an AI, <tool_call>"), ToolCall("c", "glob", {"pattern": "*"}))
    assert judge_reply(parts, "tool_use", OFFERED) is None


def test_an_unknown_tool_wins_over_everything_else() -> None:
    parts = (Text("ok"), ToolCall("c1", "glob", {}), ToolCall("c2", "bash", {}))
    rollback = judge_reply(parts, "tool_use", OFFERED)
    assert rollback is not None and rollback.reason == "unknown_tool" and "'bash'" in rollback.note


def test_thinking_without_text_or_calls_is_empty() -> None:
    rollback = judge_reply((Thinking("..."),), "end_turn", OFFERED)
    assert rollback is not None and rollback.reason == "empty"


def test_every_note_is_one_line() -> None:
    for parts in ((Text(""),), (Text("As an AI"),), (Text("<tool_call>"),)):
        rollback = judge_reply(parts, "end_turn", OFFERED)
        assert rollback is not None and "\n" not in rollback.note
