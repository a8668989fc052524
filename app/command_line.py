"""The ``lull`` command line: parse the arguments and hand over to a front end.

:mod:`lull.cli` answers ``--version`` and ``--help`` before this module is imported; front
ends and the engine are imported only after the arguments are known.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lull.claude_flags import added_dirs, approval_mode, mcp_servers, rule_flag, system_prompts
from lull.model.approvals import ALL_APPROVAL_MODES
from lull.model.provider import PROVIDERS
from lull.model.text import decode_bytes
from lull.ui.formats import INPUT_FORMATS, OUTPUT_FORMATS, InputFormat, OutputFormat
from lull.ui.headless.schema import PERMISSION_MODES

if TYPE_CHECKING:
    from lull.runtime import RunOptions

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2

DESCRIPTION = """\
lull: a terminal coding assistant whose context tidies itself while you are away.

Run `lull` for the interactive terminal UI, `lull --plain` for a line-mode chat,
or `lull -p "PROMPT"` for one answer (pipe text in to add it to the prompt).
`lull mcp list|add|add-json|remove|get` manages your MCP servers (`lull mcp --help`).
`lull acp` serves an editor over the Agent Client Protocol (Zed, JetBrains, Neovim, Emacs).
"""

EPILOG = """\
environment:
  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL   Anthropic (Claude) access
  OPENAI_API_KEY, OPENAI_BASE_URL         OpenAI or a compatible server (DeepSeek, Kimi,
                                          Qwen, vLLM, Ollama, ...)
  LULL_THINKING_THRESHOLD_MINUTES, LULL_TOOL_RESULTS_THRESHOLD_MINUTES,
  LULL_TOOL_RESULTS_NUM_TO_KEEP           idle cleanup overrides
