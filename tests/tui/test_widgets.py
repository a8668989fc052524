"""Widgets on their own: pruning, diffs, tool blocks, thinking."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from lull.model.messages import ToolCall, ToolResult
from lull.ui.tui.widgets.conversation import Conversation, PrunedNote
from lull.ui.tui.widgets.diff_view import diff_stats, render_diff, write_as_diff
from lull.ui.tui.widgets.thinking_block import ThinkingBlock
from lull.ui.tui.widgets.todo_list import TodoList
from lull.ui.tui.widgets.tool_block import ToolBlock, key_argument


class Harness(App[None]):
    """A bare app holding one conversation."""

    def compose(self) -> ComposeResult:
        yield Conversation(max_items=10, id="conversation")


async def test_old_items_are_pruned_with_a_note() -> None:
    app = Harness()
    async with app.run_test() as pilot:
        conversation = app.query_one(Conversation)
        for n in range(25):
            await conversation.add(Static(f"item {n}"))
        await pilot.pause()
        items = conversation.items
        assert len(items) <= 10
        assert str(items[-1].render()) == "item 24"
        note = conversation.query_one(PrunedNote)
        assert f"{conversation.pruned} earlier items" in str(note.render())
        assert conversation.children[0] is note


async def test_a_tool_block_counts_seconds_then_shows_the_outcome() -> None:
    now = [100.0]
    app = Harness()
    async with app.run_test() as pilot:
        call = ToolCall("c1", "run_shell_command", {"command": "ls -la"})
        block = ToolBlock(call, clock=lambda: now[0])
        await app.query_one(Conversation).add(block)
        block.start("ls -la")
        now[0] += 2.5
        await pilot.pause(0.15)
        assert "2.5s" in str(block.query_one(".tool-header").render())
        await block.finish(ToolResult("c1", "run_shell_command", "a\nb\nc"))
        await pilot.pause()
        assert block.state == "ok"
        assert "└ a" in str(block.query_one(".tool-outcome").render())
        now[0] += 10
        await pilot.pause(0.15)
        assert "2.5s" in str(block.query_one(".tool-header").render())


async def test_a_todo_write_call_shows_its_list() -> None:
    app = Harness()
    todos = [
        {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
        {"content": "Run tests", "status": "pending", "activeForm": "Running tests"},
    ]
    async with app.run_test() as pilot:
        call = ToolCall("t1", "todo_write", {"todos": todos})
        block = ToolBlock(call, "2 items")
        await app.query_one(Conversation).add(block)
        await block.finish(ToolResult("t1", "todo_write", "to-do list updated (2 items)"))
        await pilot.pause()
        shown = str(block.query_one(TodoList).render())
        assert shown.splitlines() == ["▸ Fixing the bug", "○ Run tests"]


async def test_thinking_collapses_when_it_ends() -> None:
    app = Harness()
    async with app.run_test() as pilot:
        block = ThinkingBlock()
        await app.query_one(Conversation).add(block)
        assert not block.collapsed
        block.append("let me think about it")
        await pilot.pause(0.1)
        block.finish()
        assert block.collapsed and block.title == "thought (5 words)"


def test_diffs_are_coloured_and_counted() -> None:
    diff = "--- a\n+++ a\n@@ -1 +1 @@\n-old\n+new\n context"
    text = render_diff(diff)
    styles = {text.plain[s.start : s.end]: str(s.style) for s in text.spans}
    assert styles["+new"] == "green" and styles["-old"] == "red"
    assert diff_stats(diff) == (1, 1)
    assert diff_stats(write_as_diff("f.txt", "a\nb\n")) == (2, 0)
    long = render_diff("\n".join(f"+{n}" for n in range(100)), max_lines=10)
    assert long.plain.endswith("… 90 more lines")


def test_key_argument_names_what_a_call_is_about() -> None:
    assert key_argument({"path": "a.py", "content": "x"}) == "a.py"
    assert key_argument({"command": "ls"}) == "ls"
    assert key_argument({"other": 1}) == ""


class WideHarness(App[None]):
    """A conversation limited by widget count rather than item count."""

    def compose(self) -> ComposeResult:
        yield Conversation(max_items=1000, max_widgets=30, id="conversation")


class ManyWidgets(Vertical):
    """An item made of a dozen widgets (as a long tool block can be)."""

    def compose(self) -> ComposeResult:
        for n in range(12):
            yield Static(f"line {n}")


async def test_items_with_many_widgets_are_pruned_too() -> None:
    app = WideHarness()
    async with app.run_test() as pilot:
        conversation = app.query_one(Conversation)
        for _ in range(4):
            await conversation.add(ManyWidgets())
        await pilot.pause()
        assert len(conversation.query("*")) <= 30 + 20  # the newest item always stays
        assert conversation.pruned >= 2
        assert isinstance(conversation.items[-1], ManyWidgets)


async def test_a_long_answer_is_a_few_widgets_whatever_its_length() -> None:
    from lull.ui.tui.widgets.assistant_message import AssistantMessage

    long_markdown = "\n\n".join(f"## part {n}\n\n- point {n}\n- more" for n in range(60))
    app = WideHarness()
    async with app.run_test() as pilot:
        message = AssistantMessage(long_markdown)
        await app.query_one(Conversation).add(message)
        await pilot.pause()
        assert len(message.query("*")) <= 3
        assert message.frozen.virtual_size.height > 60 * 3


async def test_a_streamed_answer_is_batched_but_complete() -> None:
    from lull.ui.tui.widgets.assistant_message import AssistantMessage, flush_interval

    assert flush_interval(0) == 0.05 and flush_interval(100_000) == 0.5
    app = Harness()
    async with app.run_test() as pilot:
        message = AssistantMessage()
        await app.query_one(Conversation).add(message)
        pieces = [f"word{n} " for n in range(200)]
        for piece in pieces:
            await message.write(piece)
        await message.finish()
        await pilot.pause()
        assert message.text == message.frozen.source == "".join(pieces)
        assert message.finished and not message.interrupted


def test_blocks_end_at_blank_lines_outside_code_fences() -> None:
    from lull.ui.tui.widgets.assistant_message import block_ends, next_cut, settled_length

    text = "# Title\n\nA paragraph.\n\n```python\nx = 1\n\ny = 2\n```\n\n- a\n\n  continued\n\nlast"
    ends = block_ends(text)
    starts = [text[end:].split("\n", 1)[0] for end in ends]
    assert starts == ["A paragraph.", "```python", "- a", "last"]  # "continued" is in "- a"
    assert settled_length(text) == len(text) - len("last")  # "last" may still grow
    assert settled_length("no blank line yet\n") == 0
    assert settled_length("open\n\n```\ncode\n\nmore code\n") == len("open\n\n")
    assert next_cut([10, 1_500, 2_500, 9_000]) == 1_500  # pieces of at most FREEZE_CHARS
    assert next_cut([5_000, 9_000]) == 5_000  # but at least one block


async def test_a_streamed_answer_freezes_its_finished_blocks_and_keeps_the_tail_live() -> None:
    from lull.ui.tui.widgets.assistant_message import AssistantMessage

    app = Harness()
    async with app.run_test() as pilot:
        message = AssistantMessage()
        await app.query_one(Conversation).add(message)
        text = "".join(f"Paragraph {n} has some words.\n\n" for n in range(30)) + "The tail"
        for start in range(0, len(text), 7):
            await message.write(text[start : start + 7])
        await pilot.pause(0.3)
        assert message.frozen.source + message._live_text == text
        assert message.frozen.source.count("Paragraph") == 30
        assert message._live_text == "The tail"
        await message.finish()
        await pilot.pause()
        assert message.frozen.source == message.text == text
        assert message._live_text == ""


async def test_a_sub_agent_shows_as_a_collapsed_block_inside_its_task_call() -> None:
    from textual.widgets import Collapsible

    from lull.model.events import SubagentUpdate, ToolStarted
    from lull.ui.tui.renderer import TurnRenderer

    app = Harness()
    async with app.run_test() as pilot:
        renderer = TurnRenderer(app.query_one(Conversation))
        call = ToolCall("t1", "task", {"description": "find", "prompt": "find the secret"})
        await renderer.handle(ToolStarted(call, "find"))
        for step, text in (
            ("started", "find"),
            ("request", ""),
            ("tool", "read_file(notes.txt)"),
            ("tool", "grep_search(secret)"),
            ("finished", "finished after 3 requests"),
        ):
            update = SubagentUpdate("t1", "general", step, text, "child-1")  # type: ignore[arg-type]
            await renderer.handle(update)
        await pilot.pause()
        block = renderer.tools["t1"]
        box = block.query_one(Collapsible)
        assert box.collapsed and box.title == "sub-agent (3 steps)"
        steps = str(box.query_one(".tool-preview", Static).render())
        assert steps.splitlines() == [
            "read_file(notes.txt)",
            "grep_search(secret)",
            "sub-agent finished after 3 requests",
        ]
