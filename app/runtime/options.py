"""What a runtime is built from (the command line's run options) and why it could not be."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lull.engine.sessions.writer import SessionLocked
from lull.model.approvals import ApprovalMode
from lull.model.mcp import McpServerConfig
from lull.model.provider import ProviderName


class StartupError(Exception):
    """lull cannot start a session; the message is one line saying why and what to do.

    ``needs_setup`` is True when no usable provider is configured (a first run), as opposed
    to a bad session id: front ends then show how to configure one.
    """

    def __init__(self, message: str, *, needs_setup: bool = False) -> None:
        super().__init__(message)
        self.needs_setup = needs_setup


class SwitchError(Exception):
    """A session or model switch was refused; the message is one line saying why."""


@dataclass(frozen=True)
class RunOptions:
    """What the command line asked for (None = not given); ``client_mcp_servers`` are
    servers a front end adds to the settings' (an editor's over ACP, ``--mcp-config``'s), the
    only ones with ``strict_mcp_config``. ``allowed_tools`` and ``disallowed_tools`` are
    permission rules added to the settings' allow and deny lists; ``system_prompt`` replaces
    lull's static system prompt, ``append_system_prompt`` follows it."""

    workspace: Path
    model: str | None = None
    provider: ProviderName | None = None
    base_url: str | None = None
    approval_mode: ApprovalMode | None = None
    max_turns: int | None = None
    max_attempts: int | None = None
    exclude_tools: tuple[str, ...] | None = None
    add_dirs: tuple[str, ...] | None = None
    resume: str | None = None
    continue_last: bool = False
    fork_session: bool = False
    demo: bool = False
    allow_project_mcp: bool = False
    client_mcp_servers: tuple[McpServerConfig, ...] = ()
    strict_mcp_config: bool = False
    allowed_tools: tuple[str, ...] | None = None
    disallowed_tools: tuple[str, ...] | None = None
    system_prompt: str | None = None
    append_system_prompt: str | None = None


def cli_overrides(options: RunOptions) -> dict[str, Any]:
    """CLI flags as dotted settings keys (highest precedence)."""
    pairs: dict[str, Any] = {
        "model.name": options.model,
        "model.provider": options.provider,
        "model.baseUrl": options.base_url,
        "tools.approvalMode": options.approval_mode,
        "maxTurns": options.max_turns,
        "guardrails.maxAttempts": options.max_attempts,
        "tools.exclude": options.exclude_tools,
        "permissions.additionalDirectories": list(options.add_dirs) if options.add_dirs else None,
        "permissions.allow": options.allowed_tools,
        "permissions.deny": options.disallowed_tools,
    }
    return {k: v for k, v in pairs.items() if v is not None}


def locked_message(error: SessionLocked) -> str:
    """What to say when a session is open in another process: who has it, and the fork."""
    return (
        f"{error}; wait for it to finish, or continue in a copy: "
        f"lull --resume {error.session_id} --fork-session"
    )


def system_prompt(static: str, options: RunOptions) -> str:
    """The system prompt: lull's static one, or ``--system-prompt``'s text instead, with
    ``--append-system-prompt``'s after it. Both come from the command line, so the prompt
    stays the same for the whole run and its cached prefix holds."""
    base = options.system_prompt.strip() if options.system_prompt else static
    extra = options.append_system_prompt.strip() if options.append_system_prompt else ""
    return f"{base}\n\n{extra}" if extra else base
