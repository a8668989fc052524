"""Custom slash commands: Markdown files in ``<config>/lull/commands/`` (the user's) and
``.lull/commands/`` (the project's), in the format Claude Code uses, and Claude Code's own
``~/.claude/commands/`` and ``.claude/commands/`` read in place.

``review.md`` becomes ``/review``; in lull's folders ``frontend/test.md`` is ``/frontend:test``,
in Claude Code's it is ``/test``, described "(project:frontend)" as Claude Code names it. Where
both name a command, lull's folder wins. Optional front
matter between ``---`` lines: ``description``, ``argument-hint``, ``allowed-tools`` (a comma
list, a ``[a, b]`` list or a ``- item`` list of tools: ``read_file``, ``Bash(git status:*)``)
and ``model``; the body is the prompt (``custom_run.py`` expands ``$ARGUMENTS``, ``$1``…``$9``,
``@path`` and ``!`command```). A broken file is skipped with one line naming its path and
line. A user's command wins over a project's of the same name; a built-in command wins over
both. A project is untrusted: its ``allowed-tools`` only narrows (nothing runs unasked
because of it), and its ``model`` applies only in a trusted workspace. Until the user trusts
the workspace (``/trust``), a project may not read outside it: a command file that leads
outside the workspace (a symlink to a secret, a linked ``.lull/commands``) is refused, naming
where it leads, and its ``@path`` mentions attach only files inside the workspace
(:attr:`CustomCommand.confined`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from lull.engine.calls.scope import SHELL_TOOL, ToolRule, TurnScope, parse_tool_rule
from lull.model.messages import ToolCall
from lull.model.permissions import split_rules
from lull.model.text import decode_bytes

CommandScope = Literal["user", "project"]
"""Who wrote a command file: the user (their config directory) or the repository."""

_FENCE = "---"
_SEGMENT = re.compile(r"^[A-Za-z0-9][\w-]*$")
_KNOWN_KEYS = frozenset({"description", "argument-hint", "allowed-tools", "model"})
_IGNORED_KEYS = frozenset({"disable-model-invocation", "name"})  # Claude Code's, no effect here
MAX_COMMAND_BYTES = 256_000
DESCRIPTION_CHARS = 80


class CommandFileError(ValueError):
    """What is wrong with a command file, and on which line (1-based)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class CustomCommand:
    """One custom slash command, as its file defines it."""

    name: str
    body: str
    path: Path
    scope: CommandScope
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[ToolRule, ...] | None = None
    model: str | None = None
    confined: bool = False
    """An untrusted project's command: its ``@path`` mentions attach only workspace files."""
    namespace: str = ""
    """The subfolder of a Claude Code command (``frontend`` for ``frontend/test.md``)."""

    @property
    def source(self) -> str:
        """How messages name it: ``/review (.lull/commands/review.md)``."""
        return f"/{self.name} ({self.path})"

    @property
    def usage(self) -> str:
        """``/name ARGUMENT-HINT`` for /help."""
        return f"/{self.name} {self.argument_hint}".rstrip()

    @property
    def summary(self) -> str:
        """The description, marked with where the command comes from."""
        text = self.description or self.body.strip().splitlines()[0][:DESCRIPTION_CHARS]
        where = f"{self.scope}:{self.namespace}" if self.namespace else self.scope
        return f"{text} ({where})"

    def turn_scope(self) -> TurnScope | None:
        """The tools its turn may use (None: no ``allowed-tools``, every tool as usual)."""
        if self.allowed_tools is None:
            return None
        return TurnScope(self.allowed_tools, self.source, preapproved=self.scope == "user")

    def runs_unasked(self, command: str) -> bool:
        """Whether a ``!`command``` of this file runs without asking: only the user's own
        file whose ``allowed-tools`` lists that shell command."""
        if self.scope != "user" or self.allowed_tools is None:
            return False
        call = ToolCall("check", SHELL_TOOL, {"command": command})
        return any(rule.matches(call) for rule in self.allowed_tools)


