"""Deny and ask rules mean what they say: a shell rule holds however the command is spelled,
a read rule covers every tool that reads files and shell commands that name the file, and a
domain rule compares addresses. Each case here was let through before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lull.model.permissions import PermissionRule, RuleEffect
from lull.tools.base import ToolContext
from lull.tools.permissions.rules import RuleBook
from lull.tools.registry import default_registry

TOOLS = {tool.name: tool for tool in default_registry()}


def _book(*rules: tuple[RuleEffect, str]) -> RuleBook:
    return RuleBook([PermissionRule(e, t, "/u/settings.json") for e, t in rules])


def _effect(book: RuleBook, ctx: ToolContext, tool: str, **args: Any) -> str | None:
    match = book.match(TOOLS[tool], args, ctx)
    return match.effect if match else None


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "secret.txt").write_text("TOKEN=1\n")
    (workspace / "sub" / "secret.txt").write_text("TOKEN=2\n")
    (workspace / "notes.txt").write_text("hello\n")
    (workspace / "link.txt").symlink_to(workspace / "secret.txt")
    return ToolContext(workspace=workspace, output_dir=tmp_path / "out")


@pytest.mark.parametrize(
    "command",
    [
        "/bin/rm -rf x",
        "rm -fr x",
        "rm -r -f x",
        "rm -f -r x",
        "rm -rfv x",
        "rm --recursive --force x",
        "rm -R -f x",
        "\\rm -rf x",
        "find x -delete",
        "find . -name '*.o' -exec rm -rf {} ;",
        "sudo /usr/bin/rm -fr x",
        "ls && rm -r -f x",
    ],
)
def test_a_shell_deny_holds_however_the_command_is_spelled(ctx: ToolContext, command: str) -> None:
    book = _book(("deny", "run_shell_command(rm -rf *)"), ("allow", "run_shell_command"))
    assert _effect(book, ctx, "run_shell_command", command=command) == "deny"


@pytest.mark.parametrize("command", ["rm x", "rm -r x", "rm -f x", "ls -rf", "find x -name y"])
def test_a_shell_deny_does_not_reach_other_commands(ctx: ToolContext, command: str) -> None:
    book = _book(("deny", "run_shell_command(rm -rf *)"), ("allow", "run_shell_command"))
    assert _effect(book, ctx, "run_shell_command", command=command) == "allow"


def test_normal_forms_never_widen_an_allow_rule(ctx: ToolContext) -> None:
    book = _book(("allow", "run_shell_command(rm -rf build)"))
    assert _effect(book, ctx, "run_shell_command", command="rm -rf build") == "allow"
    assert _effect(book, ctx, "run_shell_command", command="rm -fr build") is None
    assert _effect(book, ctx, "run_shell_command", command="/bin/rm -rf build") is None


@pytest.mark.parametrize("command", ["$(echo rm) -rf x", "X=rm; $X -rf x", "`echo rm` x"])
def test_a_computed_command_name_is_asked_about_when_a_shell_deny_exists(
    ctx: ToolContext, command: str
) -> None:
    book = _book(("deny", "run_shell_command(rm -rf *)"), ("allow", "run_shell_command"))
    match = book.match(TOOLS["run_shell_command"], {"command": command}, ctx)
    assert match is not None and match.effect == "ask"
    assert "computed" in match.described() and "rm -rf *" in match.described()
    # without a shell deny rule, nothing is asked on that account
    assert _effect(_book(("allow", "run_shell_command")), ctx, "run_shell_command", command=command)


@pytest.mark.parametrize("rule", ["read_file(secret.txt)", "Read(secret.txt)"])
@pytest.mark.parametrize(
    "command",
    [
        "cat secret.txt",
        "cat ./secret.txt",
        "head -n 3 sub/secret.txt",
        "cat sec*",
        "cat link.txt",
        "base64 < secret.txt",
        "grep -r TOKEN .",
        "grep -R TOKEN",
        "rg TOKEN",
        "git grep TOKEN",
        "cp secret.txt /tmp/x",
        "python3 -c 'print(1)' --file=secret.txt",
    ],
)
def test_a_read_deny_covers_shell_commands_that_read_the_file(
    ctx: ToolContext, rule: str, command: str
) -> None:
    book = _book(("deny", rule), ("allow", "run_shell_command"))
    match = book.match(TOOLS["run_shell_command"], {"command": command}, ctx)
    assert match is not None and match.effect == "deny", command
    assert match.why  # the message says how the rule reached the command


@pytest.mark.parametrize(
    "command", ["cat notes.txt", "grep TOKEN notes.txt", "ls", "rg TOKEN /usr/share/doc"]
)
def test_a_read_deny_leaves_other_shell_commands_alone(ctx: ToolContext, command: str) -> None:
    book = _book(("deny", "Read(secret.txt)"), ("allow", "run_shell_command"))
    assert _effect(book, ctx, "run_shell_command", command=command) == "allow"


def test_a_read_deny_covers_every_reading_tool(ctx: ToolContext) -> None:
    book = _book(("deny", "Read(secret.txt)"))
    assert _effect(book, ctx, "read_file", path="secret.txt") == "deny"
    assert _effect(book, ctx, "grep_search", pattern="TOKEN", path="secret.txt") == "deny"
    assert _effect(book, ctx, "list_directory", path="secret.txt") == "deny"
    # a search of a tree runs; the file is left out of its results (test_grep_search)
    assert _effect(book, ctx, "grep_search", pattern="TOKEN") is None
    whole = _book(("deny", "Read"))
    for tool, args in [("grep_search", {"pattern": "x"}), ("glob", {"pattern": "*"})]:
        assert _effect(whole, ctx, tool, **args) == "deny"


def test_reading_rule_names_the_rule_for_a_path(ctx: ToolContext) -> None:
    book = _book(("deny", "Read(secret.txt)"), ("ask", "read_file(notes.txt)"))
    workspace = ctx.workspace
    denial = book.reading_rule(workspace / "sub" / "secret.txt", workspace)
    assert denial is not None and denial.text == "Read(secret.txt)"
    assert book.reading_rule(workspace / "link.txt", workspace) == denial  # symlink followed
    asking = book.reading_rule(workspace / "notes.txt", workspace)
    assert asking is not None and asking.effect == "ask"
    assert book.reading_rule(workspace / "other.txt", workspace) is None
    guard = book.read_guard(workspace)
    assert guard(workspace / "secret.txt") == 'deny rule "Read(secret.txt)" from /u/settings.json'


def test_an_edit_deny_covers_a_shell_redirection_that_writes_the_file(ctx: ToolContext) -> None:
    book = _book(("deny", "Edit(secret.txt)"), ("allow", "run_shell_command"))
    assert _effect(book, ctx, "run_shell_command", command="echo x > secret.txt") == "deny"
    assert _effect(book, ctx, "run_shell_command", command="echo x >> sub/secret.txt") == "deny"
    assert _effect(book, ctx, "run_shell_command", command="cat secret.txt") == "allow"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/",
        "http://2130706433:8080/",
        "http://0x7f000001/",
        "http://0x7f.1/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://127.0.0.1./",
    ],
)
def test_a_domain_deny_compares_addresses_not_spellings(ctx: ToolContext, url: str) -> None:
    book = _book(("deny", "web_fetch(domain:127.0.0.1)"))
    assert _effect(book, ctx, "web_fetch", url=url) == "deny"


def test_a_domain_deny_keeps_other_hosts_apart(ctx: ToolContext) -> None:
    book = _book(("deny", "web_fetch(domain:127.0.0.1)"), ("deny", "web_fetch(domain:Evil.COM)"))
    assert _effect(book, ctx, "web_fetch", url="http://127.0.0.2/") is None
    assert _effect(book, ctx, "web_fetch", url="http://example.com/") is None
    assert _effect(book, ctx, "web_fetch", url="https://EVIL.com./x") == "deny"


def test_a_home_of_no_such_user_is_a_plain_word(ctx: ToolContext) -> None:
    book = _book(("deny", "Read(secret.txt)"), ("allow", "run_shell_command"))
    assert _effect(book, ctx, "run_shell_command", command="cat ~nosuchuser0/x") == "allow"
    assert _effect(book, ctx, "read_file", path="~nosuchuser0/x") is None
