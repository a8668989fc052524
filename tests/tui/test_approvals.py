"""Approvals as a modal: allow once, allow always, deny with a reason; Esc during a tool."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input

from lull.engine.sessions.load import load_session
from lull.model.messages import unanswered_calls
from lull.ui.tui.screens.approval import ApprovalScreen
from lull.ui.tui.widgets.diff_view import DiffView
from lull.ui.tui.widgets.tool_block import ToolBlock
from tests.fakes import FakeServer, Reply, ToolUse
from tests.tui.harness import idle, make_app, ready, send, until


def _write(path: str, content: str) -> Reply:
    return Reply(tool_calls=[ToolUse("write_file", {"path": path, "content": content})])


def _tool_results(fake: FakeServer) -> list[dict[str, object]]:
    """The tool_result blocks of the last request the fake served."""
    last = fake.requests[-1]["messages"][-1]
    return [b for b in last["content"] if b.get("type") == "tool_result"]


async def test_allow_once_runs_the_call_and_shows_the_diff(
    provider_env: FakeServer, workspace: Path
) -> None:
    provider_env.script(_write("hello.txt", "hi\nthere\n"), Reply(text="Written."))
    app = make_app(workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write it")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval modal")
        assert "waiting for approval" in app.status.line
        await pilot.press("y")
        await idle(pilot)
        assert (workspace / "hello.txt").read_text() == "hi\nthere\n"
        block = app.query_one(ToolBlock)
        assert block.state == "ok"
        diff = block.query_one(DiffView).diff
        assert "+hi" in diff and "+there" in diff


async def test_deny_with_a_reason_tells_the_model_why(
    provider_env: FakeServer, workspace: Path
) -> None:
    """r opens the reason box; Esc there denies with what was typed (as Enter does)."""
    provider_env.script(_write("x.txt", "x"), Reply(text="OK, I won't."))
    app = make_app(workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write x")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval modal")
        reason = app.screen.query_one(Input)
        assert not reason.display, "the reason box shows only when asked for"
        await pilot.press("r")
        assert reason.display and app.focused is reason
        reason.insert_text_at_cursor("use notes.md instead")
        await pilot.press("escape")
        await idle(pilot)
        assert not (workspace / "x.txt").exists()
        assert app.query_one(ToolBlock).state == "error"
    (result,) = _tool_results(provider_env)
    assert result["is_error"] is True
    assert "denied" in str(result["content"]) and "use notes.md instead" in str(result["content"])


async def test_letters_typed_into_the_reason_are_text_never_shortcuts(
    provider_env: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    """``r`` opens the reason box; from then on every shortcut letter (y, a, w, e, n, r) is
    text: nothing runs, no rule is saved, and the deny carries the reason as typed."""
    touch = ToolUse("run_shell_command", {"command": "touch made.txt"})
    provider_env.script(Reply(tool_calls=[touch]), Reply(text="OK, I won't."))
    typed = "yes always when everywhere no rather not"
    app = make_app(workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "touch it")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval modal")
        dialog = app.screen
        await pilot.press("r")
        assert app.focused is dialog.query_one("#approval-reason", Input)
        await pilot.press(*["space" if c == " " else c for c in typed])
        assert app.screen is dialog, "a letter of the reason answered the dialog"
        await pilot.press("enter")
        await idle(pilot)
        assert app.query_one(ToolBlock).state == "error"
    assert not (workspace / "made.txt").exists()
    assert not list(isolated_env.rglob("*permissions*.json"))
    assert not list(isolated_env.rglob("settings.json"))
    (result,) = _tool_results(provider_env)
    assert result["is_error"] is True
    assert "denied" in str(result["content"]) and typed in str(result["content"])


async def test_allow_always_stops_asking_for_that_tool(
    provider_env: FakeServer, workspace: Path
) -> None:
    provider_env.script(_write("a.txt", "a"), _write("b.txt", "b"), Reply(text="Both done."))
    app = make_app(workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write two files")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval modal")
        await pilot.press("a")
        await idle(pilot)
        assert (workspace / "a.txt").exists() and (workspace / "b.txt").exists()
        assert [b.state for b in app.query(ToolBlock)] == ["ok", "ok"]


async def test_esc_during_a_running_tool_cancels_it_and_the_session_resumes(
    provider_env: FakeServer, workspace: Path
) -> None:
    slow = ToolUse("run_shell_command", {"command": "sleep 20"})
    provider_env.script(Reply(text="Running.", tool_calls=[slow]))
    app = make_app(workspace, "--approval-mode", "yolo")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "run it")
        await until(pilot, lambda: app.query(ToolBlock), "the tool block")
        block = app.query_one(ToolBlock)
        await until(pilot, lambda: block.state == "running", "the tool to run")
        assert "running run_shell_command" in app.status.line
        await pilot.press("escape")
        await idle(pilot)
        assert block.state == "cancelled"
        session = app.chat.runtime.agent.session  # type: ignore[union-attr]
        path = session.path
    assert path is not None
    record = load_session(path)
    assert unanswered_calls(record.messages) == []
    result = record.messages[-1].tool_results[0]
    assert result.is_error and "Cancelled" in result.content


async def test_esc_while_the_modal_is_open_denies(
    provider_env: FakeServer, workspace: Path
) -> None:
    provider_env.script(_write("y.txt", "y"), Reply(text="Fine."))
    app = make_app(workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write y")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval modal")
        await pilot.press("escape")
        await idle(pilot)
        assert not (workspace / "y.txt").exists()
    (result,) = _tool_results(provider_env)
    assert result["is_error"] is True


async def test_ctrl_c_while_asking_interrupts_the_turn_and_closes_the_modal(
    provider_env: FakeServer, workspace: Path
) -> None:
    provider_env.script(_write("z.txt", "z"))
    app = make_app(workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write z")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval modal")
        await pilot.press("ctrl+c")
        await idle(pilot)
        assert not isinstance(app.screen, ApprovalScreen)
        assert app.is_running and app.query_one(ToolBlock).state == "cancelled"
        session = app.chat.runtime.agent.session  # type: ignore[union-attr]
        assert unanswered_calls(session.transcript) == []
    assert not (workspace / "z.txt").exists()


async def test_always_for_this_workspace_saves_a_rule_in_the_users_config(
    provider_env: FakeServer, workspace: Path, isolated_env: Path
) -> None:
    shell = [ToolUse("run_shell_command", {"command": "echo one"})]
    again = [ToolUse("run_shell_command", {"command": "echo two"})]
    provider_env.script(Reply(tool_calls=shell), Reply(tool_calls=again), Reply(text="Counted."))
    app = make_app(workspace)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "count")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval modal")
        legend = str(app.screen.query_one("#approval-legend").render())
        assert "always: allow run_shell_command(echo *)" in legend
        await pilot.press("w")
        await idle(pilot)
        assert [b.state for b in app.query(ToolBlock)] == ["ok", "ok"]
    saved = json.loads(
        (isolated_env / "config" / "lull" / "workspace-permissions.json").read_text()
    )
    assert saved["workspaces"][str(workspace.resolve())] == {"allow": ["run_shell_command(echo *)"]}


async def test_a_doom_loop_asks_in_the_modal_and_deny_stops_the_turn(
    provider_env: FakeServer, workspace: Path
) -> None:
    from lull.ui.tui.widgets.notice_line import NoticeLine

    loop = Reply(tool_calls=[ToolUse("glob", {"pattern": "*.py"})])
    provider_env.script(loop, loop, loop, Reply(text="unreached"))
    app = make_app(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "look around")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the loop question")
        assert "the same call 3 times in a row" in app.screen.summary  # type: ignore[attr-defined]
        await pilot.press("n")
        await idle(pilot)
        notes = [n.text for n in app.query(NoticeLine)]
        assert any("the model made the same call 3 times in a row: glob(*.py)" in n for n in notes)
        assert any(n.startswith("stopped a loop") for n in notes)
    assert len(provider_env.requests) == 3


async def test_a_rolled_back_reply_is_marked_and_noted(
    provider_env: FakeServer, workspace: Path
) -> None:
    from lull.ui.tui.widgets.assistant_message import AssistantMessage
    from lull.ui.tui.widgets.notice_line import NoticeLine

    provider_env.script(Reply(text="As an AI, I cannot help with that."), Reply(text="Done."))
    app = make_app(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "help")
        await idle(pilot)
        answers = list(app.query(AssistantMessage))
        assert [a.discarded for a in answers] == [True, False]
        notes = [n.text for n in app.query(NoticeLine)]
        assert any("rolled back the model's reply (a refusal" in n for n in notes)
