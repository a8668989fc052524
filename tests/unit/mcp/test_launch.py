"""Stdio servers started with a parent-death signal (Linux): the command is found first, so a
missing one is still named; the launcher then becomes the server (same process id)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lull.mcp.launch import resolve, supported, with_parent_death_signal


def test_the_command_is_found_on_the_servers_path_or_next_to_its_cwd(tmp_path: Path) -> None:
    tool = tmp_path / "bin" / "my-server"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert resolve("my-server", {"PATH": str(tool.parent)}, tmp_path) == str(tool)
    assert resolve("bin/my-server", None, tmp_path) == str(tool)
    for missing in ("no-such-mcp-server-here", "./nothing/here"):
        with pytest.raises(FileNotFoundError) as error:
            resolve(missing, {"PATH": str(tool.parent)}, tmp_path)
        assert error.value.filename == missing


_REPORT = """\
import ctypes, os
signal = ctypes.c_int()
ctypes.CDLL(None).prctl(2, ctypes.byref(signal))  # PR_GET_PDEATHSIG
print(os.getpid(), signal.value)
"""


@pytest.mark.skipif(not supported(), reason="a parent-death signal is Linux's")
def test_the_launcher_asks_for_the_signal_and_becomes_the_server(tmp_path: Path) -> None:
    command, args = with_parent_death_signal(sys.executable, ["-c", _REPORT], None, tmp_path)
    assert command == sys.executable and args[:3] == ["-I", "-S", "-c"]
    # the launcher checks that its parent is the process that made the command: this one
    process = subprocess.Popen([command, *args], stdout=subprocess.PIPE, text=True)
    out, _ = process.communicate(timeout=30)
    pid, signal_number = out.split()
    assert process.returncode == 0 and int(pid) == process.pid  # exec: the same process
    assert int(signal_number) == 15  # SIGTERM when lull ends
