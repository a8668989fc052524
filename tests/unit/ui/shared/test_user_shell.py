"""``!command`` lines: telling them apart and their command."""

from __future__ import annotations

from lull.ui.shared.user_shell import is_shell, shell_command


def test_a_bang_line_is_a_shell_command() -> None:
    assert is_shell("!git status") and is_shell("  ! ls -la")
    assert not is_shell("hello !") and not is_shell("/help")
    assert shell_command("  ! ls -la ") == "ls -la"
    assert shell_command("!") == ""
