"""One rule for what is a slash command, in every front end."""

from __future__ import annotations

from lull.ui.shared.commands import is_command, is_quit


def test_commands_and_paths() -> None:
    assert is_command("/help") and is_command("/") and not is_command("/usr/bin is broken")
    assert is_command("  /context restore") and not is_command("/etc/hosts is odd")
    assert not is_command("hello /help")


def test_quit_in_any_case() -> None:
    assert is_quit("/quit") and is_quit(" /EXIT ") and not is_quit("/quit now")


def test_a_custom_command_in_a_subfolder_is_a_command() -> None:
    from lull.ui.shared.commands import is_command

    assert is_command("/frontend:test some args")
    assert not is_command("/usr/bin is broken")
