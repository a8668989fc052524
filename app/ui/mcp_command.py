"""``lull mcp list | add | add-json | remove | get``: MCP servers, edited from the shell (like
``claude mcp add``).

``add`` takes Claude Code's forms: ``lull mcp add [OPTIONS] NAME -- COMMAND [ARGS...]`` (or
``NAME COMMAND [ARGS...]``) for a stdio server, ``lull mcp add --transport http NAME URL`` for
streamable HTTP (``sse`` for the legacy transport); lull's options (``-t/--transport``,
``-s/--scope``, ``-e/--env``, ``-H/--header``, ``--timeout``, ``--tool-timeout``,
``--compactable``) may come anywhere before ``--`` (a header after the URL, as Claude Code's
docs write it), and everything after ``--`` is the server's own command line. A server name is
required: ``lull mcp add -e A=1 -- node x.js`` is refused, not named ``node``. ``add-json NAME
JSON`` adds an entry written as JSON.

``--scope`` says where: ``user`` (the default) and ``local`` write ``mcpServers`` in the user
settings file (lull has no private per-project file, so Claude Code's ``local`` servers go
there and apply in every workspace; the command says so), ``project`` writes the workspace's
``.mcp.json`` (shared with the repository, read by Claude Code too; its servers start once the
workspace is trusted). Writing keeps everything else in the file, and every other server
exactly as written.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NoReturn, TextIO, assert_never

from lull.model.mcp import McpServerConfig

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
KEY = "mcpServers"
Scope = Literal["user", "local", "project"]
SCOPES: tuple[Scope, ...] = ("local", "project", "user")
LOCAL_NOTE = (
    "lull has no private per-project file: a local server goes in your user settings and "
    "starts in every workspace"
)
_ADD_USAGE = (
    "lull mcp add [OPTIONS] NAME -- COMMAND [ARGS...]  |  lull mcp add [OPTIONS] NAME COMMAND "
    "[ARGS...]  |  lull mcp add --transport http|sse [OPTIONS] NAME URL"
)
_ADD_JSON_USAGE = "lull mcp add-json [--scope SCOPE] NAME JSON"
_VALUED = {
    "-t": "transport",
    "--transport": "transport",
    "-s": "scope",
    "--scope": "scope",
    "-e": "env",
    "--env": "env",
    "-H": "header",
    "--header": "header",
    "--timeout": "timeout",
    "--tool-timeout": "tool_timeout",
}
_GLOBAL = ("-C", "--cwd")


def build_parser() -> argparse.ArgumentParser:
    """The ``lull mcp`` parser: ``list``, ``get`` and ``remove`` are parsed by it; ``add`` and
    ``add-json`` only describe themselves here (their arguments are read by
    :func:`parse_add`, which lets options follow the name and the URL as Claude Code's do)."""
    parser = argparse.ArgumentParser(
        prog="lull mcp",
        description="Manage your MCP servers (mcpServers in your user settings, or a "
        "project's .mcp.json).",
    )
    parser.add_argument(
        "-C", "--cwd", metavar="DIR", help="workspace whose project servers to list or edit"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("list", help="list the configured servers (user and project)")
    get = commands.add_parser("get", help="show one server's settings")
    get.add_argument("name")
    remove = commands.add_parser("remove", help="remove a server")
    remove.add_argument("-s", "--scope", choices=SCOPES, default="user", help="where (user)")
    remove.add_argument("name")
    add = commands.add_parser(
        "add",
        help="add a server",
        usage=_ADD_USAGE,
        description="Options may come anywhere before --; everything after -- is the server's "
        "command line (put it there when an argument of the server starts with a dash).",
    )
    add.add_argument("-t", "--transport", choices=("stdio", "http", "sse"))
    add.add_argument(
        "-s",
        "--scope",
        choices=SCOPES,
        help="user (default) or local: your user settings; project: the workspace's .mcp.json",
    )
    add.add_argument("-e", "--env", action="append", metavar="KEY=VALUE")
    add.add_argument("-H", "--header", action="append", metavar="'NAME: VALUE'")
    add.add_argument("--timeout", metavar="SECONDS", help="timeoutSeconds (starting it)")
    add.add_argument("--tool-timeout", metavar="SECONDS", help="toolTimeoutSeconds (each call)")
    add.add_argument("--compactable", action="store_true", help="idle cleanup may clear results")
    add_json = commands.add_parser(
        "add-json", help="add a server from its JSON entry", usage=_ADD_JSON_USAGE
    )
    add_json.add_argument("-s", "--scope", choices=SCOPES)
    return parser


@dataclass
class AddArguments:
    """What ``lull mcp add`` (or ``add-json``) was asked to add, and where."""

    name: str
    target: str = ""
    args: list[str] = field(default_factory=list)
    transport: str | None = None
    scope: Scope = "user"
    env: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    timeout: str | None = None
    tool_timeout: str | None = None
    compactable: bool = False
    entry: dict[str, Any] | None = None
    """``add-json``'s entry as given."""


class UsageError(Exception):
    """A command line that cannot be read; the message says why (one line)."""


def run_mcp_command(argv: Sequence[str], out: TextIO | None = None) -> int:
    """Run ``lull mcp ARGV``; returns the exit code (2 for a bad command line)."""
    out = out or sys.stdout
    parser = build_parser()
    argv = list(argv)
    start = _command_index(argv)
    command = argv[start] if start < len(argv) else ""
    added: AddArguments | None = None
    if command in ("add", "add-json") and not {"-h", "--help"} & set(_before_separator(argv)):
        args = argparse.Namespace(cwd=_cwd(argv[:start]))
        try:
            added = parse_add(argv[start + 1 :], json_entry=command == "add-json")
        except UsageError as problem:
            _usage_error(command, str(problem))
    else:
        args = parser.parse_args(argv)
        command = args.command
    workspace = Path(args.cwd).expanduser() if args.cwd else Path.cwd()
    try:
        match command:
            case "list":
                return _list(workspace, out)
            case "get":
                return _get(workspace, args.name, out)
            case "remove":
                return _remove(workspace, args.name, args.scope, out)
            case "add" | "add-json":
                assert added is not None
                return _add(command, added, workspace, out)
    except _Problem as problem:
        print(f"lull mcp: error: {problem}", file=sys.stderr)
        return EXIT_ERROR
    parser.error(f"unknown command {command!r}")
    return EXIT_USAGE  # pragma: no cover (parser.error exits)


def _command_index(argv: list[str]) -> int:
    """Where the command is: after ``-C DIR`` / ``--cwd DIR`` / ``--cwd=DIR``."""
    index = 0
    while index < len(argv):
        token = argv[index]
        if token in _GLOBAL:
            index += 2
        elif token.startswith("--cwd=") or (token.startswith("-C") and len(token) > 2):
            index += 1
        else:
            return index
    return index


def _cwd(argv: list[str]) -> str | None:
    """The last ``-C DIR`` / ``--cwd DIR`` / ``--cwd=DIR`` / ``-CDIR`` before the command."""
    found: str | None = None
    for index, token in enumerate(argv):
        if token in _GLOBAL and index + 1 < len(argv):
            found = argv[index + 1]
        elif token.startswith("--cwd="):
            found = token.removeprefix("--cwd=")
        elif token.startswith("-C") and len(token) > 2:
            found = token[2:]
    return found


def _before_separator(argv: list[str]) -> list[str]:
    return argv[: argv.index("--")] if "--" in argv else argv


def parse_add(tokens: Sequence[str], *, json_entry: bool = False) -> AddArguments:
    """``add``'s (or ``add-json``'s) arguments after the command word; raises
    :class:`UsageError` naming what is wrong."""
    tokens = list(tokens)
    separated = "--" in tokens
    head = tokens[: tokens.index("--")] if separated else tokens
    tail = tokens[tokens.index("--") + 1 :] if separated else []
    values: dict[str, list[str]] = {}
    words: list[str] = []
    compactable = False
    index = 0
    while index < len(head):
        token = head[index]
        index += 1
        option, value = _option(token)
        if option is not None and (json_entry and _VALUED[option] != "scope"):
            raise UsageError(f"add-json takes only --scope (got {token})")
        if option is not None:
            if value is None:
                if index >= len(head):
                    raise UsageError(f"{token} needs a value")
                value, index = head[index], index + 1
            values.setdefault(_VALUED[option], []).append(value)
        elif token == "--compactable" and not json_entry:
            compactable = True
        elif token.startswith("-") and token != "-" and (json_entry or len(words) < 2):
            raise UsageError(f"unknown option {token.partition('=')[0]}")
        else:
            words.append(token)  # after NAME COMMAND, a dashed word is the server's
    added = AddArguments(
        name="", compactable=compactable, env=values.get("env", []),
        headers=values.get("header", []),
    )  # fmt: skip
    added.scope = _scope(values.get("scope", ["user"])[-1])
    added.transport = values.get("transport", [None])[-1]
    added.timeout = values.get("timeout", [None])[-1]
    added.tool_timeout = values.get("tool_timeout", [None])[-1]
    if json_entry:
        return _json_entry(added, words, separated)
    if separated:
        if not words:
            raise UsageError(
                "the server needs a name before --: lull mcp add [OPTIONS] NAME -- COMMAND "
                "[ARGS...]"
            )
        if len(words) > 1:
            raise UsageError(f"only the server's name goes before -- (got {' '.join(words)})")
        if not tail:
            raise UsageError("a command after --: lull mcp add [OPTIONS] NAME -- COMMAND [ARGS...]")
        added.name, added.target, added.args = words[0], tail[0], tail[1:]
        return added
    if len(words) < 2:
        wanted = "its URL" if added.transport in ("http", "sse") else "its command (or URL)"
        raise UsageError(f"a server name and {wanted}: {_ADD_USAGE}")
    added.name, added.target, added.args = words[0], words[1], words[2:]
    return added


def _option(token: str) -> tuple[str | None, str | None]:
    """The option ``token`` is (and its value when attached: ``--header=V``, ``-HV``)."""
    if token in _VALUED:
        return token, None
    if token.startswith("--"):
        name, found, value = token.partition("=")
        return (name, value) if found and name in _VALUED else (None, None)
    if len(token) > 2 and token[:2] in _VALUED:
        return token[:2], token[2:]
    return None, None


def _scope(value: str) -> Scope:
    match value:
        case "user" | "local" | "project":
            return value
        case _:
            raise UsageError(f"--scope is local, project or user (got {value!r})")


def _json_entry(added: AddArguments, words: list[str], separated: bool) -> AddArguments:
    if separated or len(words) != 2:
        raise UsageError("a server name and its entry as one JSON argument (quoted)")
    added.name = words[0]
    try:
        entry = json.loads(words[1])
    except ValueError as error:
        raise UsageError(f"the entry is not JSON ({error})") from None
    if not isinstance(entry, dict):
        raise UsageError('the entry is a JSON object, e.g. {"command": "npx", "args": [...]}')
    added.entry = entry
    return added


def _usage_error(command: str, message: str) -> NoReturn:
    usage = _ADD_JSON_USAGE if command == "add-json" else _ADD_USAGE
    print(f"usage: {usage}", file=sys.stderr)
    print(f"lull mcp {command}: error: {message}", file=sys.stderr)
    raise SystemExit(EXIT_USAGE)


class _Problem(Exception):
    """A one-line reason the command could not be done."""


def _servers(workspace: Path) -> tuple[McpServerConfig, ...]:
    from lull.settings.loader import load_settings

    return load_settings(workspace, env={}).settings.mcp_servers


def _list(workspace: Path, out: TextIO) -> int:
    from lull.settings.workspaces import is_trusted

    servers = _servers(workspace)
    if not servers:
        print("no MCP servers configured; add one: lull mcp add NAME COMMAND [ARGS...]", file=out)
        return EXIT_OK
    trusted = is_trusted(workspace)
    for server in servers:
        target = server.url or " ".join((server.command, *server.args))
        notes: list[str] = [server.transport, server.scope]
        if not server.enabled:
            notes.append("disabled")
        if server.scope == "project" and not trusted:
            notes.append("starts after /trust")
        print(f"{server.name}: {target} ({', '.join(notes)})", file=out)
    return EXIT_OK


def _get(workspace: Path, name: str, out: TextIO) -> int:
    server = next((s for s in _servers(workspace) if s.name == name), None)
    if server is None:
        raise _Problem(f"no MCP server named {name!r}; `lull mcp list` shows them")
    print(
        f"{server.name} ({server.scope}, from {server.source or 'your user settings'}):", file=out
    )
    print(json.dumps(server.to_json(), indent=2, ensure_ascii=False), file=out)
    return EXIT_OK


def _place(scope: Scope, workspace: Path) -> Path:
    """The file a scope's servers are written to."""
    match scope:
        case "user" | "local":
            from lull.settings.paths import user_settings_path

            return user_settings_path()
        case "project":
            from lull.settings.paths import mcp_json_path

            return mcp_json_path(workspace.resolve())
        case _:
            assert_never(scope)


def _file_servers(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A settings file's (or ``.mcp.json``'s) whole content and its ``mcpServers`` object."""
    from lull.settings.jsonfile import FileProblem, read_json_object

    try:
        data = read_json_object(path) or {}
    except FileProblem as problem:
        raise _Problem(f"{problem}; fix it first") from None
    servers = data.get(KEY, {})
    if not isinstance(servers, dict):
        raise _Problem(f"{path}: {KEY} is not an object; fix it first")
    return data, servers


def _save(path: Path, data: dict[str, Any]) -> None:
    from lull.settings.writer import WriteProblem, dump_json, replace_file

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, dump_json(data))
    except (WriteProblem, OSError) as problem:
        raise _Problem(str(problem)) from None


def _remove(workspace: Path, name: str, scope: Scope, out: TextIO) -> int:
    path = _place(scope, workspace)
    data, servers = _file_servers(path)
    if name not in servers:
        raise _Problem(f"{path} has no MCP server named {name!r}")
    del servers[name]
    data[KEY] = servers
    _save(path, data)
    print(f"removed MCP server {name} from {path}", file=out)
    return EXIT_OK


def _add(command: str, added: AddArguments, workspace: Path, out: TextIO) -> int:
    from lull.settings.checks import Invalid
    from lull.settings.mcp_servers import parse_server

    try:
        entry = added.entry if added.entry is not None else _entry(added, added.scope)
        parse_server(added.name, entry)
    except Invalid as problem:
        _usage_error(command, f"expected {problem}")
    except UsageError as problem:
        _usage_error(command, str(problem))
    path = _place(added.scope, workspace)
    data, servers = _file_servers(path)
    replaced = added.name in servers
    servers[added.name] = entry
    data[KEY] = servers
    _save(path, data)
    verb = "replaced" if replaced else "added"
    print(f"{verb} MCP server {added.name} in {path}", file=out)
    if added.scope == "local":
        print(LOCAL_NOTE, file=out)
    elif added.scope == "project":
        print("it starts in this workspace once you trust it (/trust)", file=out)
    return EXIT_OK


def _entry(added: AddArguments, scope: Scope) -> dict[str, Any]:
    """The settings entry the ``add`` arguments describe (a project's ``.mcp.json`` entry
    names its HTTP ``type``, as Claude Code writes and reads it)."""
    transport = added.transport or (
        "http" if added.target.startswith(("http://", "https://")) else "stdio"
    )
    entry: dict[str, Any] = {}
    if transport == "stdio":
        if added.headers:
            raise UsageError("--header is for an http or sse server")
        entry["command"] = added.target
        if added.args:
            entry["args"] = added.args
        if added.env:
            entry["env"] = dict(_pair(item, "=", "--env") for item in added.env)
    else:
        if added.args:
            raise UsageError(
                f"an {transport} server takes no arguments after its URL (got {added.args})"
            )
        if transport == "sse" or scope == "project":
            entry["type"] = transport
        entry["url"] = added.target
        if added.headers:
            entry["headers"] = dict(_pair(item, ":", "--header") for item in added.headers)
    if added.timeout is not None:
        entry["timeoutSeconds"] = _seconds(added.timeout, "--timeout")
    if added.tool_timeout is not None:
        entry["toolTimeoutSeconds"] = _seconds(added.tool_timeout, "--tool-timeout")
    if added.compactable:
        entry["compactable"] = True
    return entry


def _seconds(text: str, flag: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"{flag} expects seconds (got {text!r})") from None


def _pair(item: str, separator: str, flag: str) -> tuple[str, str]:
    key, found, value = item.partition(separator)
    if not found or not key.strip():
        raise UsageError(f"{flag} expects KEY{separator}VALUE (got {item!r})")
    return key.strip(), value.strip() if separator == ":" else value