@dataclass
class LoadedCommands:
    """The commands found, by name, and one line per file that was skipped."""

    commands: dict[str, CustomCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)
    """Project commands refused because their file leads outside the workspace: name ->
    why (so running one says why rather than that it is unknown)."""


def workspace_commands(workspace: Path, reserved: frozenset[str]) -> LoadedCommands:
    """The custom commands of the user and of ``workspace`` (read afresh: a file added or
    edited while lull runs is picked up at its next use)."""
    from lull.settings.paths import claude_commands_dirs, project_commands_dir, user_commands_dir
    from lull.settings.workspaces import is_trusted

    return load_custom_commands(
        user_commands_dir(),
        project_commands_dir(workspace),
        reserved=reserved,
        project_trusted=is_trusted(workspace.resolve()),
        workspace=workspace,
        claude_dirs=claude_commands_dirs(workspace),
    )


def command_name(relative: Path, claude: bool = False) -> str | None:
    """``frontend/test.md`` -> ``frontend:test``, or ``test`` in a Claude Code folder
    (``claude``); None when a part is not a usable name."""
    parts = [*relative.parts[:-1], relative.stem]
    if not all(_SEGMENT.match(part) for part in parts):
        return None
    return relative.stem.lower() if claude else ":".join(parts).lower()


def load_custom_commands(
    user_dir: Path,
    project_dir: Path,
    *,
    reserved: frozenset[str] = frozenset(),
    project_trusted: bool = False,
    workspace: Path | None = None,
    claude_dirs: tuple[Path, Path] | None = None,
) -> LoadedCommands:
    """Every command of the directories: the user's, Claude Code's user folder, the
    project's, Claude Code's project folder (``claude_dirs``: user, project), the first of a
    name winning (``reserved`` names are the built-in commands, which win over all). Unless
    ``project_trusted``, a project file must lie in ``workspace`` (default: ``project_dir``)
    once symlinks are followed."""
    loaded = LoadedCommands()
    bound = (workspace or project_dir).resolve()
    folders: list[tuple[Path, CommandScope, bool]] = [(user_dir, "user", False)]
    if claude_dirs is not None:
        folders.append((claude_dirs[0], "user", True))
    folders.append((project_dir, "project", False))
    if claude_dirs is not None:
        folders.append((claude_dirs[1], "project", True))
    for directory, scope, claude in folders:
        for path in _command_files(directory):
            if (
                scope == "project"
                and not project_trusted
                and _outside(loaded, path, directory, bound, claude)
            ):
                continue
            _load_one(loaded, path, (directory, scope, claude), reserved, project_trusted)
    return loaded


def _outside(
    loaded: LoadedCommands, path: Path, directory: Path, bound: Path, claude: bool
) -> bool:
    """Whether project file ``path`` leads outside ``bound`` (then it is refused, said)."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return False  # gone or a loop: reading it fails with its own message
    if target.is_relative_to(bound):
        return False
    reason = (
        f"{path}: skipped: it leads to {target}, outside the workspace {bound}; a project "
        "command may read only files inside it until you /trust this workspace"
    )
    loaded.problems.append(reason)
    name = command_name(path.relative_to(directory), claude)
    if name is not None:
        loaded.refused.setdefault(name, reason)
    return True


def _command_files(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.rglob("*.md") if p.is_file())
    except OSError:
        return []


def _load_one(
    loaded: LoadedCommands,
    path: Path,
    folder: tuple[Path, CommandScope, bool],
    reserved: frozenset[str],
    project_trusted: bool,
) -> None:
    """Load one command file of ``folder`` (its directory, scope, and whether it is Claude
    Code's) unless a command of that name is already there."""
    directory, scope, claude = folder
    relative = path.relative_to(directory)
    name = command_name(relative, claude)
    if name is None:
        loaded.problems.append(
            f"{path}: skipped: a command name uses letters, digits, '-' and '_' (one folder "
            "level per ':')"
        )
        return
    if name in reserved:
        loaded.problems.append(f"{path}: skipped: /{name} is a built-in command")
        return
    if name in loaded.commands:
        kept = loaded.commands[name].path
        loaded.problems.append(f"{path}: skipped: /{name} is already defined by {kept}")
        return
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_COMMAND_BYTES + 1)
    except OSError as error:
        loaded.problems.append(f"{path}: skipped: cannot read it ({error.strerror or error})")
        return
    if len(data) > MAX_COMMAND_BYTES:
        loaded.problems.append(f"{path}: skipped: larger than {MAX_COMMAND_BYTES:,} bytes")
        return
    try:
        command = parse_command_file(decode_bytes(data), name, path, scope)
    except CommandFileError as error:
        loaded.problems.append(f"{path}:{error.line}: {error}; skipped")
        return
    if command.model and scope == "project" and not project_trusted:
        loaded.problems.append(
            f"{path}: model {command.model!r} ignored until you /trust this workspace (a "
            "project may not choose what a run costs)"
        )
        command = replace(command, model=None)
    namespace = "/".join(relative.parts[:-1]) if claude else ""
    confined = scope == "project" and not project_trusted
    loaded.commands[name] = replace(command, confined=confined, namespace=namespace)


