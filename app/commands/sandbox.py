"""/sandbox: whether commands run in the OS sandbox, what it allows, and what is missing to
turn it on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lull.commands.base import CommandResult, hint, say

if TYPE_CHECKING:
    from lull.runtime import Runtime
    from lull.tools.process.sandbox.policy import SandboxPolicy
    from lull.tools.process.sandbox.probe import Availability

TURN_ON = 'set {"sandbox": {"enabled": true}} in your settings (or LULL_SANDBOX=1) and restart'


def _listed(items: tuple[object, ...], none: str) -> str:
    return ", ".join(str(item) for item in items) if items else none


def describe_policy(policy: SandboxPolicy) -> list[str]:
    """What the sandbox lets commands do, one line each."""
    return [
        f"  write: {_listed(policy.writable, 'nothing')} and the sandbox's TMPDIR; "
        "the rest of the file system is read-only",
        f"  read-only inside those: {_listed(policy.read_only, 'nothing')}",
        f"  hidden: {_listed(policy.hidden, 'nothing')}",
        f"  readable again inside those: {_listed(policy.readable, 'nothing')}",
        f"  network: {_listed(policy.allowed_domains, 'no domain')} (through lull's proxy)",
        f"  Unix sockets outside the writable places: {_listed(policy.unix_sockets, 'none')}",
        "  localhost: "
        + (
            "commands may serve on it and reach their own servers directly"
            if policy.local_binding
            else "requests go through the proxy like any host (allowLocalBinding is off)"
        ),
        f"  outside the sandbox (asked as usual): {_listed(policy.excluded_commands, 'none')}",
        "  sandboxed commands "
        + ("run without asking" if policy.auto_allow else "are asked about as usual")
        + "; a denied command "
        + ("may be retried outside it, asked" if policy.allow_unconfined else "is not retried"),
    ]


def sandbox_report(enabled: bool, availability: Availability, policy: SandboxPolicy) -> str:
    """The whole /sandbox answer for these facts."""
    lines = [f"sandbox: {availability.mechanism}"]
    if not availability.ready:
        lines.append(f"missing: {availability.missing}")
    if not enabled:
        lines.append(f"the sandbox is off: commands run as your own; to turn it on, {TURN_ON}")
    elif availability.ready:
        lines.append("the sandbox is on: every command lull runs for the model runs inside it")
    else:
        lines.append("the sandbox is on but cannot start (see missing)")
    lines.append("what it allows:" if enabled else "what it would allow:")
    lines += describe_policy(policy)
    return "\n".join(lines)


def sandbox_command(runtime: Runtime, arg: str) -> CommandResult:
    """/sandbox shows the sandbox's state, boundary and what is missing."""
    from lull.runtime.sandbox import sandbox_policy
    from lull.tools.process.sandbox.probe import probe
    from lull.tools.process.sandbox.sandbox import Sandbox

    if arg.strip():
        return hint(f"/sandbox takes no argument (got {arg.strip()!r})")
    running = runtime.agent.tools.context.sandbox
    if isinstance(running, Sandbox):
        availability, policy = running.availability, running.policy
    else:
        availability, policy = probe(), sandbox_policy(runtime.settings, runtime.workspace)
    return say(sandbox_report(runtime.settings.sandbox.enabled, availability, policy))
