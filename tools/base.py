"""What a built-in tool is: a name, a JSON schema, flags, and an async ``run``.

Tools know nothing about providers or front ends: they take validated
arguments and a :class:`ToolContext` and return a :class:`ToolOutput`. A :class:`TypedTool`
declares its arguments as one frozen dataclass (:mod:`lull.tools.params`): its schema is
generated from it, and it gets each call's arguments as that dataclass.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar, final

from lull.model import defaults
from lull.model.messages import Image
from lull.tools.confinement import CommandSandbox
from lull.tools.params import param_names, params_schema, parse_params

P = TypeVar("P")


class EditorFiles(Protocol):
    """Files as the editor lull runs in holds them, unsaved changes included (ACP's
    ``fs/read_text_file`` and ``fs/write_text_file``): ``reads``/``writes`` say which it
    offers. A failure raises :class:`OSError` with a message for the model."""

    reads: bool
    writes: bool

    async def read_text(self, path: Path) -> str:
        """The text of ``path`` as the editor has it."""
        ...

    async def write_text(self, path: Path, text: str) -> None:
        """Replace the text of ``path`` in the editor (which saves it)."""
        ...


@dataclass(frozen=True, slots=True)
class TerminalOutput:
    """What an editor's terminal holds: the output so far (stdout and stderr together),
    whether the editor dropped its beginning, and how the command ended (``exited`` False:
    it still runs; else ``exit_code`` or the ``signal`` that ended it)."""

    output: str
    truncated: bool = False
    exited: bool = False
    exit_code: int | None = None
    signal: str | None = None


class EditorTerminal(Protocol):
    """Commands run in the terminal of the editor lull runs in (ACP's ``terminal/*``), so
    the user watches them there. ``create`` starts one for the tool call ``call_id`` and
    returns its id; ``release`` frees it (and kills it if it still runs). A failure
    raises :class:`OSError` with a message for the model."""

    async def create(
        self, argv: tuple[str, ...], cwd: Path, env: Mapping[str, str], call_id: str
    ) -> str:
        """Start ``argv`` in a new terminal; its id."""
        ...

    async def wait_for_exit(self, terminal_id: str) -> None:
        """Return when the command has exited."""
        ...

    async def output(self, terminal_id: str) -> TerminalOutput:
        """The terminal's output and exit status."""
        ...

    async def kill(self, terminal_id: str) -> None:
        """Kill the command (the terminal stays, with its output)."""
        ...

    async def release(self, terminal_id: str) -> None:
        """Free the terminal."""
        ...


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Where and how a tool runs.

    ``workspace`` is the directory the session works in; paths outside it (after
    resolving symlinks) are refused unless under one of ``allowed_paths``.
    ``output_dir`` is where full texts of truncated outputs are saved;
    ``shell_timeout_seconds`` is how long a shell command may run when the call names no
    timeout (``tools.shellTimeoutSeconds``). ``allow_private_network``
    (``tools.allowPrivateNetwork``) lets network tools reach loopback and private addresses
    without asking; ``env_passthrough`` (``tools.envPassthrough``) names environment
    variables (or glob patterns) that commands get even though they look like secrets.
    ``pending_writes_dir`` is where in-flight atomic writes are recorded so that a
    temporary file a killed process left behind is removed on the next start (None: not
    recorded). ``call_id`` and ``approved`` describe one call: ``approved`` is True when
    the call had an approval need (:meth:`Tool.approval_need`) and the user or the
    approval mode allowed it. ``read_guard`` names the user's rule that keeps reading tools
    from a path (``deny rule "Read(.env)" from FILE``), None when no rule does: searches and
    listings leave such files out or mark them. ``sandbox`` is the OS sandbox commands run
    in (``sandbox.enabled``; None: they run as the user's own); ``editor`` is where file text is
    read and written when lull runs in an editor that offers it (None: the disk);
    ``terminal`` is the editor's terminal commands run in when it offers one and there is no
    sandbox (None: lull's own process).
    """

    workspace: Path
    output_dir: Path
    allowed_paths: tuple[Path, ...] = ()
    max_output_chars: int = defaults.MAX_OUTPUT_CHARS
    shell_timeout_seconds: float = defaults.SHELL_TIMEOUT_SECONDS
    allow_private_network: bool = defaults.ALLOW_PRIVATE_NETWORK
    env_passthrough: tuple[str, ...] = ()
    pending_writes_dir: Path | None = None
    call_id: str = ""
    approved: bool = False
    read_guard: Callable[[Path], str | None] | None = None
    sandbox: CommandSandbox | None = None
    editor: EditorFiles | None = None
    terminal: EditorTerminal | None = None

    def unreadable(self, path: Path) -> str | None:
        """The rule that keeps reading tools from ``path`` (described), or None."""
        return self.read_guard(path) if self.read_guard is not None else None


@dataclass(frozen=True, slots=True)
class ApprovalNeed:
    """Why one call of a tool needs the user's explicit approval although the tool itself
    would not (a read-only web fetch of a loopback address).

    ``reason`` is one phrase shown to the user and the model; ``scope`` is what "allow
    always" then covers for the session (``web_fetch(domain:localhost)``); ``how_to_allow``
    tells how to allow such calls without being asked.
    """

    reason: str
    scope: str
    how_to_allow: str


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """A tool's result: ``content`` goes to the model, ``display`` to the user; ``images``
    go to the model after the result when it accepts images (an MCP tool's screenshot)."""

    content: str
    is_error: bool = False
    display: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    images: tuple[Image, ...] = ()


PATH_ALIASES: Mapping[str, str] = {
    "file_path": "path",
    "filepath": "path",
    "filename": "path",
    "file": "path",
    "absolute_path": "path",
}
"""Names models use for a tool's ``path`` parameter (the aliases of file tools)."""


class ToolError(Exception):
    """A failure the model should see as an error result (one clear line)."""


class TransientToolError(ToolError):
    """A failure that may go away on its own (a network error, a 5xx answer, a timeout):
    the registry tries the call again after a short wait before it becomes an error result."""


class Tool(ABC):
    """A built-in tool.

    ``read_only`` tools never change anything (allowed in plan mode, never
    asked about); ``compactable`` tools have outputs that idle cleanup may clear.
    ``read_only_hint`` is a third party's word that a tool changes nothing (an MCP server's
    ``readOnlyHint``): such a tool may run in plan mode, but is still asked about in
    ``default`` mode.
    ``aliases`` maps argument names models send by mistake to the parameter they mean
    (``{"file_path": "path"}``); the registry renames them before validating.
    ``fingerprint_keys`` are the arguments that make two calls the same call (duplicate
    and loop detection); empty means all of them.
    """

    name: str = ""
    description: str = ""
    parameters: Mapping[str, Any] = {}
    read_only: bool = False
    compactable: bool = False
    read_only_hint: bool = False
    aliases: Mapping[str, str] = {}
    fingerprint_keys: tuple[str, ...] = ()

    @abstractmethod
    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        """Run the tool with schema-valid ``args``; raise ToolError for a clear failure."""

    async def approval_need(self, args: Mapping[str, Any], ctx: ToolContext) -> ApprovalNeed | None:
        """Why this particular call needs approval beyond what the tool's flags say (None:
        nothing special). ``args`` are not validated yet: return None for anything odd."""
        return None

    def sandboxed_without_asking(self, args: Mapping[str, Any], ctx: ToolContext) -> bool:
        """True when this call will run inside the OS sandbox and the user lets sandboxed
        calls run without asking (``sandbox.autoAllowBashIfSandboxed``); rules still apply."""
        return False

    def fingerprint(self, args: Mapping[str, Any]) -> str:
        """What identifies this call: the tool's name and its ``fingerprint_keys`` (all
        arguments when it names none), as canonical JSON; two calls with the same
        fingerprint would do the same thing."""
        keys = self.fingerprint_keys or tuple(sorted(args))
        chosen = {key: args.get(key) for key in keys}
        text = json.dumps(chosen, sort_keys=True, ensure_ascii=False, default=str)
        return f"{self.name}:{text}"

    def describe_call(self, args: Mapping[str, Any]) -> str:
        """A short summary of a call for the UI and approval prompts (the key argument)."""
        for key in ("path", "command", "pattern", "url"):
            if key in args:
                return str(args[key])
        return ""


class TypedTool(Tool, Generic[P]):
    """A tool whose arguments are one frozen dataclass, ``params`` (:mod:`lull.tools.params`).

    Its ``parameters`` schema is generated from ``params`` when the class is defined (a field
    type the generator does not support, or an alias or fingerprint key that names no field,
    is a TypeError then); :meth:`run` turns the validated arguments into a ``params`` value
    and hands it to :meth:`call`. Repair, validation, ``aliases`` and ``fingerprint_keys``
    work on the arguments as sent, as for any tool.
    """

    params: type[P]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "params" not in cls.__dict__:
            return
        cls.parameters = params_schema(cls.params)
        names = param_names(cls.params)
        stray = [key for key in (*cls.aliases.values(), *cls.fingerprint_keys) if key not in names]
        if stray:
            raise TypeError(
                f"{cls.__name__}: {', '.join(stray)} is no field of {cls.params.__name__}"
            )

    @final
    async def run(self, args: Mapping[str, Any], ctx: ToolContext) -> ToolOutput:
        """Run the tool with schema-valid ``args``, as a ``params`` value."""
        return await self.call(parse_params(self.params, args), ctx)

    @abstractmethod
    async def call(self, params: P, ctx: ToolContext) -> ToolOutput:
        """Run the tool; raise ToolError for a clear failure."""
