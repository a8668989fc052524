"""Approvals in the line mode: a y/n/a/w/e question before a tool call that needs one.

"Always" keeps the allow rules the engine suggests (``run_shell_command(npm test *)``) for
this session (a), this workspace (w) or everywhere (e)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from lull.model.approvals import Approval
from lull.model.messages import ToolCall
from lull.model.permissions import SaveScope
from lull.model.text import terminal_text
from lull.ui.line.render import EventPrinter
from lull.ui.shared.approvals import always_legend

QUESTION = (
    "Allow {name}({summary})? [y]es / [n]o (or type why not) / always: [a] this session, "
    "[w] this workspace, [e] everywhere: "
)
DENY_PREFIXES = ("no", "n")
ALWAYS: dict[str, SaveScope] = {
    "a": "session",
    "always": "session",
    "w": "workspace",
    "workspace": "workspace",
    "e": "user",
    "everywhere": "user",
}


def parse_answer(answer: str) -> Approval:
    """The approval an answer stands for; any other text is a denial with that reason.

    ``y``/``yes`` allow once, ``a``/``always`` allow always for the session, ``w`` for this
    workspace and ``e`` everywhere (the suggested rules are saved),
    empty, ``n`` or ``no`` deny; ``n, use X`` or ``no: not now`` deny with the
    text after the prefix as the reason the model sees.
    """
    text = answer.strip()
    word = text.lower()
    if word in ("y", "yes"):
        return Approval("allow")
    if word in ALWAYS:
        return Approval("allow_always", remember=ALWAYS[word])
    if word in ("", "n", "no"):
        return Approval("deny")
    for prefix in DENY_PREFIXES:
        if word.startswith(prefix) and word[len(prefix)] in " ,:;-":
            reason = text[len(prefix) :].strip(" ,:;-")
            return Approval("deny", reason or None)
    return Approval("deny", text)


class TerminalApprover:
    """Asks on the terminal; Ctrl+C at the question interrupts the whole turn."""

    def __init__(self, ask: Callable[[str], Awaitable[str]], printer: EventPrinter) -> None:
        self._ask = ask
        self._printer = printer

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        """Ask whether ``call`` may run (saying what "always" would allow)."""
        self._printer.end_stream()
        self._printer.line("  " + always_legend(call, rules))
        question = QUESTION.format(name=call.name, summary=summary)
        try:
            answer = await self._ask(terminal_text(question))
        except EOFError:
            return Approval("deny")
        except KeyboardInterrupt:
            raise asyncio.CancelledError from None  # the turn stops; the engine closes calls
        return parse_answer(answer)
