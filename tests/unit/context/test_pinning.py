"""The pinned block: what the user typed, unresolved errors and notes, word for word."""

from __future__ import annotations

from lull.context.notes import notes_from
from lull.context.pinning import PINNED_HEADING, pinned_block, typed_text, user_prompts
from lull.context.tiers import unresolved_errors
from lull.model.messages import Message, Text, ToolCall, ToolResult
from lull.model.notes import user_note_text
from tests.unit.context.builders import assistant, results, user


def step(
    call_id: str, name: str, content: str, *, error: bool = False, **args: object
) -> list[Message]:
    return [
        assistant(ToolCall(call_id, name, args)),
        results(ToolResult(call_id, name, content, is_error=error)),
    ]


def test_the_block_quotes_prompts_open_errors_and_notes_verbatim() -> None:
    prefix = [
        user("use tabs, never spaces\nand keep lines short"),
        *step(
            "e1", "run_shell_command", "E   AssertionError: 1 != 2", error=True, command="make test"
        ),
        *step("e2", "read_file", "no such file: x.py", error=True, path="x.py"),
        *step("n1", "note", "noted", key="style", text="tabs"),
        Message("user", (Text(user_note_text("ci", "make check")),), origin="synthetic"),
        user("now fix the test"),
        *step("ok", "read_file", "fine", path="x.py"),  # fixes e2 (same target)
    ]
    block = pinned_block(prefix, unresolved_errors(prefix), notes_from(prefix))
    assert block.startswith(PINNED_HEADING)
    assert "> 1. use tabs, never spaces\n> and keep lines short" in block
    assert "> 2. now fix the test" in block
    assert "run_shell_command (shell:make test, call e1):\n> E   AssertionError: 1 != 2" in block
    assert "no such file" not in block  # fixed since
    assert "### Session notes\n- style: tabs\n- ci: make check" in block
    assert "session note from the user" not in block  # notes are listed, not quoted as prompts


def test_nothing_critical_means_no_block() -> None:
    prefix = [*step("r", "read_file", "text", path="a.py")]
    assert pinned_block(prefix, set(), {}) == ""


def test_attached_files_are_not_what_the_user_typed() -> None:
    text = (
        "look at this\n\nContents of a.py:\n```py\nprint(1)\n```"
        "\n\nContents of b.md:\n```md\nx\n```"
    )
    message = user(text)
    assert typed_text(message) == "look at this\n[attached: a.py, b.md]"
    assert user_prompts([message]) == ["look at this\n[attached: a.py, b.md]"]
