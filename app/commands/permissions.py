"""/permissions: the saved permission rules in force and where each came from; add one for
this session."""

from __future__ import annotations

from typing import TYPE_CHECKING, get_args

from lull.commands.base import CommandResult, hint, say
from lull.model.permissions import PermissionRule, RuleEffect, parse_rule

if TYPE_CHECKING:
    from lull.runtime import Runtime

USAGE = "/permissions, or /permissions allow|ask|deny RULE (for this session)"


def permissions_command(runtime: Runtime, arg: str) -> CommandResult:
    """/permissions lists the rules (deny, ask, allow) with their sources; ``/permissions
    deny run_shell_command(git push *)`` adds a rule for the rest of the session."""
    word, _, rest = arg.strip().partition(" ")
    if not word:
        return _list(runtime)
    effects: tuple[RuleEffect, ...] = get_args(RuleEffect)
    if word.lower() not in effects:
        return hint(f"unknown /permissions argument {word!r}; {USAGE}")
    effect: RuleEffect = word.lower()  # type: ignore[assignment]
    try:
        parse_rule(rest)
    except ValueError as problem:
        return hint(f"/permissions {effect}: {problem}")
    rule = PermissionRule(effect, rest.strip(), "this session (/permissions)", "session")
    runtime.agent.tools.rules.session.append(rule)
    return say(f'{effect} rule "{rule.text}" applies for the rest of this session')


def _list(runtime: Runtime) -> CommandResult:
    book = runtime.agent.tools.rules
    mode = runtime.agent.tools.mode
    rules = sorted(book.all(), key=lambda rule: ("deny", "ask", "allow").index(rule.effect))
    added = _added_directories(runtime)
    if not rules:
        return CommandResult((
            f"no permission rules; the approval mode ({mode}) decides. Add rules under "
            'permissions {"allow": [...], "ask": [...], "deny": [...]} in settings.json, '
            "answer a question with always, or /permissions allow|ask|deny RULE",
            *added,
        ))  # fmt: skip
    width = max(len(rule.text) for rule in rules)
    lines = [f"permission rules (deny > ask > allow > the {mode} mode):"]
    for rule in rules:
        waits = "" if book.applies(rule) else "; not applied until you /trust this workspace"
        lines.append(f"  {rule.effect:<5} {rule.text:<{width}}  {_origin(rule)}{waits}")
    return CommandResult((*lines, *added))


def _added_directories(runtime: Runtime) -> list[str]:
    """The folders added to the workspace (permissions.additionalDirectories, --add-dir),
    each with where it came from."""
    found = runtime.settings.permissions.additional_directories
    if not found:
        return []
    trusted = runtime.trust() if runtime.trust is not None else False
    lines = ["directories tools may reach besides the workspace:"]
    for added in found:
        origin = f"{added.source} (project)" if added.project else added.source
        waits = (
            "; not applied until you /trust this workspace" if added.project and not trusted else ""
        )
        lines.append(f"  {added.path}  {origin}{waits}")
    return lines


def _origin(rule: PermissionRule) -> str:
    """Where a rule came from, for the listing."""
    match rule.scope:
        case "project":
            return f"{rule.source} (project)"
        case "session":
            return rule.source or "this session"
        case "user" | "workspace":
            return rule.source
