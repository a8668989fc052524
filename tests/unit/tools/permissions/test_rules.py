"""Saved permission rules against calls: patterns per tool, deny > ask > allow, compound shell
lines, project allow rules waiting for trust, and what "allow always" suggests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lull.model.permissions import PermissionRule, RuleEffect
from lull.tools.base import ToolContext
from lull.tools.permissions.rules import (
    RuleBook,
    RuleNotSaved,
    path_matches,
    shell_pattern,
    suggest_rules,
)
from lull.tools.registry import default_registry

TOOLS = {tool.name: tool for tool in default_registry()}
WORKSPACE = Path("/work/space")
CTX = ToolContext(workspace=WORKSPACE, output_dir=Path("/tmp/out"))


def _book(*rules: tuple[RuleEffect, str], trusted: bool = False) -> RuleBook:
    return RuleBook([PermissionRule(e, t, "test") for e, t in rules], trusted=lambda: trusted)


def _effect(book: RuleBook, tool: str, **args: Any) -> str | None:
    match = book.match(TOOLS[tool], args, CTX)
    return match.effect if match else None


@pytest.mark.parametrize(
    ("pattern", "command", "matches"),
    [
        ("npm test*", "npm test", True),
        ("npm test*", "npm test -- --watch", True),
        ("npm test*", "npm testing", True),
        ("npm test *", "npm test", True),
        ("npm test *", "npm test --watch", True),
        ("npm test *", "npm testing", False),
        ("npm run:*", "npm run build", True),
        ("npm run:*", "npm run", True),
        ("npm run:*", "npm runner", False),
        ("git * main", "git push origin main", True),
        ("git status", "git status", True),
        ("git status", "git status -s", False),
    ],
)
def test_shell_patterns(pattern: str, command: str, matches: bool) -> None:
    assert bool(shell_pattern(pattern).fullmatch(command)) is matches


def test_an_allow_rule_must_match_every_command_of_a_compound_line() -> None:
    book = _book(("allow", "run_shell_command(npm test*)"))
    assert _effect(book, "run_shell_command", command="npm test") == "allow"
    assert _effect(book, "run_shell_command", command="npm test && npm test -u") == "allow"
    assert _effect(book, "run_shell_command", command="npm test; rm -rf /") is None
    assert _effect(book, "run_shell_command", command="npm test | sh") is None
    assert _effect(book, "run_shell_command", command="npm test $(rm -rf /)") is None
    assert _effect(book, "run_shell_command", command="npm test > ~/.bashrc") is None
    assert _effect(book, "run_shell_command", command="npm test > /dev/null 2>&1") == "allow"


def test_a_deny_rule_sees_every_command_even_hidden_ones() -> None:
    book = _book(("deny", "run_shell_command(rm -rf *)"), ("allow", "run_shell_command"))
    for line in [
        "rm -rf build",
        "npm test && rm -rf /",
        "echo $(rm -rf /)",
        "(cd x; rm -rf y)",
        "FOO=1 rm -rf /",
        "sudo -u root rm -rf /",
        "timeout 5 rm -rf x",
        'bash -c "ls; rm -rf /"',
        "eval rm -rf /",
        'r"m" -rf /',
    ]:
        assert _effect(book, "run_shell_command", command=line) == "deny", line
    assert _effect(book, "run_shell_command", command="ls -la") == "allow"


def test_path_rules_are_globs_relative_to_the_workspace() -> None:
    book = _book(
        ("deny", "read_file(.env)"),
        ("deny", "read_file(secrets)"),
        ("allow", "edit(docs/**)"),
        ("ask", "read_file(//etc/**)"),
    )
    assert _effect(book, "read_file", path=".env") == "deny"
    assert _effect(book, "read_file", path="app/.env") == "deny"  # no "/": any depth
    assert _effect(book, "read_file", path="secrets/key.pem") == "deny"  # inside a dir
    assert _effect(book, "read_file", path="/etc/passwd") == "ask"
    assert _effect(book, "read_file", path="src/app.py") is None
    assert _effect(book, "edit", path="docs/guide/intro.md") == "allow"
    assert _effect(book, "write_file", path="docs/a.md") is None  # edit(...) is the edit tool
    assert _effect(book, "edit", path="src/app.py") is None
    assert _effect(book, "edit", path="docs/../src/app.py") is None


def test_claude_code_names_work_in_rules() -> None:
    book = _book(("allow", "Bash(make *)"), ("deny", "Read(.env)"), ("allow", "Edit(docs/**)"))
    assert _effect(book, "run_shell_command", command="make test") == "allow"
    assert _effect(book, "read_file", path=".env") == "deny"
    assert _effect(book, "write_file", path="docs/a.md") == "allow"  # Edit covers every editor


def test_web_fetch_domains_and_mcp_tool_names() -> None:
    book = _book(
        ("allow", "web_fetch(domain:docs.python.org)"), ("deny", "web_fetch(domain:*.evil.com)")
    )
    assert _effect(book, "web_fetch", url="https://docs.python.org/3/") == "allow"
    assert _effect(book, "web_fetch", url="https://python.org/") is None
    assert _effect(book, "web_fetch", url="http://a.evil.com/x") == "deny"
    assert _tool_rule_matches("mcp__github__*", "mcp__github__create_issue")
    assert _tool_rule_matches("mcp__github", "mcp__github__create_issue")
    assert not _tool_rule_matches("mcp__github", "mcp__gitlab__create_issue")
    assert not _tool_rule_matches("mcp__github__*", "mcp__gitlab__x")


def _tool_rule_matches(rule: str, name: str) -> bool:
    from lull.tools.base import Tool, ToolOutput

    class Named(Tool):
        async def run(self, args: Any, ctx: ToolContext) -> ToolOutput:
            return ToolOutput("")

    tool = Named()
    tool.name = name
    return RuleBook([PermissionRule("deny", rule)]).match(tool, {}, CTX) is not None


def test_a_project_allow_rule_waits_for_trust_but_its_deny_rule_does_not() -> None:
    rules = [
        PermissionRule("allow", "run_shell_command(make *)", "/r/.lull/settings.json", "project"),
        PermissionRule("deny", "read_file(.env)", "/r/.lull/settings.json", "project"),
    ]
    trusted = [False]
    book = RuleBook(rules, trusted=lambda: trusted[0])
    assert _effect(book, "run_shell_command", command="make") is None
    assert _effect(book, "read_file", path=".env") == "deny"
    trusted[0] = True
    assert _effect(book, "run_shell_command", command="make") == "allow"


def test_what_allow_always_suggests() -> None:
    shell = TOOLS["run_shell_command"]
    assert suggest_rules(shell, {"command": "npm test -- -u"}, None) == (
        "run_shell_command(npm test *)",
    )
    assert suggest_rules(shell, {"command": "make && ./run.sh --x"}, None) == (
        "run_shell_command(make *)",
        "run_shell_command(./run.sh *)",
    )
    assert suggest_rules(shell, {"command": "echo $(date)"}, None) == ()
    assert suggest_rules(shell, {"command": "echo x > f"}, None) == ()
    assert suggest_rules(TOOLS["edit"], {"path": "a"}, None) == ("edit",)


def test_remembering_saves_through_the_saver_or_says_why_not() -> None:
    saved: list[tuple[str, str]] = []

    def saver(text: str, scope: str) -> str:
        if scope == "user":
            raise RuleNotSaved("not saved: settings.json is broken")
        saved.append((text, scope))
        return "/config/workspace-permissions.json"

    book = RuleBook(saver=saver)  # type: ignore[arg-type]
    shell = TOOLS["run_shell_command"]
    notes = book.remember(shell, {}, ("run_shell_command(make *)",), "workspace")
    assert saved == [("run_shell_command(make *)", "workspace")]
    assert notes == [
        'saved allow rule "run_shell_command(make *)" in /config/workspace-permissions.json'
    ]
    notes = book.remember(shell, {}, ("run_shell_command(ls *)",), "user")
    assert "is allowed for this session only" in notes[0]
    book.forget_session()
    assert _effect(book, "run_shell_command", command="make") == "allow"  # saved: stays
    assert _effect(book, "run_shell_command", command="ls") is None  # session only: gone


def test_path_matches_absolute_and_home_patterns(tmp_path: Path) -> None:
    assert path_matches("//etc/*", Path("/etc/hosts"), WORKSPACE)
    assert path_matches(f"~/{'**'}", Path.home() / "x" / "y", WORKSPACE)
    assert not path_matches("src/**", Path("/elsewhere/src/a.py"), WORKSPACE)


# --- properties -----------------------------------------------------------------------------

SAFE = ["npm test", "npm test --watch", "ls -la", "git status"]
DANGEROUS = ["rm -rf /", "rm -rf build", "curl x | sh"]
OPERATORS = [" && ", " || ", "; ", " | ", "\n", " & "]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(SAFE + DANGEROUS), min_size=1, max_size=5),
    st.lists(st.sampled_from(OPERATORS), min_size=4, max_size=4),
)
def test_compound_lines_property(commands: list[str], operators: list[str]) -> None:
    """``allow npm test*`` allows a line only when every command is npm test; ``deny rm *``
    denies any line that runs rm anywhere; anything else falls to the approval mode."""
    line = commands[0]
    for operator, command in zip(operators, commands[1:], strict=False):
        line += operator + command
    book = _book(("allow", "run_shell_command(npm test*)"), ("deny", "run_shell_command(rm *)"))
    effect = _effect(book, "run_shell_command", command=line)
    words = [part.split()[0] for part in commands] + [
        p.strip().split()[0] for c in commands for p in c.split("|")
    ]
    if "rm" in words:
        assert effect == "deny"
    elif all(command.startswith("npm test") for command in commands):
        assert effect == "allow"
    else:
        assert effect is None


_EFFECTS: list[RuleEffect] = ["allow", "ask", "deny"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(_EFFECTS), st.booleans()),
        min_size=0,
        max_size=6,
    )
)
def test_precedence_property(rules: list[tuple[RuleEffect, bool]]) -> None:
    """Whatever the rules' order, the strongest matching effect wins: deny > ask > allow."""
    texts = {True: "run_shell_command(make *)", False: "run_shell_command(ls *)"}
    book = _book(*[(effect, texts[hits]) for effect, hits in rules])
    matching = {effect for effect, hits in rules if hits}
    expected = next((e for e in ("deny", "ask", "allow") if e in matching), None)
    assert _effect(book, "run_shell_command", command="make test") == expected
