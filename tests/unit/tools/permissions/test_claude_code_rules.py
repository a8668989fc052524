"""Permission rules written in Claude Code's documented syntax (its permissions page): each
documented example, as a settings file in .claude/ would hold it, against the calls it is
documented to match and not to match."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lull.model.permissions import PermissionRule
from lull.tools.base import Tool, ToolContext, ToolOutput
from lull.tools.permissions.rules import RuleBook
from lull.tools.registry import default_registry

TOOLS = {tool.name: tool for tool in default_registry()}
WORKSPACE = Path("/work/space")
CTX = ToolContext(workspace=WORKSPACE, output_dir=Path("/tmp/out"))


class _McpTool(Tool):
    """A stand-in for an MCP server's tool, by name."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def run(self, args: Any, ctx: ToolContext) -> ToolOutput:
        return ToolOutput("")


def _denies(rule: str, tool: str, args: dict[str, Any]) -> bool:
    """Whether ``rule`` as a deny rule decides a call of ``tool`` with ``args``."""
    called = TOOLS[tool] if tool in TOOLS else _McpTool(tool)
    return RuleBook([PermissionRule("deny", rule, "test")]).match(called, args, CTX) is not None


def _allows(rule: str, tool: str, args: dict[str, Any]) -> bool:
    """Whether ``rule`` as an allow rule lets a call of ``tool`` with ``args`` run unasked."""
    called = TOOLS[tool] if tool in TOOLS else _McpTool(tool)
    book = RuleBook([PermissionRule("allow", rule, "test")])
    return book.match(called, args, CTX) is not None


def _bash(command: str) -> tuple[str, dict[str, Any]]:
    return "run_shell_command", {"command": command}


def _read(path: str) -> tuple[str, dict[str, Any]]:
    return "read_file", {"path": path}


DOCUMENTED: list[tuple[str, tuple[str, dict[str, Any]], bool]] = [
    # a bare tool name matches every use of the tool; Bash(*) is the same as Bash
    ("Bash", _bash("rm -rf build"), True),
    ("Bash(*)", _bash("anything at all"), True),
    ("WebFetch", ("web_fetch", {"url": "https://example.com/"}), True),
    ("WebSearch", ("web_search", {"query": "python 3.14"}), True),
    ("Read", _read("src/app.py"), True),
    # exact commands and prefixes: the legacy ":*" and a trailing " *"
    ("Bash(npm run build)", _bash("npm run build"), True),
    ("Bash(npm run build)", _bash("npm run build --prod"), False),
    ("Bash(npm run test:*)", _bash("npm run test"), True),
    ("Bash(npm run test:*)", _bash("npm run test -- --watch"), True),
    ("Bash(npm run test:*)", _bash("npm run lint"), False),
    ("Bash(npm run test *)", _bash("npm run test --coverage"), True),
    ("Bash(npm run test *)", _bash("npm run test"), True),
    ("Bash(npm run test *)", _bash("npm run testing"), False),
    ("Bash(npm:*)", _bash("npmx install"), False),
    # "*" anywhere
    ("Bash(git * main)", _bash("git push origin main"), True),
    ("Bash(* install)", _bash("npm install"), True),
    ("Bash(* install)", _bash("npm ci"), False),
    # file rules: ./ and bare paths are relative to the project, a name without / at any
    # depth, ~/ is the home folder, // is the filesystem root, /path the project's root
    ("Read(./.env)", _read(".env"), True),
    ("Read(./.env)", _read("config/.env"), False),
    ("Read(*.env)", _read("config/prod.env"), True),
    ("Read(//etc/secrets/**)", _read("/etc/secrets/key.pem"), True),
    ("Read(//etc/secrets/**)", _read("/etc/hosts"), False),
    ("Edit(/src/**/*.ts)", ("edit", {"path": "src/ui/button.ts"}), True),
    ("Edit(/src/**/*.ts)", ("edit", {"path": "lib/button.ts"}), False),
    ("Edit(src/**)", ("edit", {"path": "src/a/b.py"}), True),
    ("Edit(src/**)", ("write_file", {"path": "src/new.py"}), True),  # every editing tool
    ("Write(src/**)", ("write_file", {"path": "src/new.py"}), True),
    ("Write(src/**)", ("write_file", {"path": "docs/new.md"}), False),
    # WebFetch by domain
    ("WebFetch(domain:example.com)", ("web_fetch", {"url": "https://example.com/a"}), True),
    ("WebFetch(domain:example.com)", ("web_fetch", {"url": "https://example.org/"}), False),
    # MCP: a server, one of its tools, all its tools
    ("mcp__puppeteer", ("mcp__puppeteer__navigate", {}), True),
    ("mcp__puppeteer", ("mcp__github__create_issue", {}), False),
    ("mcp__puppeteer__navigate", ("mcp__puppeteer__navigate", {}), True),
    ("mcp__puppeteer__navigate", ("mcp__puppeteer__click", {}), False),
    ("mcp__puppeteer__*", ("mcp__puppeteer__click", {}), True),
    ("mcp__puppeteer__*", ("mcp__github__click", {}), False),
]


@pytest.mark.parametrize(("rule", "call", "matches"), DOCUMENTED)
def test_documented_rules_allow_what_they_name_and_nothing_else(
    rule: str, call: tuple[str, dict[str, Any]], matches: bool
) -> None:
    tool, args = call
    assert _allows(rule, tool, args) is matches


@pytest.mark.parametrize(("rule", "call", "matches"), DOCUMENTED)
def test_documented_rules_deny_at_least_what_they_name(
    rule: str, call: tuple[str, dict[str, Any]], matches: bool
) -> None:
    tool, args = call
    if matches:  # a deny rule may reach further than written (tools/permissions/rules.py)
        assert _denies(rule, tool, args)


def test_a_home_rule_is_the_home_folder() -> None:
    secret = Path.home() / "secret" / "token.txt"
    assert _denies("Read(~/secret/**)", *_read(str(secret)))
    assert not _denies("Read(~/secret/**)", *_read(str(Path.home() / "notes.txt")))


def test_a_prefix_rule_does_not_allow_a_compound_line() -> None:
    assert _allows("Bash(safe-cmd:*)", *_bash("safe-cmd --flag"))
    assert not _allows("Bash(safe-cmd:*)", *_bash("safe-cmd && other-cmd"))


def test_a_read_rule_covers_every_tool_that_reads_files() -> None:
    assert _denies("Read(./.env)", "grep_search", {"pattern": "KEY", "path": ".env"})
    assert _denies("Read(./.env)", "list_directory", {"path": ".env"})
