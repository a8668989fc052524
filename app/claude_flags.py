"""Claude Code's command-line flags checked and turned into lull's options:
``--permission-mode`` (with ``--approval-mode``), ``--allowedTools``/``--disallowedTools``
rules, ``--mcp-config`` servers, ``--add-dir`` folders and the system prompt's text or files.
A bad value is a usage error (exit 2) naming the flag and what is wrong."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lull.model.approvals import CLAUDE_CODE_NEAREST, ApprovalMode
from lull.model.text import decode_bytes
from lull.ui.headless.schema import PERMISSION_MODES

if TYPE_CHECKING:
    from lull.model.mcp import McpServerConfig


def added_dirs(parser: argparse.ArgumentParser, given: list[str] | None) -> tuple[str, ...] | None:
    """``--add-dir`` values as absolute paths (relative to the current directory, as typed);
    one that is no directory is a usage error."""
    if not given:
        return None
    found: list[str] = []
    for text in given:
        path = Path(text).expanduser()
        if not path.is_dir():
            parser.error(f"argument --add-dir: {text} is not a directory")
        found.append(str(path.resolve()))
    return tuple(found)


def system_prompts(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> tuple[str | None, str | None]:
    """The system prompt that replaces lull's and the text appended to it, from
    ``--system-prompt``/``--system-prompt-file`` (one or the other) and
    ``--append-system-prompt``/``--append-system-prompt-file`` (both may be given: the text,
    then the file). The file flags need ``-p``, as in Claude Code; a file that is missing,
    unreadable or empty is a usage error naming its path."""
    for flag, given in (
        ("--system-prompt-file", args.system_prompt_file),
        ("--append-system-prompt-file", args.append_system_prompt_file),
    ):
        if given is not None and args.prompt is None:
            parser.error(f"{flag} needs -p/--print")
    if args.system_prompt is not None and args.system_prompt_file is not None:
        parser.error("use either --system-prompt or --system-prompt-file, not both")
    replaced = _prompt_text(parser, "--system-prompt", args.system_prompt)
    if args.system_prompt_file is not None:
        replaced = _prompt_file(parser, "--system-prompt-file", args.system_prompt_file)
    appended = [
        text
        for text in (
            _prompt_text(parser, "--append-system-prompt", args.append_system_prompt),
            _prompt_file(parser, "--append-system-prompt-file", args.append_system_prompt_file),
        )
        if text is not None
    ]
    return replaced, "\n\n".join(appended) if appended else None


def _prompt_text(parser: argparse.ArgumentParser, flag: str, text: str | None) -> str | None:
    if text is not None and not text.strip():
        parser.error(f"argument {flag}: expected text, got an empty string")
    return text


def _prompt_file(parser: argparse.ArgumentParser, flag: str, given: str | None) -> str | None:
    if given is None:
        return None
    path = Path(given).expanduser()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        parser.error(f"argument {flag}: {given}: no such file")
    except IsADirectoryError:
        parser.error(f"argument {flag}: {given} is a directory, not a file")
    except OSError as problem:
        parser.error(f"argument {flag}: {given}: cannot read it ({problem.strerror or problem})")
    text = decode_bytes(data)
    if not text.strip():
        parser.error(f"argument {flag}: {given} is empty")
    return text.strip()


def approval_mode(parser: argparse.ArgumentParser, args: argparse.Namespace) -> ApprovalMode | None:
    """The approval mode ``--approval-mode`` or ``--permission-mode`` asks for (they must
    agree when both are given)."""
    chosen: ApprovalMode | None = args.approval_mode
    if args.permission_mode is None:
        return chosen
    mode = PERMISSION_MODES[args.permission_mode]
    nearest = CLAUDE_CODE_NEAREST.get(args.permission_mode)
    if nearest is not None:
        print(
            f"lull: note: --permission-mode {args.permission_mode} runs as approval mode "
            f"{mode}: {nearest[1]}",
            file=sys.stderr,
        )
    if chosen is not None and chosen != mode:
        parser.error(
            f"--permission-mode {args.permission_mode} is approval mode {mode}, but "
            f"--approval-mode says {chosen}; give one of them"
        )
    return mode


def rule_flag(
    parser: argparse.ArgumentParser, flag: str, values: Sequence[str] | None
) -> tuple[str, ...] | None:
    """The rules of ``--allowedTools``/``--disallowedTools``: each value split at commas and
    spaces outside parentheses; a rule that is not ``TOOL`` or ``TOOL(PATTERN)`` is an
    error naming it."""
    if values is None:
        return None
    from lull.model.permissions import parse_rule, split_rules

    rules: list[str] = []
    for value in values:
        for rule in split_rules(value):
            try:
                parse_rule(rule)
            except ValueError as problem:
                parser.error(f"argument {flag}: {problem}")
            rules.append(rule)
    if not rules:
        parser.error(f'argument {flag}: expected rules such as Edit or "Bash(git log:*)"')
    return tuple(rules)


def mcp_servers(
    parser: argparse.ArgumentParser, values: Sequence[str], workspace: Path
) -> tuple[McpServerConfig, ...]:
    """The servers of every ``--mcp-config`` (a file, or the JSON itself), in order; a
    problem is an error naming the value and what is wrong."""
    from lull.settings.mcp_config import McpConfigError, servers_from_config

    servers: list[McpServerConfig] = []
    for value in values:
        try:
            found = servers_from_config(value, workspace)
        except McpConfigError as problem:
            parser.error(f"argument --mcp-config: {problem}")
        taken = {server.name for server in servers}
        servers.extend(server for server in found if server.name not in taken)
    return tuple(servers)
