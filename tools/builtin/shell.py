"""The ``run_shell_command`` tool: ``bash -c`` in the workspace, in its own process group, or
in the editor's terminal when lull runs in an editor that offers one and there is no sandbox
(``ToolContext.terminal``): same timeout, cancel and report there."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from lull.model import defaults
from lull.tools.base import EditorTerminal, ToolContext, ToolError, ToolOutput, TypedTool
from lull.tools.confinement import (
    UNCONFINED_FLAG,
    ConfinedRun,
    SandboxUnavailable,
    launch,
    unconfined,
)
from lull.tools.output import cap_output
from lull.tools.params import doc
from lull.tools.process.environment import tool_environment, withheld_names
from lull.tools.process.group import kill_group, start_group, stop_group

DEFAULT_TIMEOUT = float(defaults.SHELL_TIMEOUT_SECONDS)
MAX_TIMEOUT = 600.0
MAX_CAPTURE_BYTES = 8 * 1024 * 1024
PIPE_GRACE_SECONDS = 2.0
KILL_GRACE_SECONDS = 2.0

DESCRIPTION = f"""\
Run a shell command with `bash -c` in the workspace directory and return its exit code, \
stdout and stderr.
- Use it for builds, tests, git, package managers and other programs. Prefer read_file, \
grep_search, glob and list_directory over cat/grep/find/ls, and edit/write_file over sed \
or echo redirection.
- stdin is /dev/null: interactive commands (editors, pagers, prompts) fail; pass \
non-interactive flags (e.g. `-y`, `--no-pager`).
- `timeout_seconds` defaults to {DEFAULT_TIMEOUT:.0f} unless the user set another default \
(max {MAX_TIMEOUT:.0f}); on timeout the command and everything it started are killed.
- A non-zero exit code is reported, not treated as a failure of the tool; read the output.
- Each call is a fresh shell: `cd` and variables do not carry over; chain with `&&`.
- Quote paths with spaces. Long output is shortened (head and tail kept).
- Secret-looking environment variables (API keys, tokens, passwords) are not passed on; \
the user can let named ones through with tools.envPassthrough."""

SANDBOX_DESCRIPTION = f"""{DESCRIPTION}
- Commands run in a sandbox: they can write only in the workspace and $TMPDIR, \
cannot read credentials, and reach only allowed domains; the result names what was denied. \
Ask the user for it, or (if they allow unsandboxed commands) retry with \
dangerously_disable_sandbox: true, which always asks them."""


@dataclass(frozen=True, slots=True)
class ShellParams:
    """The arguments of ``run_shell_command`` (``timeout_seconds`` None: the default)."""

    command: str = field(metadata=doc("The bash command to run."))
    timeout_seconds: float | None = field(
        default=None,
        metadata=doc(
            f"Seconds before the command is killed "
            f"(default {DEFAULT_TIMEOUT:.0f}, max {MAX_TIMEOUT:.0f})."
        ),
    )


@dataclass(frozen=True, slots=True)
class SandboxedShellParams(ShellParams):
    """``run_shell_command``'s arguments when commands run in the sandbox: one more, to run
    a command outside it."""

    dangerously_disable_sandbox: bool = field(
        default=False,
        metadata=doc(
            "Run outside the sandbox (only after the sandbox denied something the task "
            "needs; the user is asked)."
        ),
    )


class _Capture:
    """Bytes read from one pipe, bounded in memory."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.size = 0
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        """Keep ``chunk`` while under the memory bound, else count it as dropped."""
        kept = chunk[: max(0, MAX_CAPTURE_BYTES - self.size)]
        if kept:
            self.chunks.append(kept)
            self.size += len(kept)
        self.dropped += len(chunk) - len(kept)

    def text(self) -> str:
        """The captured bytes as text, with a note if some were dropped."""
        text = b"".join(self.chunks).decode("utf-8", errors="replace")
        if self.dropped:
            text += f"\n[... {self.dropped:,} more bytes not captured]"
        return text


async def _drain(stream: asyncio.StreamReader | None, capture: _Capture) -> None:
    """Read ``stream`` to EOF into ``capture``."""
    if stream is None:
        return
    while chunk := await stream.read(65536):
        capture.add(chunk)


@dataclass
class _Run:
    """What happened to one command."""

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    notes: list[str]
    combined: bool = False
    """``stdout`` holds stderr too (an editor's terminal keeps one stream)."""


def _timeout_arg(given: float | None, default: float) -> float:
    """The validated timeout in seconds (``default`` when the call names none)."""
    timeout = default if given is None else given
    if not 0 < timeout <= MAX_TIMEOUT:
        raise ToolError(
            f"run_shell_command: timeout_seconds must be more than 0 and at most "
            f"{MAX_TIMEOUT:.0f} (got {timeout:g})"
        )
    return timeout


