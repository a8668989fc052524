"""Running lifecycle hooks: the configured commands of one event, with Claude Code's contract.

Each command runs with ``bash -c`` in the workspace, in its own process group, with the
event as a JSON object on stdin (``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name``, ``permission_mode`` and the event's own fields). Its answer:

- exit 0: go on; plain stdout is context for ``UserPromptSubmit`` and ``SessionStart``; a
  JSON object on stdout may say more (``decision``/``reason``, ``continue``/``stopReason``,
  ``systemMessage``, ``suppressOutput``, ``hookSpecificOutput`` with ``permissionDecision``,
  ``permissionDecisionReason``, ``updatedInput``, ``additionalContext``, and for
  ``PermissionRequest`` ``decision.behavior``/``message``);
- exit 2: block; stderr is the reason (to the model for ``PreToolUse``, ``PostToolUse`` and
  ``Stop``, to the user otherwise);
- any other code, a command that cannot start and one past its ``timeout`` (killed with its
  process group): a non-blocking error shown to the user.

Matching commands of one event run in parallel; every run is in the debug log with its exit
code and duration. A project's hooks run only while the workspace is trusted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lull.model.approvals import CLAUDE_CODE_MODES, ApprovalMode
from lull.model.events import Notice
from lull.model.hooks import HookCommand, HookEvent
from lull.model.messages import ToolCall
from lull.model.permissions import claude_code_input, claude_code_name
from lull.tools.base import ToolContext, ToolOutput
from lull.tools.confinement import CommandSandbox, SandboxUnavailable, launch
from lull.tools.process.environment import tool_environment
from lull.tools.process.group import kill_group, start_group, stop_group

log = logging.getLogger("lull.hooks")

BLOCKING_EXIT = 2
MAX_CAPTURE = 256 * 1024
KILL_GRACE_SECONDS = 1.0
Permission = Literal["allow", "deny", "ask"]


@dataclass(frozen=True, slots=True)
class HookRun:
    """What one command did: exit code (None when it timed out or could not start), output,
    how long it took."""

    hook: HookCommand
    exit_code: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    failure: str = ""


@dataclass
class HookOutcome:
    """What the commands of one event decided, together.

    ``blocked`` with ``reason`` (exit 2, ``"decision": "block"``, a ``deny`` permission
    decision); ``context`` for the model; ``notices`` for the user; for ``PreToolUse`` the
    ``permission`` decision (deny > ask > allow) and an ``updated_input``; for
    ``PermissionRequest`` the ``behavior`` (``reason`` is its ``message``); ``stop`` when a
    command answered ``"continue": false`` (``stop_reason`` says why). ``suppressOutput`` needs
    nothing: lull never shows a hook's stdout, only what it says for the user
    (``systemMessage``) or for the model.
    """

    blocked: bool = False
    reason: str = ""
    context: list[str] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    permission: Permission | None = None
    permission_reason: str = ""
    updated_input: dict[str, Any] | None = None
    stop: bool = False
    stop_reason: str = ""
    behavior: Literal["allow", "deny"] | None = None
    """A ``PermissionRequest`` hook's answer in place of the user's (deny > allow)."""


class HookRunner:
    """The configured hooks, ready to run for an event.

    ``trusted`` says whether the workspace is trusted now (a project's hooks wait for it);
    ``env_passthrough`` names secret-looking variables the commands may see (like tools').
    """

    def __init__(
        self,
        hooks: Sequence[HookCommand] = (),
        *,
        workspace: Path | None = None,
        trusted: Callable[[], bool] = lambda: False,
        env_passthrough: tuple[str, ...] = (),
        events: frozenset[HookEvent] | None = None,
        sandbox: CommandSandbox | None = None,
    ) -> None:
        self.hooks = tuple(hooks)
        self.workspace = workspace
        self.trusted = trusted
        self.env_passthrough = env_passthrough
        self.events = events
        self.sandbox = sandbox

    def only(self, events: frozenset[HookEvent]) -> HookRunner:
        """These hooks for some events only (a sub-agent runs the tool events, not Stop)."""
        return HookRunner(
            self.hooks,
            workspace=self.workspace,
            trusted=self.trusted,
            env_passthrough=self.env_passthrough,
            events=events,
            sandbox=self.sandbox,
        )

    def waiting_for_trust(self) -> list[HookCommand]:
        """A project's hooks that do not run until the workspace is trusted."""
        return [hook for hook in self.hooks if hook.project and not self.trusted()]

    def matching(self, event: HookEvent, target: str = "") -> list[HookCommand]:
        """The commands that run for ``event`` and ``target`` now (each command once)."""
        if self.events is not None and event not in self.events:
            return []
        found: list[HookCommand] = []
        trusted: bool | None = None
        for hook in self.hooks:
            if hook.event != event or not hook.matches(target):
                continue
            if hook.project:
                trusted = self.trusted() if trusted is None else trusted
                if not trusted:
                    continue
            if all(other.command != hook.command for other in found):
                found.append(hook)
        return found

    async def run(
        self,
        event: HookEvent,
        fields: Mapping[str, Any],
        *,
        target: str = "",
        session_id: str = "",
        transcript: Path | None = None,
        mode: ApprovalMode = "default",
    ) -> HookOutcome:
        """Run every command matching ``event`` and ``target`` with the event's JSON."""
        hooks = self.matching(event, target)
        if not hooks:
            return HookOutcome()
        workspace = self.workspace or Path.cwd()
        payload = {
            "session_id": session_id,
            "transcript_path": str(transcript or ""),
            "cwd": str(workspace),
            "hook_event_name": event,
            "permission_mode": CLAUDE_CODE_MODES[mode],
            **fields,
        }
        data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8", "replace")
        runs = await asyncio.gather(*(self._run_one(hook, data, workspace) for hook in hooks))
        outcome = HookOutcome()
        for run in runs:
            _fold(outcome, event, run)
        return outcome

    async def _run_one(self, hook: HookCommand, data: bytes, workspace: Path) -> HookRun:
        started = time.perf_counter()
        env = {
            **tool_environment(self.env_passthrough),
            "LULL_PROJECT_DIR": str(workspace),
            "CLAUDE_PROJECT_DIR": str(workspace),
        }
        argv = ("bash", "-c", hook.command)
        try:
            async with launch(self.sandbox, hook.command, argv, env, workspace) as launched:
                return await self._start(hook, launched.argv, launched.env, data, workspace)
        except SandboxUnavailable as error:
            run = HookRun(hook, None, "", "", time.perf_counter() - started, failure=str(error))
            _log(run)
            return run

    async def _start(
        self,
        hook: HookCommand,
        argv: tuple[str, ...],
        env: Mapping[str, str],
        data: bytes,
        workspace: Path,
    ) -> HookRun:
        """Start ``argv`` for ``hook`` and wait for it within the hook's timeout."""
        started = time.perf_counter()
        try:
            proc = await start_group(
                argv[0],
                *argv[1:],
                grace=KILL_GRACE_SECONDS,
                cwd=workspace,
                env=dict(env),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as error:
            run = HookRun(hook, None, "", "", time.perf_counter() - started, failure=str(error))
            _log(run)
            return run
        try:
            out, err = await asyncio.wait_for(_communicate(proc, data), hook.timeout)
        except TimeoutError:
            await kill_group(proc.pid, KILL_GRACE_SECONDS)
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            seconds = time.perf_counter() - started
            run = HookRun(hook, None, "", "", seconds, timed_out=True)
            _log(run)
            return run
        except asyncio.CancelledError:
            await stop_group(proc.pid, KILL_GRACE_SECONDS)
            raise
        seconds = time.perf_counter() - started
        run = HookRun(hook, proc.returncode, _text(out), _text(err), seconds)
        _log(run)
        return run


async def _communicate(proc: asyncio.subprocess.Process, data: bytes) -> tuple[bytes, bytes]:
    """Send ``data`` on stdin (a command that does not read it is fine), read both pipes."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.write(data)
        await proc.stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        proc.stdin.close()
    out, err = await asyncio.gather(_read_all(proc.stdout), _read_all(proc.stderr))
    await proc.wait()
    return out, err


async def _read_all(stream: asyncio.StreamReader) -> bytes:
    """Everything until EOF, keeping at most :data:`MAX_CAPTURE` bytes."""
    kept = bytearray()
    while chunk := await stream.read(65536):
        kept.extend(chunk[: max(0, MAX_CAPTURE - len(kept))])
    return bytes(kept)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _log(run: HookRun) -> None:
    hook = run.hook
    if run.timed_out:
        result = f"timed out after {hook.timeout:g} s (killed)"
    elif run.failure:
        result = f"could not start ({run.failure})"
    else:
        result = f"exit {run.exit_code}"
    log.info(
        "hook %s %r (%s): %s in %.0f ms",
        hook.event,
        hook.command,
        hook.source or "settings",
        result,
        run.seconds * 1000,
    )


def describe(hook: HookCommand) -> str:
    """How messages name a hook: its event and command, shortened."""
    command = hook.command if len(hook.command) <= 60 else hook.command[:59] + "…"
    return f"{hook.event} hook `{command}`"


def _fold(outcome: HookOutcome, event: HookEvent, run: HookRun) -> None:
    """Add one command's answer to the event's outcome."""
    name = describe(run.hook)
    if run.timed_out:
        outcome.notices.append(
            Notice("warning", f"{name} timed out after {run.hook.timeout:g} s and was killed")
        )
        return
    if run.exit_code is None:
        outcome.notices.append(Notice("warning", f"{name} could not start: {run.failure}"))
        return
    if run.exit_code == BLOCKING_EXIT:
        outcome.blocked = True
        reason = run.stderr.strip() or f"blocked by {name} (exit 2, no message)"
        outcome.reason = f"{outcome.reason}\n{reason}".strip()
        return
    if run.exit_code != 0:
        first = run.stderr.strip().splitlines()[0] if run.stderr.strip() else "no message"
        outcome.notices.append(Notice("warning", f"{name} failed (exit {run.exit_code}): {first}"))
        return
    answer = _json_object(run.stdout)
    if answer is None:
        if run.stdout.strip() and event in ("UserPromptSubmit", "SessionStart"):
            outcome.context.append(run.stdout.strip())
        return
    _fold_json(outcome, event, answer, name)


def _json_object(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _fold_json(outcome: HookOutcome, event: HookEvent, answer: dict[str, Any], name: str) -> None:
    """A command's JSON answer (Claude Code's fields)."""
    if answer.get("continue") is False:
        outcome.stop = True
        outcome.stop_reason = str(answer.get("stopReason") or f"stopped by {name}")
    if isinstance(message := answer.get("systemMessage"), str) and message.strip():
        outcome.notices.append(Notice("info", message.strip()))
    reason = str(answer.get("reason") or "").strip()
    decision = answer.get("decision")
    specific = answer.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    if event == "PreToolUse":
        legacy: dict[Any, Permission] = {"approve": "allow", "block": "deny"}
        permission = specific.get("permissionDecision", legacy.get(decision))
        if permission in ("allow", "deny", "ask"):
            _decide(outcome, permission, str(specific.get("permissionDecisionReason") or reason))
        updated = specific.get("updatedInput")
        if isinstance(updated, dict):
            outcome.updated_input = updated
    elif event == "PermissionRequest":
        _fold_permission_request(outcome, specific.get("decision"))
    elif decision == "block":
        outcome.blocked = True
        text = reason or f"blocked by {name}"
        outcome.reason = f"{outcome.reason}\n{text}".strip()
    extra = specific.get("additionalContext")
    if isinstance(extra, str) and extra.strip():
        outcome.context.append(extra.strip())


def _fold_permission_request(outcome: HookOutcome, answer: object) -> None:
    """``hookSpecificOutput.decision`` of a ``PermissionRequest`` hook: ``behavior`` allow or
    deny (deny wins over another command's allow), ``message`` (why, for the model),
    ``updatedInput`` (the arguments to run with)."""
    if not isinstance(answer, dict):
        return
    behavior = answer.get("behavior")
    if behavior not in ("allow", "deny") or outcome.behavior == "deny":
        return
    outcome.behavior = behavior
    message = str(answer.get("message") or "").strip()
    if message:
        outcome.reason = message
    updated = answer.get("updatedInput")
    if behavior == "allow" and isinstance(updated, dict):
        outcome.updated_input = updated


def _decide(outcome: HookOutcome, permission: Permission, reason: str) -> None:
    """Keep the strongest permission decision: deny > ask > allow."""
    order: tuple[Permission, ...] = ("deny", "ask", "allow")
    if outcome.permission is None or order.index(permission) < order.index(outcome.permission):
        outcome.permission = permission
        outcome.permission_reason = reason
    if permission == "deny":
        outcome.blocked = True
        outcome.reason = f"{outcome.reason}\n{reason or 'denied by a PreToolUse hook'}".strip()


# --- what hooks see of a tool call -----------------------------------------------------------


def tool_fields(call: ToolCall, ctx: ToolContext) -> dict[str, Any]:
    """How a hook sees a call: ``tool_name`` as Claude Code names the tool (``Bash``,
    ``Write``, ``Edit`` …; lull's own name for the others), ``lull_tool_name``,
    ``tool_input`` (see :func:`hook_tool_input`) and ``tool_use_id``."""
    return {
        "tool_name": claude_code_name(call.name),
        "lull_tool_name": call.name,
        "tool_input": hook_tool_input(call, ctx),
        "tool_use_id": call.id,
    }


def hook_tool_input(call: ToolCall, ctx: ToolContext) -> dict[str, Any]:
    """The call's arguments as a hook sees them: lull's, plus Claude Code's ``file_path``
    (absolute) next to ``path``, so scripts written for Claude Code find the file."""
    return claude_code_input(call.arguments, ctx.workspace)


def input_from_hook(updated: Mapping[str, Any], original: Mapping[str, Any]) -> dict[str, Any]:
    """A PreToolUse hook's ``updatedInput`` as the tool's arguments: a changed ``file_path``
    becomes ``path``; the alias itself is dropped unless the tool has such an argument."""
    arguments = dict(updated)
    alias = arguments.pop("file_path", None) if "file_path" not in original else None
    untouched = arguments.get("path", original.get("path")) == original.get("path")
    if "path" in original and isinstance(alias, str) and alias.strip() and untouched:
        arguments["path"] = alias  # absolute: the same file, or the one the hook chose
    return arguments


def tool_response(output: ToolOutput) -> dict[str, Any]:
    """What a PostToolUse hook gets as ``tool_response``."""
    response: dict[str, Any] = {
        "content": output.content,
        "is_error": output.is_error,
        "success": not output.is_error,
    }
    for key, value in output.metadata.items():
        if isinstance(value, str | int | float | bool) or value is None:
            response.setdefault(str(key), value)
    return response
