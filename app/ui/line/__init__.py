"""Line mode (``lull --plain``): a prompt-toolkit chat that prints to the terminal's scrollback.

``run_line`` builds the runtime, then reads messages with history, multi-line
input (Enter sends; Esc+Enter or Ctrl+J adds a newline) and completion of
``/`` commands and ``@paths``; answers stream to scrollback (settled markdown
printed once, a short live tail). When stdin or stdout is not a terminal it
reads plain lines instead. It never imports Textual. ``lull.cli`` imports this
package only after the arguments are parsed. When the terminal goes away (SIGHUP, or
the tty hangs up), the turn is stopped, the session closed and lull exits with 129.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, cast

from rich.console import Console

from lull.model.events import Notice
from lull.runtime import RunOptions
from lull.ui.line.approve import TerminalApprover
from lull.ui.line.chat import LineChat, Reader
from lull.ui.line.launch import open_line_runtime
from lull.ui.line.render import EventPrinter
from lull.ui.line.status import Fragments, banner_lines, recap_lines
from lull.ui.shared.hangup import HANGUP_EXIT, GuardedOutput, HangupWatch
from lull.ui.shared.history import History
from lull.version import version

__all__ = ["run_line"]

EXIT_INTERRUPTED = 130
PRELOAD_DELAY_SECONDS = 0.2


def run_line(options: RunOptions) -> int:
    """Run the interactive line-mode chat until the user quits; returns the exit code."""
    try:
        runtime, code = open_line_runtime(options)
    except KeyboardInterrupt:  # Ctrl+C while starting: leave quietly
        return EXIT_INTERRUPTED
    if runtime is None:
        return code
    workspace = options.workspace
    watch = HangupWatch(lambda: chat.hang_up())
    output = cast(TextIO, GuardedOutput(sys.stdout, watch.fire))  # EIO: the terminal is gone
    printer = EventPrinter(Console(highlight=False, file=output))
    reader = _reader(workspace, lambda: chat.status, watch.check)
    chat = LineChat(runtime, reader, printer, workspace)
    runtime.agent.set_approver(TerminalApprover(chat.reader.ask, printer))
    for number, line in enumerate(banner_lines(runtime, version())):
        printer.line(line, "bold" if number == 0 else "dim")
    if runtime.resumed:
        for line in recap_lines(runtime.agent.session):
            printer.line(line, "dim")
    try:
        asyncio.run(_chat(chat, watch))
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    finally:
        watch.check()  # an end of input may have been the terminal going away
        printer.end_stream()
        unsaved = runtime.close()
        if unsaved:
            printer.line(f"lull: error: {unsaved}", "red")
        printer.line(f"resume with: lull --resume {runtime.agent.session.id}")
    return HANGUP_EXIT if watch.fired else 0


async def _chat(chat: LineChat, watch: HangupWatch) -> None:
    # The SDK imports while the user types, once the first prompt is on screen.
    asyncio.get_running_loop().call_later(PRELOAD_DELAY_SECONDS, chat.runtime.preload_sdk)
    # MCP servers start in the background while the user types; a failure is said at once
    chat.runtime.start_tools(on_notice=lambda notice: _above_prompt(chat.printer, notice))
    watch.start()
    try:
        await chat.run()
    finally:
        watch.stop()
        with contextlib.suppress(Exception):
            for notice in await chat.runtime.end_session("prompt_input_exit"):
                chat.printer.render(notice)
        with contextlib.suppress(Exception):
            await chat.runtime.stop_tools()
        with contextlib.suppress(Exception):  # closing must not hide how the chat ended
            await chat.agent.provider.aclose()


def _above_prompt(printer: EventPrinter, notice: Notice) -> None:
    """Print ``notice`` above the prompt being typed at (or plainly when none is up)."""
    from prompt_toolkit.application import run_in_terminal

    run_in_terminal(lambda: printer.render(notice))


def _reader(
    workspace: Path, toolbar: Callable[[], Fragments], at_end: Callable[[], object]
) -> Reader:
    """prompt-toolkit on a terminal, plain line reading otherwise (pipes, logs); ``at_end``
    runs when the terminal's input ends (it may have gone away)."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        from lull.ui.line.terminal import PromptInput

        return PromptInput(workspace, History(), toolbar, at_end)
    from lull.ui.line.terminal import PlainInput

    return PlainInput()
