"""The TUI's :class:`lull.model.approvals.Approver`: asks with the approval modal."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.app import App

from lull.model.approvals import Approval
from lull.model.messages import ToolCall
from lull.ui.tui.screens.approval import ApprovalScreen


class ModalApprover:
    """Pushes an :class:`ApprovalScreen` and waits for the answer.

    If the turn is interrupted while the modal is open, the modal is closed
    and the cancellation goes on (the engine gives the call a result).
    """

    def __init__(
        self, app: App[Any], on_ask: Callable[[ToolCall | None], None] | None = None
    ) -> None:
        self.app = app
        self.on_ask = on_ask  # told the call when a question opens, None when it closes

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        """Ask the user about ``call``; a closed modal without an answer counts as deny."""
        future: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()

        def answered(approval: Approval | None) -> None:
            if not future.done():
                future.set_result(approval or Approval("deny"))

        screen = ApprovalScreen(call, summary, rules)
        self._tell(call)
        self.app.push_screen(screen, callback=answered)
        try:
            return await future
        finally:
            self._tell(None)
            if screen.is_attached and self.app.screen is screen:
                self.app.pop_screen()

    def _tell(self, call: ToolCall | None) -> None:
        if self.on_ask is not None:
            self.on_ask(call)