settings: ~/.config/lull/settings.json (user) and .lull/settings.json (project)
"""


@dataclass(frozen=True)
class CommandLine:
    """The command line after parsing and checking: how to run (the front end, the prompt
    and its output format) and what the runtime is built from (``run``)."""

    run: RunOptions
    prompt: str | None = None
    output_format: OutputFormat = "text"
    plain: bool = False
    debug: bool = False
    input_format: InputFormat = "text"
    verbose: bool = False
    partial: bool = False


class _VersionAction(argparse.Action):
    """``--version``: the version from the package metadata, read only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from lull.version import version

        print(f"lull {version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and help output)."""
    parser = argparse.ArgumentParser(
        prog="lull",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-p",
        "--print",
        dest="prompt",
        nargs="?",
        const="",
        default=None,
        metavar="PROMPT",
        help="answer PROMPT non-interactively and exit (reads stdin when piped)",
    )
    parser.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        default="text",
        help="with -p: text (default), json (one object) or stream-json (one event per line)",
    )
    parser.add_argument(
        "--input-format",
        choices=INPUT_FORMATS,
        default="text",
        help="with -p: text (default: the prompt, plus piped stdin) or stream-json (user "
        "messages as JSON lines on stdin, one turn each, until end of input)",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="with -p: also say each tool call on stderr (text output); stream-json does "
        "not need it (Claude Code requires it there, lull accepts it)",
    )
    parser.add_argument(
        "--include-partial-messages",
        action="store_true",
        help="with -p --output-format stream-json: also print the model's reply as it streams "
        '(Claude Code\'s "stream_event" lines)',
    )
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        help="continue the most recent session in this workspace",
    )
    parser.add_argument("-r", "--resume", metavar="ID", help="resume the session with this id")
    parser.add_argument(
        "--fork-session",
        action="store_true",
        help="with --continue or --resume: continue in a copy of the session (a new id), "
        "e.g. while another lull has it open",
    )
    parser.add_argument("-m", "--model", help="model name (overrides model.name)")
    parser.add_argument(
        "--provider",
        choices=PROVIDERS,
        help="model provider (overrides model.provider)",
    )
    parser.add_argument("--base-url", metavar="URL", help="API base URL (overrides model.baseUrl)")
    parser.add_argument(
        "--approval-mode",
        choices=ALL_APPROVAL_MODES,
        help="default: ask before edits and shell; auto-edit: ask before shell; "
        "yolo: never ask; plan: read-only tools only; dont-ask: refuse what default asks "
        "about (only allow rules and read-only tools run)",
    )
    parser.add_argument(
        "--permission-mode",
        choices=tuple(PERMISSION_MODES),
        metavar="MODE",
        help="Claude Code's names for the approval mode: default, acceptEdits (auto-edit), "
        "plan, bypassPermissions (yolo), dontAsk (dont-ask: refuse what is not allowed), "
        "auto (runs as auto-edit: lull has no safety classifier); lull's names work too",
    )
    parser.add_argument(
        "--allowedTools",
        "--allowed-tools",
        dest="allowed_tools",
        nargs="+",
        action="extend",
        metavar="RULE",
        help='permission rules that run without asking, e.g. "Bash(git log:*)" Edit '
        "(space- or comma-separated; added to permissions.allow for this run)",
    )
    parser.add_argument(
        "--disallowedTools",
        "--disallowed-tools",
        dest="disallowed_tools",
        nargs="+",
        action="extend",
        metavar="RULE",
        help="permission rules that never run (added to permissions.deny; deny wins)",
    )
    parser.add_argument(
        "--system-prompt",
        metavar="TEXT",
        help="use TEXT instead of lull's system prompt (the environment and project "
        "instructions still follow it)",
    )
    parser.add_argument(
        "--append-system-prompt",
        metavar="TEXT",
        help="add TEXT to the end of the system prompt",
    )
    parser.add_argument(
        "--system-prompt-file",
        metavar="PATH",
        help="with -p: use the text of PATH instead of lull's system prompt",
    )
    parser.add_argument(
        "--append-system-prompt-file",
        metavar="PATH",
        help="with -p: add the text of PATH to the end of the system prompt (after "
        "--append-system-prompt's)",
    )
    parser.add_argument(
        "--mcp-config",
        nargs="+",
        action="extend",
        metavar="FILE_OR_JSON",
        help='MCP servers for this run, in Claude Code\'s {"mcpServers": {...}} shape: a file '
        "or the JSON itself (repeatable); they are yours, so they start without /trust",
    )
    parser.add_argument(
        "--strict-mcp-config",
        action="store_true",
        help="use only the --mcp-config servers (not those of settings or .mcp.json)",
    )
    parser.add_argument(
        "--max-turns",
        type=_positive_int,
        metavar="N",
        help="stop after N model requests in one turn",
    )
    parser.add_argument(
        "--max-attempts",
        type=_positive_int,
        metavar="N",
        help="with -p: try the task up to N times; an attempt that ends without an answer is "
        "summarised and a fresh session starts with that summary (default 1)",
    )
    parser.add_argument(
        "--exclude-tools",
        type=_tool_names,
        metavar="A,B",
        help="tools the model is never offered, comma-separated (adds to tools.exclude)",
    )
    parser.add_argument(
        "--add-dir",
        action="append",
        metavar="DIR",
        help="let tools read and edit DIR as if it were in the workspace (repeatable; adds to "
        "permissions.additionalDirectories)",
    )
    parser.add_argument(
        "--plain", action="store_true", help="line mode instead of the full-screen UI"
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="try lull without an API key: a built-in scripted model echoes what you say "
        'and lists the workspace when asked to "list files"',
    )
    parser.add_argument(
        "--allow-project-mcp",
        action="store_true",
        help="start the MCP servers this workspace's project files name (.mcp.json, "
        ".lull/settings.json) without trusting the workspace (/trust trusts it for good)",
    )
    parser.add_argument("-C", "--cwd", metavar="DIR", help="workspace directory (default: current)")
    parser.add_argument("--debug", action="store_true", help="print the debug log to stderr")
    parser.add_argument("-v", "--version", action=_VersionAction)
    return parser


HELP_WIDTH = 80
"""The width ``lull --help`` is rendered at ahead of time (:mod:`lull.help_text`)."""


def rendered_help() -> str:
    """The parser's help at :data:`HELP_WIDTH` columns, whatever the terminal's width."""
    parser = build_parser()
    parser.formatter_class = lambda prog: argparse.RawDescriptionHelpFormatter(
        prog, width=HELP_WIDTH
    )
    return parser.format_help()


