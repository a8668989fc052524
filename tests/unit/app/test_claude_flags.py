"""Claude Code's flags made lull's options: the system prompt's files."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.command_line import parse_command_line


def test_system_prompt_files_replace_and_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "system.md").write_text("You are Terse.\n")
    (tmp_path / "extra.md").write_text("Answer in French.\n")
    line = parse_command_line(
        [
            "-p",
            "hi",
            "--system-prompt-file",
            "system.md",
            "--append-system-prompt",
            "Be brief.",
            "--append-system-prompt-file",
            "extra.md",
        ]
    )
    assert line.run.system_prompt == "You are Terse."
    assert line.run.append_system_prompt == "Be brief.\n\nAnswer in French."


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-p", "x", "--system-prompt-file", "gone.md"], "--system-prompt-file: gone.md: no such"),
        (["-p", "x", "--append-system-prompt-file", "dir"], "dir is a directory, not a file"),
        (["-p", "x", "--append-system-prompt-file", "empty.md"], "empty.md is empty"),
        (
            ["-p", "x", "--system-prompt-file", "empty.md/child"],
            "empty.md/child: cannot read it (Not a directory)",
        ),
        (["--system-prompt-file", "empty.md"], "--system-prompt-file needs -p/--print"),
        (
            ["-p", "x", "--system-prompt", "a", "--system-prompt-file", "empty.md"],
            "use either --system-prompt or --system-prompt-file",
        ),
    ],
)
def test_a_bad_system_prompt_file_exits_2_naming_its_path(
    argv: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dir").mkdir()
    (tmp_path / "empty.md").write_text(" \n")
    with pytest.raises(SystemExit) as exit_info:
        parse_command_line(argv, cwd=tmp_path)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err.strip().splitlines()[-1]
