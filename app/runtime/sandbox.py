"""The ``sandbox`` settings turned into the sandbox commands run in, and what to tell the user
at start when it cannot start."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from lull.engine.calls.runner import ToolRunner
from lull.model.events import Notice
from lull.model.messages import ToolCall, new_id
from lull.runtime.wiring import added_directories, directories_waiting_for_trust, tool_context
from lull.settings.loader import LoadedSettings
from lull.settings.model import Settings
from lull.settings.paths import data_dir, state_dir, user_config_dir
from lull.settings.rule_files import save_domain
from lull.settings.writer import WriteProblem
from lull.tools.base import ToolContext
from lull.tools.builtin.shell import SandboxedShellTool
from lull.tools.process.sandbox.policy import SandboxPolicy, absolute, hidden_paths, reopened
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
    hidden, readable = reopened(
        hidden_paths(home, own, files.deny_read, workspace),
        (absolute(entry, workspace) for entry in files.allow_read),
    )
    network = sandbox.network
    return SandboxPolicy(
        workspace=workspace,
        writable=(
            workspace,
            *added,
            *(absolute(entry, workspace) for entry in files.allow_write),
        ),
        read_only=tuple(absolute(entry, workspace) for entry in files.deny_write),
        hidden=hidden,
        readable=readable,
        allowed_domains=network.allowed_domains,
        unix_sockets=tuple(absolute(entry, workspace) for entry in network.allow_unix_sockets),
        local_binding=network.allow_local_binding,
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


def confine_runner(
    runner: ToolRunner, settings: Settings, workspace: Path | None = None
) -> Sandbox | None:
    """The sandbox of the runner's context, if any: hooks run inside it when
    ``sandbox.hooks`` says so, and a host sandboxed commands want that
    ``sandbox.network.allowedDomains`` does not list is asked about through the runner's
    approver, once per session (``-p`` has no one to ask: refused); with ``workspace``, an
    "always" answer for the workspace or everywhere is saved (:func:`save_domain`)."""
    sandbox = runner.context.sandbox
    if not isinstance(sandbox, Sandbox):
        return None
    runner.hooks.sandbox = sandbox if settings.sandbox.hooks else None
    sandbox.ask_domain = domain_question(runner, workspace)
    return sandbox


def domain_rule(host: str) -> str:
    """What an "always" answer to the network question about ``host`` allows."""
    return f"network access to {host} (sandbox.network.allowedDomains)"


def domain_question(runner: ToolRunner, workspace: Path | None = None) -> AskDomain:
    """Ask the runner's approver (the TUI's modal, the line prompt, an ACP client) whether
    sandboxed commands may reach a host for the rest of the session. The question is a
    :data:`DOMAIN_QUESTION` call with the id of the tool call whose command wants the host
    (a new id when there is none), so an editor can show it on that call. "Always" for the
    workspace or everywhere also adds the host to ``sandbox.network.allowedDomains`` in the
    file an allow rule of that answer goes to (with ``workspace``; without, the session
    only)."""

    async def ask(host: str, call_id: str) -> bool:
        call = ToolCall(call_id or new_id("call"), DOMAIN_QUESTION, {"host": host})
        summary = f"{host}: a sandboxed command wants to reach it (not in allowedDomains)"
        approval = await runner.approver.ask(call, summary, (domain_rule(host),))
        saving = approval.decision == "allow_always" and approval.remember != "session"
        if saving and workspace is not None:
            line = _saved(host, workspace if approval.remember == "workspace" else None)
            runner.progress.put_nowait(Notice("info", line))
        return approval.decision in ("allow", "allow_always")

    return ask


def _saved(host: str, workspace: Path | None) -> str:
    """Save ``host`` as allowed for ``workspace`` (None: everywhere); the line saying where
    it went, or why it could not be saved."""
    try:
        where = save_domain(host, workspace.resolve() if workspace is not None else None)
    except WriteProblem as problem:
        return f"{problem}; {host} is allowed for this session only"
    return f"saved {host} in sandbox.network.allowedDomains of {where}"