def render_help_module() -> str:
    """The source of :mod:`lull.help_text`: the parser's help at :data:`HELP_WIDTH` columns.
    Write it with ``.venv/bin/python -m lull.command_line > app/help_text.py`` (then
    ``ruff format`` it)."""
    lines = "".join(f"    {line!r}\n" for line in rendered_help().splitlines(keepends=True))
    return (
        '"""``lull --help``, rendered ahead of time from the parser so that it answers without\n'
        "importing it (generated by ``lull.command_line.render_help_module``; a test fails when\n"
        'the parser changes and this file does not)."""\n\n'
        f"HELP = (\n{lines})\n"
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _tool_names(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise argparse.ArgumentTypeError(f"expected tool names separated by commas, got {text!r}")
    return names


def parse_command_line(argv: Sequence[str] | None = None, cwd: Path | None = None) -> CommandLine:
    """Parse and check ``argv``; a bad command line exits with code 2 and a one-line message.

    ``cwd`` is the workspace when ``-C`` is not given (default: the current directory).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    workspace = Path(args.cwd).expanduser() if args.cwd else (cwd or Path.cwd())
    if not workspace.is_dir():
        parser.error(f"argument -C/--cwd: {workspace} is not a directory")
    if args.resume is not None and not args.resume.strip():
        parser.error("argument -r/--resume: expected a session id, got an empty string")
    if args.resume and args.continue_last:
        parser.error("use either --resume ID or --continue, not both")
    if args.fork_session and not (args.resume or args.continue_last):
        parser.error("--fork-session needs --continue or --resume ID (the session to copy)")
    if args.prompt is None and args.output_format != "text":
        parser.error("--output-format needs -p/--print")
    if args.prompt is None and args.input_format != "text":
        parser.error("--input-format needs -p/--print")
    if args.include_partial_messages and (
        args.prompt is None or args.output_format != "stream-json"
    ):
        parser.error("--include-partial-messages needs -p/--print and --output-format stream-json")
    mode = approval_mode(parser, args)
    allowed = rule_flag(parser, "--allowedTools", args.allowed_tools)
    disallowed = rule_flag(parser, "--disallowedTools", args.disallowed_tools)
    servers = mcp_servers(parser, args.mcp_config or [], workspace)
    if args.strict_mcp_config and not args.mcp_config:
        parser.error("--strict-mcp-config needs --mcp-config (the only servers to use)")
    system_prompt, append_system_prompt = system_prompts(parser, args)
    if args.prompt is None and args.max_attempts is not None:
        parser.error("--max-attempts needs -p/--print (fresh attempts are a one-shot feature)")
    prompt = args.prompt
    if prompt is not None and args.input_format == "text":
        prompt = _full_prompt(prompt)
        if not prompt.strip():
            parser.error("-p needs a prompt (as an argument or on stdin)")
    from lull.runtime import RunOptions  # after parsing: --help and --version stay light

    run = RunOptions(
        workspace=workspace,
        model=args.model,
        provider=args.provider,
        base_url=args.base_url,
        approval_mode=mode,
        max_turns=args.max_turns,
        max_attempts=args.max_attempts,
        exclude_tools=args.exclude_tools,
        add_dirs=added_dirs(parser, args.add_dir),
        resume=args.resume.strip() if args.resume else None,
        continue_last=args.continue_last,
        fork_session=args.fork_session,
        demo=args.demo,
        allow_project_mcp=args.allow_project_mcp,
        client_mcp_servers=servers,
        strict_mcp_config=args.strict_mcp_config,
        allowed_tools=allowed,
        disallowed_tools=disallowed,
        system_prompt=system_prompt,
        append_system_prompt=append_system_prompt,
    )
    return CommandLine(
        run,
        prompt,
        args.output_format,
        args.plain,
        args.debug,
        args.input_format,
        args.verbose,
        args.include_partial_messages,
    )


def run_command_line(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv[1:]``) and run what it asks for; the exit code."""
    _replace_unprintable()
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["mcp"]:
        from lull.ui.mcp_command import run_mcp_command

        return run_mcp_command(arguments[1:])
    acp = arguments[:1] == ["acp"]
    line = parse_command_line(arguments[1:] if acp else argv)
    from lull.log import setup_logging
    from lull.settings.paths import log_path

    setup_logging(log_path(), debug=line.debug)
    options = line.run
    if acp:
        from lull.ui.acp import run_acp

        return run_acp(options)
    if line.prompt is not None:
        from lull.ui.printer import run_print

        return run_print(
            options,
            line.prompt,
            line.output_format,
            line.input_format,
            verbose=line.verbose,
            partial=line.partial,
        )
    if line.plain or not sys.stdout.isatty():
        from lull.ui.line import run_line

        return run_line(options)
    from lull.ui.tui import run_tui

    return run_tui(options)


def _replace_unprintable() -> None:
    """Text lull prints never raises for a character the terminal cannot encode (a lone
    surrogate from a file name or a model): it is shown replaced (``app/model/text.py``)."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")


def _full_prompt(prompt: str) -> str:
    """The -p prompt, with piped stdin appended (like ``cat log | lull -p "explain"``);
    stdin is read as bytes and decoded like every outside text (``app/model/text.py``), so
    no byte is lost."""
    if sys.stdin is None or sys.stdin.isatty():
        return prompt
    try:
        piped = decode_bytes(sys.stdin.buffer.read())
    except (OSError, AttributeError, ValueError) as error:
        warning = f"lull: warning: could not read stdin ({error}); using the prompt alone"
        print(warning, file=sys.stderr)
        return prompt
    if not piped.strip():
        return prompt
    return f"{prompt}\n\n{piped}" if prompt.strip() else piped


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(render_help_module())
