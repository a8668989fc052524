"""The ``sandbox`` settings turned into the sandbox commands run in, and what to tell the user
at start when it cannot start."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lull.engine.calls.runner import ToolRunner
from lull.model.messages import ToolCall, new_id
from lull.runtime.wiring import added_directories, directories_waiting_for_trust, tool_context
from lull.settings.loader import LoadedSettings
from lull.settings.model import Settings
from lull.settings.paths import data_dir, state_dir, user_config_dir
from lull.tools.base import ToolContext
from lull.tools.builtin.shell import SandboxedShellTool
from lull.tools.process.sandbox.policy import SandboxPolicy, absolute, hidden_paths
from lull.tools.process.sandbox.probe import Availability, probe
from lull.tools.process.sandbox.sandbox import AskDomain, Sandbox
from lull.tools.registry import ToolRegistry

DOMAIN_QUESTION = "sandbox_network"
"""The name a question about a new host goes by (the front ends show it like a tool call)."""


def sandbox_policy(
    settings: Settings, workspace: Path, home: Path | None = None, added: tuple[Path, ...] = ()
) -> SandboxPolicy:
    """The boundary ``settings`` draw around commands run in ``workspace`` (``added``: the
    directories added to it, writable like it)."""
    sandbox = settings.sandbox
    workspace = workspace.resolve()
    files = sandbox.filesystem
    own = (user_config_dir(), data_dir(), state_dir())
    home = Path.home() if home is None else home
    return SandboxPolicy(
        workspace=workspace,
        writable=(
            workspace,
            *added,
            *(absolute(entry, workspace) for entry in files.allow_write),
        ),
        read_only=tuple(absolute(entry, workspace) for entry in files.deny_write),
        hidden=hidden_paths(home, own, files.deny_read, workspace),
        allowed_domains=sandbox.network.allowed_domains,
        excluded_commands=sandbox.excluded_commands,
        auto_allow=sandbox.auto_allow_bash_if_sandboxed,
        allow_unconfined=sandbox.allow_unsandboxed_commands,
    )


def trusted_tool_context(
    settings: Settings,
    workspace: Path,
    loaded: LoadedSettings,
    trusted: bool,
    notes: list[str],
    registry: ToolRegistry,
) -> ToolContext:
    """Where tools run and what they may touch, with the sandbox; a project's added
    directories count only when ``trusted`` (else ``notes`` say they wait for /trust)."""
    context = tool_context(settings, workspace, loaded, trusted)
    added = added_directories(settings, workspace, trusted)
    sandbox = command_sandbox(settings, workspace, notes, registry=registry, added=added)
    waiting = directories_waiting_for_trust(settings)
    if waiting and not trusted:
        notes.append(
            f"this workspace's project settings add directories ({', '.join(waiting)}); tools "
            "may reach them only once you trust it: /trust"
        )
    return dataclasses.replace(context, sandbox=sandbox)


def command_sandbox(
    settings: Settings,
    workspace: Path,
    notes: list[str],
    availability: Availability | None = None,
    registry: ToolRegistry | None = None,
    added: tuple[Path, ...] = (),
) -> Sandbox | None:
    """The sandbox commands run in (None: ``sandbox.enabled`` is off, or it cannot start and
    commands run without it, said in ``notes``; ``added``: directories added to the
    workspace). With ``sandbox.failIfUnavailable`` a sandbox
    that cannot start is kept: it refuses every command, saying what is missing. While there
    is one, ``registry`` offers the shell tool that says so (:class:`SandboxedShellTool`)."""
    sandbox = _sandbox(settings, workspace, notes, availability, added)
    if sandbox is not None and registry is not None:
        registry.replace(SandboxedShellTool())
    return sandbox


def _sandbox(
    settings: Settings,
    workspace: Path,
    notes: list[str],
    availability: Availability | None,
    added: tuple[Path, ...],
) -> Sandbox | None:
    if not settings.sandbox.enabled:
        return None
    availability = probe() if availability is None else availability
    if availability.ready:
        return Sandbox(sandbox_policy(settings, workspace, added=added), availability)
    if settings.sandbox.fail_if_unavailable:
        notes.append(
            f"the sandbox cannot start: {availability.missing}; sandbox.failIfUnavailable is "
            "set, so commands are refused until it can (/sandbox)"
        )
        return Sandbox(sandbox_policy(settings, workspace, added=added), availability)
    notes.append(
        f"the sandbox cannot start: {availability.missing}; commands run without it and are "
        "asked about as usual (/sandbox)"
    )
    return None


def confine_runner(runner: ToolRunner, settings: Settings) -> Sandbox | None:
    """The sandbox of the runner's context, if any: hooks run inside it when
    ``sandbox.hooks`` says so, and a host sandboxed commands want that
    ``sandbox.network.allowedDomains`` does not list is asked about through the runner's
    approver, once per session (``-p`` has no one to ask: refused)."""
    sandbox = runner.context.sandbox
    if not isinstance(sandbox, Sandbox):
        return None
    runner.hooks.sandbox = sandbox if settings.sandbox.hooks else None
    sandbox.ask_domain = domain_question(runner)
    return sandbox


def domain_question(runner: ToolRunner) -> AskDomain:
    """Ask the runner's approver (the TUI's modal, the line prompt, an ACP client) whether
    sandboxed commands may reach a host for the rest of the session."""

    async def ask(host: str) -> bool:
        call = ToolCall(new_id("call"), DOMAIN_QUESTION, {"host": host})
        summary = f"{host}: a sandboxed command wants to reach it (not in allowedDomains)"
        approval = await runner.approver.ask(call, summary, (f"{host} for this session",))
        return approval.decision in ("allow", "allow_always")

    return ask
