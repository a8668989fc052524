"""``lull mcp list | add | remove | get``: the user's MCP servers, edited from the shell (like
``claude mcp add``).

``add`` and ``remove`` change ``mcpServers`` in the *user* settings file only, keeping
everything else in it (and every other server exactly as written); a project's servers are
listed with where they come from and whether the workspace is trusted, but never edited here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from lull.model.mcp import McpServerConfig

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
KEY = "mcpServers"


def build_parser() -> argparse.ArgumentParser:
    """The ``lull mcp`` parser and its four commands."""
    parser = argparse.ArgumentParser(
        prog="lull mcp",
        description="Manage the MCP servers in your user settings (mcpServers).",
    )
    parser.add_argument(
        "-C", "--cwd", metavar="DIR", help="workspace whose project servers to list"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("list", help="list the configured servers (user and project)")
    get = commands.add_parser("get", help="show one server's settings")
    get.add_argument("name")
    remove = commands.add_parser("remove", help="remove a server from your user settings")
    remove.add_argument("name")
    add = commands.add_parser(
        "add",
        help="add a server to your user settings",
        description="lull mcp add NAME COMMAND [ARGS...] (stdio), or lull mcp add --transport "
        "http NAME URL (streamable HTTP; sse for the legacy transport). Put -- before "
        "arguments of the server that start with a dash.",
    )
    add.add_argument("-t", "--transport", choices=("stdio", "http", "sse"), default=None)
    add.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE")
    add.add_argument("-H", "--header", action="append", default=[], metavar="'NAME: VALUE'")
    add.add_argument("--timeout", type=float, metavar="SECONDS", help="timeoutSeconds")
    add.add_argument("--compactable", action="store_true", help="idle cleanup may clear results")
    add.add_argument("name")
    add.add_argument("target", metavar="COMMAND_OR_URL")
    add.add_argument("args", nargs=argparse.REMAINDER)
    return parser


def run_mcp_command(argv: Sequence[str], out: TextIO | None = None) -> int:
    """Run ``lull mcp ARGV``; returns the exit code (2 for a bad command line)."""
    out = out or sys.stdout
    parser = build_parser()
    args = parser.parse_args(list(argv))
    workspace = Path(args.cwd).expanduser() if args.cwd else Path.cwd()
    try:
        match args.command:
            case "list":
                return _list(workspace, out)
            case "get":
                return _get(workspace, args.name, out)
            case "remove":
                return _remove(args.name, out)
            case "add":
                return _add(parser, args, out)
    except _Problem as problem:
        print(f"lull mcp: error: {problem}", file=sys.stderr)
        return EXIT_ERROR
    parser.error(f"unknown command {args.command!r}")
    return EXIT_USAGE  # pragma: no cover (parser.error exits)


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


def _user_servers() -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """The user settings file, its whole content and its ``mcpServers`` object."""
    from lull.settings.jsonfile import FileProblem, read_json_object
    from lull.settings.paths import user_settings_path

    path = user_settings_path()
    try:
        data = read_json_object(path) or {}
    except FileProblem as problem:
        raise _Problem(f"{problem}; fix it first") from None
    servers = data.get(KEY, {})
    if not isinstance(servers, dict):
        raise _Problem(f"{path}: {KEY} is not an object; fix it first")
    return path, data, servers


def _save(path: Path, data: dict[str, Any]) -> None:
    from lull.settings.writer import WriteProblem, dump_json, replace_file

    try:
        replace_file(path, dump_json(data))
    except WriteProblem as problem:
        raise _Problem(str(problem)) from None


def _remove(name: str, out: TextIO) -> int:
    path, data, servers = _user_servers()
    if name not in servers:
        raise _Problem(f"{path} has no MCP server named {name!r}")
    del servers[name]
    data[KEY] = servers
    _save(path, data)
    print(f"removed MCP server {name} from {path}", file=out)
    return EXIT_OK


def _add(parser: argparse.ArgumentParser, args: argparse.Namespace, out: TextIO) -> int:
    from lull.settings.checks import Invalid
    from lull.settings.mcp_servers import parse_server

    entry = _entry(parser, args)
    try:
        parse_server(args.name, entry)
    except Invalid as problem:
        parser.error(f"expected {problem}")
    path, data, servers = _user_servers()
    replaced = args.name in servers
    servers[args.name] = entry
    data[KEY] = servers
    _save(path, data)
    verb = "replaced" if replaced else "added"
    print(f"{verb} MCP server {args.name} in {path}", file=out)
    return EXIT_OK


def _entry(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Any]:
    """The settings entry the ``add`` arguments describe."""
    transport = args.transport or (
        "http" if args.target.startswith(("http://", "https://")) else "stdio"
    )
    rest = [a for a in args.args if a != "--"] if args.args[:1] == ["--"] else list(args.args)
    entry: dict[str, Any] = {}
    if transport == "stdio":
        entry["command"] = args.target
        if rest:
            entry["args"] = rest
        if args.env:
            entry["env"] = dict(_pair(parser, item, "=", "--env") for item in args.env)
    else:
        if rest:
            parser.error(f"an {transport} server takes no arguments after its URL (got {rest})")
        if transport == "sse":
            entry["type"] = "sse"
        entry["url"] = args.target
        if args.header:
            entry["headers"] = dict(_pair(parser, item, ":", "--header") for item in args.header)
    if args.timeout is not None:
        entry["timeoutSeconds"] = args.timeout
    if args.compactable:
        entry["compactable"] = True
    return entry


def _pair(parser: argparse.ArgumentParser, item: str, separator: str, flag: str) -> tuple[str, str]:
    key, found, value = item.partition(separator)
    if not found or not key.strip():
        parser.error(f"{flag} expects KEY{separator}VALUE (got {item!r})")
    return key.strip(), value.strip() if separator == ":" else value
