"""Splitting a shell line into the commands it runs: operators, quotes, redirections, and
what makes a line one that no rule may allow."""

from __future__ import annotations

import pytest

from lull.tools.permissions.shell_split import split_command


def _texts(line: str) -> list[str]:
    return [command.text for command in split_command(line).commands]


@pytest.mark.parametrize(
    ("line", "commands"),
    [
        ("npm test", ["npm test"]),
        ("npm test; rm -rf /", ["npm test", "rm -rf /"]),
        ("a && b || c", ["a", "b", "c"]),
        ("a | b |& c", ["a", "b", "c"]),
        ("a & b", ["a", "b"]),
        ("a\nb", ["a", "b"]),
        ("  npm   test  ", ["npm test"]),
        ('echo "a; b" c', ['echo "a; b" c']),
        ("echo 'a && b'", ["echo 'a && b'"]),
        ("echo a\\;b", ["echo a\\;b"]),
        ("make # and a comment; rm x", ["make"]),
        ("npm test 2>&1 | tee log", ["npm test", "tee log"]),
        ("ls > /dev/null", ["ls"]),
    ],
)
def test_commands_of_a_line(line: str, commands: list[str]) -> None:
    parsed = split_command(line)
    assert _texts(line) == commands
    assert parsed.problem is None


def test_quotes_are_removed_from_words_but_kept_in_the_text() -> None:
    (command,) = split_command('git commit -m "fix: a b"').commands
    assert command.words == ("git", "commit", "-m", "fix: a b")
    assert command.text == 'git commit -m "fix: a b"'


@pytest.mark.parametrize(
    ("line", "writes"),
    [
        ("echo hi > out.txt", ("out.txt",)),
        ("echo hi>out.txt", ("out.txt",)),
        ("echo hi >> log", ("log",)),
        ("make &> build.log", ("build.log",)),
        ("make 2> err.txt", ("err.txt",)),
        ("make 2>&1", ()),
        ("make >&2", ()),
        ("make > /dev/null 2>&1", ()),
        ("sort < in.txt", ()),
    ],
)
def test_output_redirections_name_the_files_they_write(line: str, writes: tuple[str, ...]) -> None:
    (command,) = split_command(line).commands
    assert command.writes == writes


@pytest.mark.parametrize(
    ("line", "problem", "nested"),
    [
        ("echo $(rm -rf /)", "command substitution ($(...))", ["rm -rf /"]),
        ("echo `rm -rf /`", "command substitution (`...`)", ["rm -rf /"]),
        ('echo "$(whoami)"', "command substitution ($(...))", ["whoami"]),
        ("(cd x && rm -rf y)", "a subshell ( ... )", ["cd x", "rm -rf y"]),
        ("diff <(ls a) <(ls b)", "process substitution", ["ls a", "ls b"]),
        ("cat <<EOF", "a here-document", []),
        ("if true; then rm -rf /; fi", "shell syntax (if)", []),
        ("{ a; b; }", "shell syntax ({)", []),
        ("echo 'open", "an unterminated ' quote", []),
        ('echo "open', 'an unterminated " quote', []),
        ("a )", "an unmatched )", []),
    ],
)
def test_what_a_rule_may_not_allow(line: str, problem: str, nested: list[str]) -> None:
    parsed = split_command(line)
    assert parsed.problem == problem
    assert [command.text for command in parsed.nested] == nested


def test_nested_substitutions_are_followed() -> None:
    parsed = split_command("echo $(cat $(find . -name x))")
    assert [c.text for c in parsed.nested] == ["cat $(find . -name x)", "find . -name x"]