def parse_command_file(text: str, name: str, path: Path, scope: CommandScope) -> CustomCommand:
    """The command a file's text defines; raises :class:`CommandFileError` with the line."""
    lines = text.lstrip("\ufeff").splitlines()
    fields: dict[str, tuple[int, str | list[str]]] = {}
    body_start = 0
    if lines and lines[0].strip() == _FENCE:
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == _FENCE), None)
        if end is None:
            raise CommandFileError(1, "the front matter has no closing --- line")
        fields = _front_matter(lines[1:end])
        body_start = end + 1
    body = "\n".join(lines[body_start:]).strip()
    if not body:
        raise CommandFileError(body_start + 1, "the body (the prompt) is empty")
    command = CustomCommand(name, body, path, scope)
    for key, (number, value) in fields.items():
        command = _apply(command, key, value, number)
    return command


def _apply(command: CustomCommand, key: str, value: str | list[str], number: int) -> CustomCommand:
    """``command`` with one front-matter key set."""
    if key == "allowed-tools":
        entries = value if isinstance(value, list) else split_rules(value)
        try:
            rules = tuple(parse_tool_rule(entry) for entry in entries)
        except ValueError as error:
            raise CommandFileError(number, f"allowed-tools: {error}") from None
        return replace(command, allowed_tools=rules)
    if isinstance(value, list):
        if value:
            raise CommandFileError(number, f"{key}: expected one value, got a list")
        value = ""
    if key == "model":
        if not value or len(value.split()) > 1:
            raise CommandFileError(number, f"model: a model name has no spaces (got {value!r})")
        return replace(command, model=value)
    if key == "description":
        return replace(command, description=value)
    return replace(command, argument_hint=value)


def _front_matter(lines: list[str]) -> dict[str, tuple[int, str | list[str]]]:
    """``key: value`` lines (and ``key:`` followed by ``- item`` lines) by key, each with the
    file line it is on (the front matter starts on line 2)."""
    fields: dict[str, tuple[int, str | list[str]]] = {}
    current: str | None = None
    for number, line in enumerate(lines, 2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") and current is not None and line[:1].isspace():
            items = fields[current][1]
            if isinstance(items, str):
                raise CommandFileError(number, f"{current}: a value and a list at once")
            items.append(_unquote(stripped[2:]))
            continue
        key, colon, value = line.partition(":")
        key = key.strip().lower()
        if not colon or not key or line[:1].isspace():
            raise CommandFileError(number, f"expected 'key: value', got {stripped!r}")
        if key in _IGNORED_KEYS:
            current = None
            continue
        if key not in _KNOWN_KEYS:
            known = ", ".join(sorted(_KNOWN_KEYS))
            raise CommandFileError(number, f"unknown key {key!r} (expected one of {known})")
        value = value.strip()
        fields[key] = (number, [] if not value else _unquote(value))
        current = key if not value else None
    return fields


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
