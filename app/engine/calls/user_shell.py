"""Shell commands the user runs: ``!command`` at the prompt, and ``!`command``` in a custom
slash command.

Both go through the approval rules of ``run_shell_command``: plan mode refuses them, and so
does anything else that refuses a shell call (the verdict "deny"). A ``!`` typed at the prompt
is the user's own consent, so where the rules would ask, it runs. A ``!`command``` in a
command file runs without asking only when the file is the user's own and its
``allowed-tools`` lists the shell (``consented``); otherwise the user is asked, naming the
file (a project's command file is repository data).

A ``!command`` typed at the prompt becomes part of the conversation as context for the next
message: the line the user typed, then a ``run_shell_command`` call and its result, marked
as run by the user (the result is compactable like any tool result, so idle cleanup and the
emergency clear treat it as one).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

from lull.engine.calls.runner import ToolRunner
from lull.engine.calls.scope import SHELL_TOOL
from lull.engine.sessions.session import Session
from lull.model.events import Event, Notice, ToolFinished, ToolStarted
from lull.model.messages import Message, Text, ToolCall, ToolResult, new_id
from lull.tools.permissions.policy import decide
from lull.tools.permissions.rules import suggest_rules

USER_SHELL_PREFIX = "!"
USER_CALL_PREFIX = "user_shell"
"""The id prefix of the call standing for a command the user ran (front ends show its output)."""
USER_RUN_HEADER = (
    "[The user ran this command themselves with `!` in lull's prompt; you did not run it. "
    "Its output is context for the user's next message.]"
)
CANCELLED_RUN = "Cancelled by the user before it finished; no output."


def user_call(command: str) -> ToolCall:
    """The ``run_shell_command`` call standing for a command the user runs."""
    return ToolCall(new_id(USER_CALL_PREFIX), SHELL_TOOL, {"command": command})


def is_user_call(call: ToolCall) -> bool:
    """True for the call of a command the user ran with ``!`` (not one the model made)."""
    return call.id.startswith(f"{USER_CALL_PREFIX}_")


async def check_user_command(
    runner: ToolRunner, call: ToolCall, *, consented: bool, asking: str
) -> str | None:
    """Why ``call`` may not run (None: it may). ``consented``: the user asked for exactly this
    command; otherwise the approver is asked, with ``asking`` as the summary."""
    tool = runner.registry.get(SHELL_TOOL)
    if tool is None:
        return "the shell tool is not available"
    need = await tool.approval_need(call.arguments, runner.context)
    rule = runner.rules.match(tool, call.arguments, runner.context)
    sandboxed = tool.sandboxed_without_asking(call.arguments, runner.context)
    verdict = decide(tool, runner.mode, need, rule, sandboxed=sandboxed)
    if verdict == "deny":
        if rule is not None:
            return f"refused by the {rule.described()}"
        return f"{runner.mode} mode does not run shell commands"
    asked_by_rule = rule is not None and rule.effect == "ask"
    if verdict == "allow" or (consented and not asked_by_rule):
        return None
    if not asked_by_rule and runner.rules.allowed_exactly(tool, call.arguments):
        return None
    rules = suggest_rules(tool, call.arguments, need)
    approval = await runner.approver.ask(call, asking, rules)
    if approval.decision == "allow_always":
        for line in runner.rules.remember(tool, call.arguments, rules, approval.remember):
            runner.progress.put_nowait(Notice("info", line))
    if approval.decision in ("allow", "allow_always"):
        return None
    reason = f": {approval.reason.strip()}" if approval.reason and approval.reason.strip() else ""
    return f"you denied it{reason}"


async def execute_user_command(runner: ToolRunner, call: ToolCall) -> ToolResult:
    """Run an allowed user command; its result as the model would see it."""
    guard = runner.rules.read_guard(runner.context.workspace)
    ctx = replace(runner.context, call_id=call.id, approved=True, read_guard=guard)
    output = await runner.registry.execute(SHELL_TOOL, call.arguments, ctx)
    return ToolResult(call.id, call.name, output.content, output.is_error)


async def run_prompt_shell(
    session: Session, runner: ToolRunner, command: str
) -> AsyncIterator[Event]:
    """``!command`` at the prompt: run it (approval rules apply), show it, and add the line,
    the call and its user-run result to the conversation."""
    call = user_call(command)
    refusal = await check_user_command(runner, call, consented=True, asking=command)
    if refusal is not None:
        yield Notice("warning", f"!{command}: not run: {refusal}")
        return
    closed = session.close_open_calls(CANCELLED_RUN)
    if closed:
        yield Notice("warning", f"gave {closed} unfinished tool call(s) a 'cancelled' result")
    yield ToolStarted(call, command)
    result = ToolResult(call.id, call.name, CANCELLED_RUN, is_error=True)
    try:
        result = await execute_user_command(runner, call)
        yield ToolFinished(call, result)
    finally:
        marked = replace(result, content=f"{USER_RUN_HEADER}\n{result.content}")
        session.add(Message("user", (Text(f"{USER_SHELL_PREFIX}{command}"),), origin="user"))
        session.add(Message("assistant", (call,), origin="synthetic"))
        session.add(Message("user", (marked,), origin="tool"))