def _signal_name(number: int) -> str:
    """``SIGTERM`` for 15, or the number when unknown."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _format(run: _Run, timeout: float) -> str:
    """The model-facing report: exit status, then stdout and stderr."""
    if run.timed_out:
        head = f"Command timed out after {timeout:g} s and was killed (with its process group)."
    elif run.exit_code is not None and run.exit_code < 0:
        head = f"Exit code: {run.exit_code} (killed by signal {_signal_name(-run.exit_code)})"
    else:
        head = f"Exit code: {run.exit_code}"
    parts = [head, *run.notes]
    if run.stdout:
        label = "output (stdout and stderr)" if run.combined else "stdout"
        parts.append(f"{label}:\n{run.stdout.rstrip()}")
    if run.stderr:
        parts.append(f"stderr:\n{run.stderr.rstrip()}")
    if not run.stdout and not run.stderr:
        parts.append("(no output)")
    return "\n".join(parts)


class ShellTool(TypedTool[ShellParams]):
    """Run a bash command in the workspace with a timeout, killing its process group."""

    name = "run_shell_command"
    description = DESCRIPTION
    params = ShellParams
    compactable = True
    aliases: Mapping[str, str] = {
        "cmd": "command",
        "shell_command": "command",
        "script": "command",
        "bash": "command",
        "timeout": "timeout_seconds",
    }
    fingerprint_keys = ("command",)

    def __init__(
        self, kill_grace: float = KILL_GRACE_SECONDS, pipe_grace: float = PIPE_GRACE_SECONDS
    ) -> None:
        self.kill_grace = kill_grace
        self.pipe_grace = pipe_grace

    async def call(self, params: ShellParams, ctx: ToolContext) -> ToolOutput:
        """Run the command and report exit code, stdout and stderr."""
        command = params.command
        if not command.strip():
            raise ToolError("run_shell_command: command is empty")
        timeout = _timeout_arg(params.timeout_seconds, min(ctx.shell_timeout_seconds, MAX_TIMEOUT))
        if ctx.terminal is not None and ctx.sandbox is None:
            return _output(await _in_terminal(ctx.terminal, command, timeout, ctx), timeout, ctx)
        env = {**tool_environment(ctx.env_passthrough), "PAGER": "cat", "GIT_PAGER": "cat"}
        try:
            async with _launch(ctx, ("bash", "-c", command), env, params) as run:
                try:
                    proc = await start_group(
                        run.argv[0],
                        *run.argv[1:],
                        grace=self.kill_grace,
                        cwd=ctx.workspace,
                        env=dict(run.env),
                        stdin=asyncio.subprocess.DEVNULL,
                        stdout=asyncio.subprocess.PIPE,
                        stderr=asyncio.subprocess.PIPE,
                    )
                except OSError as exc:
                    raise ToolError(f"run_shell_command: could not start bash: {exc}") from exc
                result = await self._supervise(proc, timeout)
                denials = run.denials(f"{result.stdout}\n{result.stderr}")
        except SandboxUnavailable as exc:
            raise ToolError(f"run_shell_command: not run: {exc}") from exc
        result.notes.extend(_denial_notes(denials, ctx))
        return _output(result, timeout, ctx, denials)

    def sandboxed_without_asking(self, args: Mapping[str, Any], ctx: ToolContext) -> bool:
        """True when the command runs inside a sandbox that lets it run without asking."""
        sandbox, command = ctx.sandbox, args.get("command")
        if sandbox is None or not sandbox.auto_allow or not isinstance(command, str):
            return False
        return sandbox.confines(command) and args.get(UNCONFINED_FLAG) is not True

    async def _supervise(self, proc: asyncio.subprocess.Process, timeout: float) -> _Run:
        """Wait for the command within ``timeout``; kill its group on timeout or cancel."""
        out, err = _Capture(), _Capture()
        readers = asyncio.gather(_drain(proc.stdout, out), _drain(proc.stderr, err))
        timed_out = False
        notes: list[str] = []
        try:
            if not await _wait_for_exit(proc, readers, timeout):
                timed_out = True
                await kill_group(proc.pid, self.kill_grace)
            if not await _wait_quietly(readers, self.pipe_grace):
                notes.append(
                    "Note: background processes kept stdout/stderr open and were stopped; "
                    "redirect their output (e.g. `cmd > log 2>&1 &`) to keep them running."
                )
                await kill_group(proc.pid, self.kill_grace)
                await _wait_quietly(readers, self.pipe_grace)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), self.kill_grace)
        except asyncio.CancelledError:
            await stop_group(proc.pid, self.kill_grace)
            raise
        finally:
            readers.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await readers
        exit_code = None if timed_out else proc.returncode
        return _Run(exit_code, out.text(), err.text(), timed_out, notes)


class SandboxedShellTool(ShellTool):
    """``run_shell_command`` as offered while commands run in the OS sandbox: it says so, and
    takes ``dangerously_disable_sandbox`` (Claude Code's ``dangerouslyDisableSandbox``)."""

    description = SANDBOX_DESCRIPTION
    params = SandboxedShellParams


def _launch(
    ctx: ToolContext, argv: tuple[str, ...], env: Mapping[str, str], params: ShellParams
) -> AbstractAsyncContextManager[ConfinedRun]:
    """How the command starts: inside ``ctx``'s sandbox, or (no sandbox, an excluded command,
    or a permitted ``dangerously_disable_sandbox``) as the user's own."""
    sandbox = ctx.sandbox
    unconfined_asked = (
        isinstance(params, SandboxedShellParams) and params.dangerously_disable_sandbox
    )
    if sandbox is not None and unconfined_asked:
        if not sandbox.allows_unconfined:
            raise ToolError(
                "run_shell_command: dangerously_disable_sandbox is refused: the user's "
                "sandbox.allowUnsandboxedCommands is false; ask the user instead"
            )
        return unconfined(argv, env)
    return launch(sandbox, params.command, argv, env, ctx.workspace, ctx.call_id)


def _output(
    result: _Run, timeout: float, ctx: ToolContext, denials: tuple[str, ...] = ()
) -> ToolOutput:
    """The call's result: the report (capped), an error only on timeout."""
    content = cap_output(_format(result, timeout), ctx, "command output")
    meta: dict[str, Any] = {"exit_code": result.exit_code, "timed_out": result.timed_out}
    if denials:
        meta = {**meta, "sandbox_denials": list(denials)}
    return ToolOutput(content, is_error=result.timed_out, metadata=meta)


async def _in_terminal(
    terminal: EditorTerminal, command: str, timeout: float, ctx: ToolContext
) -> _Run:
    """Run ``command`` in the editor's terminal: killed on timeout, killed and released when
    the call is cancelled, always released. The editor's environment is the command's, with
    the secrets lull withholds from its own commands set empty."""
    env = dict.fromkeys(withheld_names(ctx.env_passthrough), "")
    env.update(PAGER="cat", GIT_PAGER="cat")
    try:
        terminal_id = await terminal.create(
            ("bash", "-c", command), ctx.workspace, env, ctx.call_id
        )
    except OSError as exc:
        raise ToolError(f"run_shell_command: the editor could not start it: {exc}") from exc
    try:
        timed_out = False
        try:
            await asyncio.wait_for(terminal.wait_for_exit(terminal_id), timeout)
        except TimeoutError:
            timed_out = True
            await terminal.kill(terminal_id)
        held = await terminal.output(terminal_id)
    except asyncio.CancelledError:
        with contextlib.suppress(OSError):
            await terminal.kill(terminal_id)
        raise
    except OSError as exc:
        raise ToolError(f"run_shell_command: the editor's terminal failed: {exc}") from exc
    finally:
        with contextlib.suppress(OSError):
            await terminal.release(terminal_id)
    notes = ["Note: the editor kept only the end of the output."] if held.truncated else []
    exit_code = held.exit_code
    if exit_code is None and held.signal:
        number = _signal_number(held.signal)
        exit_code = -number if number else None
        notes += [] if number else [f"Killed by signal {held.signal}."]
    return _Run(None if timed_out else exit_code, held.output, "", timed_out, notes, True)


def _signal_number(name: str) -> int:
    """15 for ``SIGTERM`` or ``TERM`` (0: unknown)."""
    name = name.upper()
    try:
        return int(signal.Signals[name if name.startswith("SIG") else f"SIG{name}"])
    except KeyError:
        return 0


def _denial_notes(denials: tuple[str, ...], ctx: ToolContext) -> list[str]:
    """The lines that tell the model what the sandbox denied and what it can do."""
    if not denials:
        return []
    lines = [f"Sandbox: {denial}." for denial in denials]
    retry = ctx.sandbox is not None and ctx.sandbox.allows_unconfined
    lines.append(
        "Do not retry the same way. Ask the user to allow it"
        + (", or retry with dangerously_disable_sandbox: true (the user is asked)." if retry
           else ".")
    )  # fmt: skip
    return lines


async def _wait_for_exit(
    proc: asyncio.subprocess.Process, readers: asyncio.Future[Any], timeout: float
) -> bool:
    """Wait up to ``timeout`` for the shell to exit; True if it did.

    ``Process.wait()`` on Python 3.11 also waits for the pipes to close, which
    never happens while a background child holds them, so the exit status is
    polled as well.
    """
    waiter = asyncio.ensure_future(proc.wait())
    deadline = time.monotonic() + timeout
    try:
        while proc.returncode is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            pending = {waiter} if readers.done() else {waiter, readers}
            await asyncio.wait(
                pending, timeout=min(remaining, 0.1), return_when=asyncio.FIRST_COMPLETED
            )
        return True
    finally:
        waiter.cancel()


async def _wait_quietly(future: asyncio.Future[Any], seconds: float) -> bool:
    """Wait up to ``seconds`` for ``future`` without cancelling it; True if it finished."""
    done, _ = await asyncio.wait({future}, timeout=seconds)
    return bool(done)
