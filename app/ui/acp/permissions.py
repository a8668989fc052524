"""Approvals through the editor: ``session/request_permission`` for a call lull's rules ask
about.

The editor is offered four answers, each one of lull's: allow once, allow always for this
session, allow always in this workspace (the suggested rules are saved, like the terminal's
``a`` and ``w``), and reject. A cancelled request (the turn was cancelled, or the editor
dismissed it) is a denial.

The sandbox's question about a new host (:data:`~lull.runtime.sandbox.DOMAIN_QUESTION`) is
asked on the running ``run_shell_command`` call whose command wants the host: the request
names that call, which shows as waiting while the editor asks, and runs on after the answer.
It offers three answers: allow for this session, allow always (saved to the workspace's
``sandbox.network.allowedDomains``), and reject.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal

from lull.model.approvals import Approval
from lull.model.messages import ToolCall
from lull.runtime.sandbox import DOMAIN_QUESTION
from lull.ui.acp.tool_calls import ToolCallTracker, call_locations, tool_kind, tool_title
from lull.ui.shared.approvals import always_legend

if TYPE_CHECKING:
    from acp.interfaces import Client
    from acp.schema import PermissionOption, ToolCallProgress, ToolCallStart

OptionId = Literal["allow_once", "allow_session", "allow_workspace", "reject"]
"""The ids of the answers lull offers (what the editor sends back)."""
ANSWERS: dict[str, Approval] = {
    "allow_once": Approval("allow"),
    "allow_session": Approval("allow_always", remember="session"),
    "allow_workspace": Approval("allow_always", remember="workspace"),
    "reject": Approval("deny", "the user rejected this call in the editor"),
}
DISMISSED = Approval("deny", "the user dismissed the approval request")


def permission_options(call: ToolCall, rules: tuple[str, ...]) -> list[PermissionOption]:
    """The answers offered for ``call``; the "always" ones say what they would allow."""
    from acp.schema import PermissionOption

    legend = always_legend(call, rules).removeprefix("always: ")
    return [
        PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
        PermissionOption(
            option_id="allow_session",
            name=f"Always for this session ({legend})",
            kind="allow_always",
        ),
        PermissionOption(
            option_id="allow_workspace",
            name=f"Always in this workspace ({legend})",
            kind="allow_always",
        ),
        PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
    ]


class ClientApprover:
    """lull's :class:`~lull.model.approvals.Approver` for an ACP session: announces the call
    (``send`` delivers a session update), then asks the editor."""

    def __init__(
        self,
        client: Client,
        session_id: str,
        tracker: ToolCallTracker,
        send: Callable[[ToolCallStart | ToolCallProgress], Awaitable[None]],
    ) -> None:
        self.client = client
        self.session_id = session_id
        self.tracker = tracker
        self.send = send

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        """Ask the editor whether ``call`` may run (or, for the sandbox's question, whether
        the running call it names may reach a host)."""
        from acp.schema import AllowedOutcome, ToolCallUpdate

        if call.name == DOMAIN_QUESTION and self.tracker.is_open(call.id):
            return await self._ask_for_host(call, summary)
        announced = self.tracker.start(call, summary)
        if announced is not None:
            await self.send(announced)
        workspace = self.tracker.workspace
        request = ToolCallUpdate(
            tool_call_id=call.id,
            title=tool_title(call, summary),
            kind=tool_kind(call.name),
            status="pending",
            locations=call_locations(call, workspace) or None,
            raw_input=dict(call.arguments),
        )
        response = await self.client.request_permission(
            session_id=self.session_id,
            tool_call=request,
            options=permission_options(call, rules),
        )
        outcome = response.outcome
        if isinstance(outcome, AllowedOutcome):
            return ANSWERS.get(outcome.option_id, DISMISSED)
        return DISMISSED

    async def _ask_for_host(self, call: ToolCall, summary: str) -> Approval:
        """The network question on the running call ``call.id``: it waits while the editor
        asks, then runs on."""
        from acp.helpers import text_block, tool_content, update_tool_call
        from acp.schema import AllowedOutcome, ToolCallUpdate

        host = str(call.arguments.get("host", ""))
        request = ToolCallUpdate(
            tool_call_id=call.id,
            status="pending",
            content=[tool_content(text_block(f"The sandbox asks: {summary}"))],
        )
        try:
            response = await self.client.request_permission(
                session_id=self.session_id, tool_call=request, options=host_options(host)
            )
        finally:
            if self.tracker.is_open(call.id):
                await self.send(update_tool_call(call.id, status="in_progress", content=[]))
        outcome = response.outcome
        if isinstance(outcome, AllowedOutcome):
            return HOST_ANSWERS.get(outcome.option_id, DISMISSED)
        return DISMISSED


HOST_ANSWERS: dict[str, Approval] = {
    "allow_once": Approval("allow"),
    "allow_always": Approval("allow_always", remember="workspace"),
    "reject": Approval("deny", "the user rejected the network access in the editor"),
}
"""The answers to the sandbox's network question, by option id."""


def host_options(host: str) -> list[PermissionOption]:
    """The answers offered when a sandboxed command wants to reach ``host``: for this
    session, always (saved for the workspace), or not."""
    from acp.schema import PermissionOption

    return [
        PermissionOption(
            option_id="allow_once", name=f"Allow {host} for this session", kind="allow_once"
        ),
        PermissionOption(
            option_id="allow_always",
            name=f"Always allow {host} in this workspace (sandbox.network.allowedDomains)",
            kind="allow_always",
        ),
        PermissionOption(option_id="reject", name=f"Refuse {host}", kind="reject_once"),
    ]
