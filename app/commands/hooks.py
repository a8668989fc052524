"""/hooks: the hook commands configured, by event, with the file each came from and whether
it waits for /trust."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lull.commands.base import CommandResult, hint, say
from lull.model.hooks import HOOK_EVENTS

if TYPE_CHECKING:
    from lull.runtime import Runtime


def hooks_command(runtime: Runtime, arg: str) -> CommandResult:
    """``/hooks`` lists every configured hook command."""
    if arg.strip():
        return hint(f"unknown /hooks argument {arg.strip()!r}; /hooks takes none")
    runner = runtime.agent.tools.hooks
    if not runner.hooks:
        return say(
            'no hooks; add them under "hooks" in settings.json, in Claude Code\'s shape: '
            '{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": '
            '"./check.sh"}]}]}'
        )
    waiting = set(map(id, runner.waiting_for_trust()))
    lines = ["hooks (each gets the event as JSON on stdin; exit 2 blocks):"]
    for event in HOOK_EVENTS:
        hooks = [hook for hook in runner.hooks if hook.event == event]
        if not hooks:
            continue
        lines.append(f"  {event}:")
        for hook in hooks:
            matcher = f"[{hook.matcher}] " if hook.matcher.strip() not in ("", "*") else ""
            where = f"{hook.source or 'settings'}{' (project)' if hook.project else ''}"
            waits = "; not run until you /trust this workspace" if id(hook) in waiting else ""
            lines.append(
                f"    {matcher}{hook.command}  (timeout {hook.timeout:g} s, {where}{waits})"
            )
    return CommandResult(tuple(lines))
