"""Approval policy: whether a tool call may run, must be asked about, or is refused.

Saved rules (:mod:`lull.tools.permissions.rules`) come first: deny > ask > allow > the approval
mode's
default."""

from __future__ import annotations

from typing import Literal

from lull.model.approvals import ALL_APPROVAL_MODES, ApprovalMode
from lull.tools.base import ApprovalNeed, Tool
from lull.tools.permissions.rules import RuleMatch

Decision = Literal["allow", "ask", "deny"]

EDIT_TOOLS = frozenset({"write_file", "edit"})


def decide(
    tool: Tool,
    mode: ApprovalMode,
    need: ApprovalNeed | None = None,
    rule: RuleMatch | None = None,
    *,
    sandboxed: bool = False,
) -> Decision:
    """Whether a call of ``tool`` runs, asks the user first, or is refused in ``mode``.

    A saved ``rule`` that matched the call decides first: deny refuses, ask asks (in every
    mode), allow runs it (but never widens ``plan`` mode beyond read-only tools).

    Read-only tools always run, unless the call has an :class:`ApprovalNeed` (a web fetch
    of a private address): such a call is treated like a tool that is not read-only and
    not an edit. ``plan`` refuses everything else but a tool with a ``read_only_hint`` (an
    MCP tool its server calls read-only); ``yolo`` allows everything;
    ``auto-edit`` allows file edits and asks for the rest; ``default`` asks for every
    call that is not read-only; ``dont-ask`` refuses where ``default`` would ask (an ask
    rule included: there is no one to ask). A ``sandboxed`` call (it runs inside the OS sandbox, and
    ``sandbox.autoAllowBashIfSandboxed`` is on) runs without asking in every mode but
    ``plan``; deny and ask rules still decide first.
    """
    if mode not in ALL_APPROVAL_MODES:
        raise ValueError(
            f"unknown approval mode {mode!r}; expected one of {', '.join(ALL_APPROVAL_MODES)}"
        )
    asks: Decision = "deny" if mode == "dont-ask" else "ask"
    if rule is not None and rule.effect != "allow":
        return asks if rule.effect == "ask" else "deny"
    if rule is not None and (mode != "plan" or tool.read_only or tool.read_only_hint):
        return "allow"
    if tool.read_only and need is None:
        return "allow"
    if mode == "plan":
        return "allow" if tool.read_only_hint and need is None else "deny"
    if mode == "yolo" or (sandboxed and need is None):
        return "allow"
    if mode == "auto-edit" and tool.name in EDIT_TOOLS and need is None:
        return "allow"
    return asks


def denial_message(
    tool: Tool,
    mode: ApprovalMode,
    reason: str | None = None,
    need: ApprovalNeed | None = None,
    rule: RuleMatch | None = None,
) -> str:
    """The tool result the model sees when a call of ``tool`` was not allowed to run (naming
    the saved rule that denied it, or that asked and was answered no)."""
    if rule is not None and rule.effect == "deny":
        text = f"{tool.name} was not run: the user's {rule.described()} denies it."
        return text + " Do not try to get around it; ask the user if you need it."
    if mode == "dont-ask" and reason is None:
        return (
            f"{tool.name} was not run: the dontAsk permission mode runs only read-only tools "
            "and the calls an allow rule pre-approves, and no allow rule covers this call. "
            "Do without it, or say which rule the user would need to add."
        )
    if rule is not None and rule.effect == "ask":
        asks = "asks first" if rule.rule.effect == "ask" else "made lull ask"
        text = f"The user denied this {tool.name} call (their {rule.described()} {asks})."
        if reason and reason.strip():
            text += f" Reason: {reason.strip()}"
        return text
    if need is not None:
        asked = "plan mode does not ask for it" if mode == "plan" else "the user denied it"
        text = (
            f"{tool.name} was not run: {need.reason}, which needs the user's approval, and {asked}."
        )
    elif mode == "plan" and not tool.read_only:
        text = (
            f"plan mode: only read-only tools may run; {tool.name} was not run. "
            "Describe the change you would make instead, and wait for the user to leave plan mode."
        )
    else:
        text = f"The user denied this {tool.name} call."
    if reason and reason.strip():
        text += f" Reason: {reason.strip()}"
    if need is not None:
        end = "" if text.endswith((".", "!", "?")) else "."
        text += f"{end} {need.how_to_allow}"
    return text
