"""The line-mode loop against a real runtime and the fake server, with scripted input."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from lull.engine.hooks.runner import HookRunner
from lull.model.hooks import HookCommand
from lull.model.messages import unanswered_calls
from lull.runtime import Runtime
from lull.ui.line.approve import TerminalApprover
from lull.ui.line.chat import LineChat
from lull.ui.line.render import EventPrinter
from lull.ui.shared.commands import is_command
from tests.fakes import FakeServer, Reply, ToolUse
from tests.support import fake_runtime

Item = str | BaseException | asyncio.Future[str]


class Script:
    """Plays inputs in order (text, an exception to raise, or a future to wait on); then EOF."""

    def __init__(self, *items: Item) -> None:
        self.items = list(items)
        self.prompts: list[str] = []
        self.defaults: list[str] = []

    async def read(self, prompt: str, default: str = "") -> str:
        self.prompts.append(prompt)
        self.defaults.append(default)
        if not self.items:
            raise EOFError
        item = self.items.pop(0)
        if isinstance(item, asyncio.Future):
            return await item
        if isinstance(item, BaseException):
            raise item
        return item

    ask = read


class Chat:
    """A LineChat printing to a buffer."""

    def __init__(self, runtime: Runtime, workspace: Path, *items: Item) -> None:
        self.out = io.StringIO()
        console = Console(file=self.out, width=100, force_terminal=False, color_system=None)
        self.script = Script(*items)
        self.printer = EventPrinter(console)
        self.chat = LineChat(runtime, self.script, self.printer, workspace)
        runtime.agent.set_approver(TerminalApprover(self.script.ask, self.printer))

    @property
    def text(self) -> str:
        """What was printed, without the padding rich adds at line ends."""
        return "\n".join(line.rstrip() for line in self.out.getvalue().splitlines())

    async def run(self) -> None:
        await asyncio.wait_for(self.chat.run(), timeout=60)


async def _until(check: Callable[[], bool], timeout: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "condition never became true"
        await asyncio.sleep(0.01)


def _request_text(fake: FakeServer) -> str:
    return json.dumps(fake.requests[-1]["messages"])


async def test_a_message_gets_a_streamed_answer_and_end_of_input_quits(
    runtime: Runtime, workspace: Path, fake: FakeServer
) -> None:
    fake.script(Reply(text="Hello **there**.\n\nSecond paragraph."))
    chat = Chat(runtime, workspace, "hi")
    await chat.run()
    assert "Hello there.\n\nSecond paragraph." in chat.text
    assert "· 1 request: " in chat.text and "output · session" in chat.text
    assert chat.script.prompts == ["> ", "> "]


async def test_commands_run_and_quit_stops_reading(runtime: Runtime, workspace: Path) -> None:
    chat = Chat(runtime, workspace, "/cost", "/modle", "   ", "/quit", "never read")
    await chat.run()
    assert "cache hit ratio: n/a" in chat.text
    assert "unknown command /modle; did you mean /model? type /help for the list" in chat.text
    assert chat.script.items == ["never read"]


async def test_a_path_is_a_message_and_mentions_send_the_file(
    runtime: Runtime, workspace: Path, fake: FakeServer
) -> None:
    assert is_command("/help") and is_command("/") and not is_command("/usr/bin is broken")
    (workspace / "notes.txt").write_text("the answer is 42")
    chat = Chat(runtime, workspace, "/usr/bin is broken", "read @notes.txt")
    await chat.run()
    assert "(fake) You said: /usr/bin is broken" in chat.text
    assert "· attached notes.txt (16 bytes)" in chat.text
    assert "the answer is 42" in _request_text(fake)


async def test_ctrl_c_at_the_prompt_only_drops_the_input(runtime: Runtime, workspace: Path) -> None:
    chat = Chat(runtime, workspace, KeyboardInterrupt(), "still here")
    await chat.run()
    assert "· Ctrl+D or /quit leaves lull" in chat.text
    assert "(fake) You said: still here" in chat.text


@pytest.fixture
def asking_runtime(fake: FakeServer, workspace: Path, tmp_path: Path) -> Runtime:
    return fake_runtime(fake, workspace, tmp_path, mode="default")


async def test_a_denial_with_a_reason_reaches_the_model(
    asking_runtime: Runtime, workspace: Path, fake: FakeServer
) -> None:
    fake.script(
        Reply(tool_calls=[ToolUse("run_shell_command", {"command": "make clean"})]),
        Reply(text="ok, I will not"),
    )
    chat = Chat(asking_runtime, workspace, "clean up", "no, keep the build")
    await chat.run()
    assert "Allow run_shell_command(make clean)?" in chat.script.prompts[1]
    assert "denied this run_shell_command call. Reason: keep the build" in _request_text(fake)
    assert "ok, I will not" in chat.text


async def test_ctrl_c_at_an_approval_interrupts_and_the_session_stays_valid(
    asking_runtime: Runtime, workspace: Path, fake: FakeServer
) -> None:
    fake.script(Reply(tool_calls=[ToolUse("run_shell_command", {"command": "make"})]))
    chat = Chat(asking_runtime, workspace, "build it", KeyboardInterrupt(), "never mind")
    await chat.run()
    assert "· interrupted" in chat.text
    assert fake.journal[-1].status == 200
    assert "Cancelled by the user" in _request_text(fake)
    assert not unanswered_calls(asking_runtime.agent.session.transcript)


async def test_interrupting_a_stream_keeps_what_was_shown_and_the_chat_goes_on(
    runtime: Runtime, workspace: Path, fake: FakeServer
) -> None:
    long_answer = "".join(f"paragraph {n}\n\n" for n in range(300))
    # A stream of half a minute: the interrupt lands mid-way however slowly the machine runs.
    fake.script(Reply(text=long_answer, chunk_size=6, chunk_delay=0.05), Reply(text="fine"))
    chat = Chat(runtime, workspace, "write a lot", "still there?")
    running = asyncio.create_task(chat.run())
    await _until(lambda: "paragraph 3" in chat.text)
    chat.chat.interrupt()
    await running
    assert "· interrupted" in chat.text and "paragraph 299" not in chat.text
    assert "fine" in chat.text
    transcript = runtime.agent.session.transcript
    assert [m.role for m in transcript] == ["user", "user", "assistant"]
    assert fake.journal[-1].status == 200


async def test_ctrl_c_with_no_turn_running_leaves(runtime: Runtime, workspace: Path) -> None:
    never: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    chat = Chat(runtime, workspace, never)
    running = asyncio.create_task(chat.chat.run())
    await _until(lambda: bool(chat.script.prompts))
    chat.chat.interrupt()
    with pytest.raises(asyncio.CancelledError):
        await running


async def test_resume_picks_a_session_by_number_and_restores_its_history(
    runtime: Runtime, workspace: Path, fake: FakeServer
) -> None:
    fake.script(Reply(text="noted"), Reply(text="it was tangerine"))
    chat = Chat(
        runtime, workspace, "remember tangerine", "/clear", "/resume", "", "/resume", "1", "word?"
    )
    await chat.run()
    assert "resume cancelled" in chat.text
    assert "  1. " in chat.text and "remember tangerine" in chat.text
    assert "resumed session" in chat.text and "  you:  remember tangerine" in chat.text
    assert "remember tangerine" in _request_text(fake)


async def test_a_doom_loop_asks_whether_to_go_on_and_no_stops_the_turn(
    runtime: Runtime, workspace: Path, fake: FakeServer
) -> None:
    loop = Reply(tool_calls=[ToolUse("run_shell_command", {"command": "make test"})])
    fake.script(loop, loop, loop, Reply(text="unreached"))
    chat = Chat(runtime, workspace, "fix the tests", "n")
    await chat.run()
    question = chat.script.prompts[1]
    assert question.startswith("Allow run_shell_command(make test - the same call 3 times in a row")
    assert "deny to stop the turn" in question
    assert "guardrail: the model made the same call 3 times in a row" in chat.text
    assert "stopped a loop" in chat.text and "unreached" not in chat.text
    assert not unanswered_calls(runtime.agent.session.transcript)


async def test_a_doom_loop_goes_on_when_the_user_says_yes(
    runtime: Runtime, workspace: Path, fake: FakeServer
) -> None:
    loop = Reply(tool_calls=[ToolUse("glob", {"pattern": "*.py"})])
    fake.script(loop, loop, loop, Reply(text="the loop ended well"))
    chat = Chat(runtime, workspace, "look", "y")
    await chat.run()
    assert "the loop ended well" in chat.text


async def test_rewind_offers_numbered_choices_and_runs_the_chosen_one(
    fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    from lull.engine.checkpoints.files import CheckpointStore

    runtime = fake_runtime(fake, workspace, tmp_path, mode="yolo")
    runtime.agent.tools.checkpoints = CheckpointStore(tmp_path / "checkpoints")
    write = ToolUse("write_file", {"path": "a.txt", "content": "hello\n"})
    fake.script(Reply(tool_calls=[write]), Reply(text="Wrote it."))
    chat = Chat(runtime, workspace, "write a", "/rewind", "1", "3", "/rewind", "")
    await chat.run()
    assert not (workspace / "a.txt").exists()  # 3) the code only
    assert "  1) 1. write a" in chat.text
    assert "  3) restore the code (the conversation stays)" in chat.text
    assert f"deleted {workspace.resolve() / 'a.txt'}" in chat.text
    assert "Rewind to before which prompt? number (Enter cancels): " in chat.script.prompts
    assert "· cancelled" in chat.text
    assert len(runtime.agent.session.view()) > 1  # the conversation stayed


async def test_a_conversation_rewind_puts_the_prompt_back_in_the_input(
    runtime: Runtime, workspace: Path, fake: FakeServer
) -> None:
    fake.script(Reply(text="Hello."))
    chat = Chat(runtime, workspace, "say hello", "/rewind 1 conversation", "")
    await chat.run()
    assert "the conversation is back to before prompt 1" in chat.text
    assert chat.script.defaults == ["", "", "say hello", ""]


async def test_a_bang_line_runs_in_the_shell_and_is_context_for_the_next_message(
    asking_runtime: Runtime, workspace: Path, fake: FakeServer
) -> None:
    (workspace / "marker.txt").write_text("x")
    chat = Chat(asking_runtime, workspace, "!ls", "!", "what is there?")
    await chat.run()
    assert "marker.txt" in chat.text  # the output is shown
    assert "type a command after !, e.g. !git status" in chat.text
    assert "Allow" not in chat.text  # typed by the user: its own consent, never asked
    sent = _request_text(fake)
    assert "The user ran this command themselves" in sent and "marker.txt" in sent
    assert len(fake.requests) == 1  # the ! lines made no model request


async def test_plan_mode_refuses_a_bang_line(
    fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    runtime = fake_runtime(fake, workspace, tmp_path, mode="plan")
    chat = Chat(runtime, workspace, "!touch made.txt")
    await chat.run()
    assert "!touch made.txt: not run: plan mode does not run shell commands" in chat.text
    assert not (workspace / "made.txt").exists() and fake.requests == []


async def test_session_start_hooks_run_as_a_session_opens(
    runtime: Runtime, workspace: Path, fake: FakeServer, tmp_path: Path
) -> None:
    seen = tmp_path / "sources"
    start = tmp_path / "start.sh"
    start.write_text(f'#!/usr/bin/env bash\njq -r .source >> "{seen}"\necho "use pytest"\n')
    start.chmod(0o755)
    hooks = [HookCommand("SessionStart", str(start))]
    runtime.agent.tools.hooks = HookRunner(hooks, workspace=workspace)
    first: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    chat = Chat(runtime, workspace, first, "hi")
    running = asyncio.create_task(chat.run())
    await _until(lambda: bool(chat.script.prompts))  # lull waits for the first input
    assert seen.read_text() == "startup\n"  # and the hooks ran before
    first.set_result("/clear")
    await running
    assert seen.read_text() == "startup\nclear\n"  # the new session's, before "hi"
    assert "<session-start-hook>\\nuse pytest\\n</session-start-hook>" in _request_text(fake)
